#pragma once

#include <QObject>
#include <QString>
#include <QSet>
#include <QTimer>

namespace chat2sbx {

class BashSessions;
class ChannelPool;
class Clock;
class SandboxService;
class SbxDriver;

// Lets idle sandboxes sleep and notices VMs that stopped under a running chat2sbx.
//
// Sleep: a running sandbox that no tool call reached for sandboxSleepSeconds, with no request in
// flight on its control channel and no bash session still running (the helper is asked, so a
// finished but unpolled command does not keep it awake), is stopped through SandboxSleeper:
// channel closed, `sbx stop`, state `stopped` (files kept, RAM freed). The next tool call wakes it
// (SandboxService::resolveRunning).
//
// Stops from outside: the pool does not restart an exited channel by itself; this asks `sbx ls`
// first. A VM reported `stopped` marks the sandbox stopped and its sessions lost instead of
// starting the VM again; otherwise the channel restarts as before.
class SandboxSleep : public QObject {
    Q_OBJECT
public:
    SandboxSleep(SandboxService &sandboxes, ChannelPool &channels, BashSessions &sessions, SbxDriver &sbx, Clock &clock,
                 QObject *parent = nullptr);

    // Starts the periodic check (every quarter of the sleep period, 0.5 s to 60 s).
    void start();
    void stop();
    // One pass over the running sandboxes (the timer calls it; tests may too).
    void check();

private:
    void sleepIfStillIdle(const QString &sandboxId);
    void onChannelExited(const QString &sandboxId);
    void askWhetherStopped(const QString &sandboxId, const QString &runtime, qint64 exitedAt);

    static constexpr int kExitSettleMs = 300;

    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    SandboxService &m_sandboxes;
    ChannelPool &m_channels;
    BashSessions &m_sessions;
    SbxDriver &m_sbx;
    Clock &m_clock;
    QTimer m_timer;
    QSet<QString> m_asking;     // sandboxes whose session status is being asked before sleeping
    QSet<QString> m_checkingExit;
};

} // namespace chat2sbx
