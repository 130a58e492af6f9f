// The control-plane poll loop of pkg/controlplane/internal/poller.go, simulated: no network. A
// successful long poll takes FAKE_TUNNEL_POLL_MS and stores the time in the gauge
// commands_poll_last_successful_timestamp_seconds; with FAKE_TUNNEL_POLL_STATUS every poll fails with
// that HTTP status, logs "poll failed; backing off" (status_code, status, retry_in_ms ...) and retries
// after a jittered-free exponential back-off (200 ms doubling to 10 s), forever: it never exits.
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QTimer>

namespace faketunnel {

class ControlPlanePoller : public QObject
{
    Q_OBJECT
public:
    ControlPlanePoller(int pollMs, int failStatus, QObject *parent = nullptr);

    void start();
    void stop();
    // Prometheus text for the poller's metrics.
    QByteArray metrics() const;
    // The control-plane component of /health?details=true: status, state, reason_code.
    QJsonObject component() const;

private:
    void finishCycle();

    QTimer m_timer;
    int m_pollMs;
    int m_failStatus;
    qint64 m_backoffMs = 200;
    qint64 m_lastSuccessSeconds = 0;
    qint64 m_cycles = 0;
    qint64 m_errors = 0;
    bool m_hadError = false;
    bool m_running = false;
};

} // namespace faketunnel
