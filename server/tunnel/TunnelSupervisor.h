#pragma once

#include "config/Config.h"
#include "tunnel/RestartBackoff.h"
#include "tunnel/TunnelClientProcess.h"
#include "tunnel/TunnelCredentials.h"
#include "tunnel/TunnelHealthProbe.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QTimer>

namespace chat2sbx {

// Keeps `tunnel-client run` (OpenAI Secure MCP Tunnel, reference/tunnel-client.md) alive next to the MCP
// endpoint, and says whether ChatGPT can actually reach us: the state machine over TunnelClientProcess
// (the child: launch, stop, output lines) and TunnelHealthProbe (readyz, metrics, health details). With
// TunnelDoctor the only code that starts tunnel-client (path: Config::tunnelClient; argv and
// environment: TunnelClientLaunch).
//
// States (all asynchronous, nothing blocks the event loop):
//   Starting      the client runs; /readyz not 200 yet, or no control-plane poll has succeeded yet
//   Connected     /readyz 200 and the client's commands_poll_last_successful_timestamp_seconds (from its
//                 /metrics) is recent: the tunnel service answers our polls; and, where the client
//                 answers /health?details=true (newer than v0.0.14), neither its control-plane nor its
//                 response-delivery component is degraded (else Failed with what that means)
//   Unauthorized  the last poll was refused (401/403: wrong or revoked key, wrong tunnel id, key without
//                 Tunnels Read+Use). The client retries forever by itself, so no restart here.
//   Failed        detail() says why: the client exited (restarted with back-off), was not ready within
//                 Config::tunnelReadyTimeoutMs or its one start-up probe failed (terminated and restarted
//                 with back-off), polls fail otherwise (it retries by itself), or it cannot start at all
//                 (no credentials, no client: no retry)
//   Stopped       stop() finished
// The client gets --mcp.startup-wait-timeout (half the readiness deadline) so a refused first probe is
// retried inside it; any other probe failure needs a new process, which the deadline guarantees.
// Restart delays double from Config::tunnelBackoffMs up to 60 s, from the base again after 60 s ready.
// stop(): SIGTERM, SIGKILL after Config::tunnelStopGraceMs (15 s: the client's own stop timeout).
class TunnelSupervisor : public QObject {
    Q_OBJECT
public:
    enum class State { Stopped, Starting, Connected, Unauthorized, Failed };
    Q_ENUM(State)

    explicit TunnelSupervisor(const Config &config, QObject *parent = nullptr);
    ~TunnelSupervisor() override;

    // The shared secret the MCP endpoint checks (Config::localTokenHeader). Call before start(); an
    // empty token means none. Takes effect at the next (re)start of the client.
    void setLocalToken(const QString &headerName, const QString &token);

    // Loads the credentials (files, else keychain), then starts the client against the MCP endpoint on
    // 127.0.0.1:<mcpPort>. No-op unless Stopped or Failed without a pending restart.
    void start(quint16 mcpPort);
    // Stops the client and cancels pending restarts. Emits stopped() once no child is left.
    void stop();

    State state() const { return m_state; }
    static QString stateName(State state);   // "stopped", "starting", "connected", "unauthorized", "failed"
    // What the user should know about the current state (why not connected, what to do); empty when connected.
    QString detail() const { return m_detail; }
    // The last error: the client's last error line, why it exited or was restarted. Never contains the key.
    QString lastError() const { return m_lastError; }
    // The client's last /readyz answer while not ready ("HTTP 503: mcp probe failed: ..."), else empty.
    int restarts() const { return m_restarts; }
    // The client's own health listener, e.g. http://127.0.0.1:41234/healthz; empty when unknown.
    QString healthUrl() const;
    qint64 childPid() const;
    qint64 nextRestartInMs() const;
    // Seconds since the last successful control-plane poll, -1 if none yet.
    qint64 lastPollAgeSeconds() const;
    // {"state","detail","lastError","readiness","restarts","healthUrl","pid","nextRestartInMs","lastPollAgeS"}.
    QJsonObject toJson() const;

    // Failed only because no tunnel id and key were ever given (no files, nothing in the keychain):
    // ChatGPT is simply not set up yet, an optional step, not a failure to show in red.
    bool notSetUp() const { return m_notSetUp; }

    // The text shown for Unauthorized (what to check, what to run).
    static QString unauthorizedAdvice(int httpStatus);

signals:
    void stateChanged(chat2sbx::TunnelSupervisor::State state);
    void statusChanged();
    void stopped();

private:
    void setState(State state, const QString &detail);
    void failPermanently(const QString &error);
    void launch();
    void restartClient(const QString &why);
    void pollHealth();
    void evaluate();
    void onLines(const QList<TunnelClientLine> &lines);
    void onChildFinished(const QString &why);
    QString healthUrlFilePath() const;

    Config m_config;
    quint16 m_mcpPort = 0;
    QString m_localTokenHeader;
    QString m_localToken;
    TunnelCredentials m_credentials;
    State m_state = State::Stopped;
    QString m_detail;
    QString m_lastError;
    QString m_lastErrorLine;       // the client's last error/warning line
    QString m_restartReason;       // set when we terminate the client to start it again
    bool m_notSetUp = false;
    TunnelClientLine m_pollFailure;
    qint64 m_pollFailureAtMs = 0;  // wall clock of m_pollFailure, 0 none
    int m_restarts = 0;
    bool m_stopping = false;
    quint64 m_generation = 0;      // a start: credentials read for an earlier one are dropped
    TunnelClientProcess m_client;
    TunnelHealthProbe m_health;
    QTimer m_pollTimer;
    QTimer m_readyDeadline;
    QTimer m_restartTimer;
    QElapsedTimer m_readySince;
    RestartBackoff m_backoff;
};

} // namespace chat2sbx
