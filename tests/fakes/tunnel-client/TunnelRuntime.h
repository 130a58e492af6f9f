// The running fake: health listener, startup probe with retries, readiness, fault timers and
// orderly exit on SIGTERM/SIGINT.
#pragma once

#include "EventLog.h"
#include "Faults.h"
#include "RunConfig.h"

#include <QObject>
#include <QString>
#include <QTimer>

namespace faketunnel {

class HealthServer;
class McpProbe;
class SignalWatcher;

class TunnelRuntime : public QObject
{
    Q_OBJECT
public:
    TunnelRuntime(const RunConfig &config, const Faults &faults, const EventLog &events,
                  SignalWatcher *signals_, QObject *parent = nullptr);
    ~TunnelRuntime() override;

    // Binds the health listener and schedules the first probe. False (already logged) if it
    // cannot listen; the caller then exits 1.
    bool start();

private:
    void onSignal(int signo);
    void onProbeSucceeded(const QString &protocolVersion, const QByteArray &sessionId);
    void onProbeFailed(const QString &reason);
    void setReady(bool ready, const QString &reason);
    bool writeUrlFile(const QString &url);
    void stop(int code, const QString &signalName, const QString &reason);

    RunConfig m_config;
    Faults m_faults;
    EventLog m_events;
    HealthServer *m_health = nullptr;
    McpProbe *m_probe = nullptr;
    QTimer m_retryTimer;
    QTimer m_exitTimer;
    bool m_urlFileWritten = false;
    bool m_stopping = false;
    int m_attempts = 0;
};

} // namespace faketunnel
