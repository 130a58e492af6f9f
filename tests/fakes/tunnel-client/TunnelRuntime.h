// The running fake: health listener, OAuth discovery and the single start-up MCP probe (retried only
// under --mcp.startup-wait-timeout, and only for a refused connection), readiness as /readyz reports
// it, the simulated control-plane poller, fault timers and a graceful stop on SIGTERM/SIGINT.
#pragma once

#include "EventLog.h"
#include "Faults.h"
#include "RunConfig.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

namespace faketunnel {

class ControlPlanePoller;
class HealthServer;
class McpProbe;
class OAuthDiscovery;
class SignalWatcher;

class TunnelRuntime : public QObject
{
    Q_OBJECT
public:
    TunnelRuntime(const RunConfig &config, const Faults &faults, const EventLog &events,
                  SignalWatcher *signals_, QObject *parent = nullptr);
    ~TunnelRuntime() override;

    // Binds the health listener, starts discovery, the probe and (without a startup wait) the poller.
    // False (already logged) if it cannot listen; the caller then exits 1.
    bool start();

private:
    enum class Step { Pending, Ok, Failed };

    void attemptProbe();
    bool injectProbeFailure();
    void onProbeFailed(const QString &reason, bool retryable);
    void settleProbe(Step step, const QString &detail);
    void updateReadiness();
    bool writeUrlFile(const QString &url);
    void onSignal(int signo);
    void stop(int code, const QString &signalName, const QString &reason);

    RunConfig m_config;
    Faults m_faults;
    EventLog m_events;
    HealthServer *m_health = nullptr;
    McpProbe *m_probe = nullptr;
    OAuthDiscovery *m_discovery = nullptr;
    ControlPlanePoller *m_poller = nullptr;
    Step m_discoveryStep = Step::Pending;
    QString m_discoveryDetail;
    Step m_probeStep = Step::Pending;
    QString m_probeDetail;       // the /readyz text once the probe settled
    QString m_lastRetryable;     // last refused attempt, for the startup-wait failure
    QElapsedTimer m_waitClock;
    qint64 m_backoffMs = 50;
    int m_attempts = 0;
    QTimer m_retryTimer;
    QTimer m_exitTimer;
    bool m_urlFileWritten = false;
    bool m_stopping = false;
};

} // namespace faketunnel
