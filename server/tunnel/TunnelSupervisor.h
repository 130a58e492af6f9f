#pragma once

#include "config/Config.h"
#include "tunnel/RestartBackoff.h"
#include "tunnel/TunnelCredentials.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTimer>

class QNetworkReply;

namespace chat2sbx {

// Keeps `tunnel-client run` (OpenAI Secure MCP Tunnel) alive next to the MCP endpoint. The ONLY code
// that starts tunnel-client (path: Config::tunnelClient).
//
// Life cycle (all asynchronous, nothing blocks the event loop):
//   Stopped --start()--> Starting --/readyz 200--> Ready
//   Starting/Ready --child exits--> Failed (lastError says why) --backoff delay--> Starting ...
//   any --credentials missing/malformed or client not executable--> Failed, no retry
//   any --stop()--> SIGTERM, SIGKILL after Config::tunnelStopGraceMs --> Stopped, stopped()
// Restart delays double from Config::tunnelBackoffMs (default 1 s) up to 60 s, and start again from the
// base once the client had been ready for 60 s before it exited.
//
// The child runs as
//   tunnel-client run --control-plane.tunnel-id=<id> --control-plane.api-key=env:CHAT2SBX_TUNNEL_KEY
//     --mcp.server-url=http://127.0.0.1:<port>/mcp --health.listen-addr=127.0.0.1:<free port> --log.level=info
//     [--mcp.extra-headers "<header>: env:CHAT2SBX_LOCAL_TOKEN"]
// with the key (and the local token) only in its environment; its output is forwarded to our log with
// the secrets masked. On Linux the child also gets SIGTERM if this process dies without stopping it.
//
// For the tray and status: state(), lastError(), restarts(), healthUrl(), childPid(), toJson(), and
// the signals below. All getters are cheap and safe to call at any time from the GUI thread.
class TunnelSupervisor : public QObject {
    Q_OBJECT
public:
    enum class State { Stopped, Starting, Ready, Failed };
    Q_ENUM(State)

    explicit TunnelSupervisor(const Config &config, QObject *parent = nullptr);
    ~TunnelSupervisor() override;

    // The shared secret the MCP endpoint checks (Config::localTokenHeader). Call before start(); an
    // empty token means none. Takes effect at the next (re)start of the client.
    void setLocalToken(const QString &headerName, const QString &token);

    // Loads the credentials (files, else keychain), then starts the client against the MCP endpoint on
    // 127.0.0.1:<mcpPort>. No-op unless Stopped or Failed.
    void start(quint16 mcpPort);
    // Stops the client (SIGTERM, SIGKILL after the grace period) and cancels pending restarts.
    // Emits stopped() once no child is left (also when none was running).
    void stop();

    State state() const { return m_state; }
    static QString stateName(State state);   // "stopped", "starting", "ready", "failed"
    // Why the tunnel is not (or was last not) ready; empty after it became ready. Never contains the key.
    QString lastError() const { return m_lastError; }
    // While Starting: the client's last /readyz answer ("HTTP 503: ..." or a connection error), else empty.
    QString readinessDetail() const { return m_readinessDetail; }
    // How many times the client was started again after exiting.
    int restarts() const { return m_restarts; }
    // The client's own health listener, e.g. http://127.0.0.1:41234/healthz; empty when no client runs.
    QString healthUrl() const;
    qint64 childPid() const;
    // Milliseconds until the next restart attempt, or -1 when none is scheduled.
    qint64 nextRestartInMs() const;
    // {"state","lastError","readiness","restarts","healthUrl","pid","nextRestartInMs"} for /healthz.
    QJsonObject toJson() const;

signals:
    void stateChanged(chat2sbx::TunnelSupervisor::State state);
    // Any field of toJson() changed (state, error, restart count, pid).
    void statusChanged();
    // The client exited and will be started again after `delayMs` (the attempt-th consecutive failure).
    void restartScheduled(qint64 delayMs, int attempt);
    void stopped();

private:
    void setState(State state);
    void failPermanently(const QString &error);
    void launch();
    void pollReadiness();
    void onChildOutput();
    void onChildFinished(const QString &why);
    QString masked(QString text) const;
    QStringList arguments() const;
    QString mcpServerUrl() const;

    Config m_config;
    quint16 m_mcpPort = 0;
    quint16 m_healthPort = 0;
    QString m_localTokenHeader;
    QString m_localToken;
    TunnelCredentials m_credentials;
    State m_state = State::Stopped;
    QString m_lastError;
    QString m_lastChildLine;
    QString m_readinessDetail;
    QByteArray m_outputBuffer;
    int m_restarts = 0;
    bool m_stopping = false;
    quint64 m_generation = 0;   // bumps on start/stop so late callbacks of an older run are ignored
    QProcess *m_process = nullptr;
    QNetworkAccessManager m_nam;
    QPointer<QNetworkReply> m_poll;
    QTimer m_pollTimer;
    QTimer m_restartTimer;
    QTimer m_killTimer;
    QElapsedTimer m_readySince;
    RestartBackoff m_backoff;
};

} // namespace chat2sbx
