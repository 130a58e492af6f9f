#include "sandbox/lifecycle/SandboxSleep.h"

#include "core/Clock.h"
#include "sandbox/bash/BashSessions.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxSleeper.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QLoggingCategory>
#include <QPointer>

#include <algorithm>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcSleep, "chat2sbx.sandbox.sleep")

SandboxSleep::SandboxSleep(SandboxService &sandboxes, ChannelPool &channels, BashSessions &sessions, SbxDriver &sbx,
                           Clock &clock, QObject *parent)
    : QObject(parent), m_sandboxes(sandboxes), m_channels(channels), m_sessions(sessions), m_sbx(sbx), m_clock(clock)
{
    m_timer.setInterval(static_cast<int>(std::clamp<qint64>(m_sandboxes.sleeper().sleepMs() / 4, 500, 60000)));
    connect(&m_timer, &QTimer::timeout, this, &SandboxSleep::check);
    m_channels.setRestartAfterExitCheck(true);
    connect(&m_channels, &ChannelPool::channelExited, this, &SandboxSleep::onChannelExited);
}

void SandboxSleep::start()
{
    m_timer.start();
}

void SandboxSleep::stop()
{
    m_timer.stop();
}

void SandboxSleep::check()
{
    if (!m_sandboxes.reconciler().isSbxAvailable())
        return;
    for (const QString &id : m_sandboxes.sleeper().sleepCandidates()) {
        if (m_asking.contains(id) || m_channels.isBusy(id))
            continue;
        if (!m_sessions.hasRunning(id)) {
            sleepIfStillIdle(id);
            continue;
        }
        // The database says a command runs; the helper knows whether it still does.
        const auto sandbox = m_sandboxes.sleeper().runningSandbox(id);
        if (!sandbox)
            continue;
        m_asking.insert(id);
        QPointer<SandboxSleep> self(this);
        m_sessions.list(*sandbox, [self, id](const QList<BashSessionRecord> &sessions, int) {
            if (!self)
                return;
            self->m_asking.remove(id);
            for (const BashSessionRecord &s : sessions)
                if (!s.exited)
                    return;   // a command runs: the sandbox stays awake
            self->sleepIfStillIdle(id);
        });
    }
}

void SandboxSleep::sleepIfStillIdle(const QString &sandboxId)
{
    // A tool call may have come in meanwhile: decide on what holds now.
    if (m_channels.isBusy(sandboxId) || m_sessions.hasRunning(sandboxId)
        || !m_sandboxes.sleeper().sleepCandidates().contains(sandboxId))
        return;
    m_sandboxes.sleeper().putToSleep(sandboxId);
}

void SandboxSleep::onChannelExited(const QString &sandboxId)
{
    const auto view = m_sandboxes.get(sandboxId);
    if (!view || view->record.state != SandboxState::Running || m_checkingExit.contains(sandboxId)) {
        if (!m_checkingExit.contains(sandboxId))
            m_channels.resumeRestarts(sandboxId);
        return;
    }
    const QString runtime = view->record.runtimeName;
    const qint64 exitedAt = m_clock.nowMs();
    m_checkingExit.insert(sandboxId);
    QPointer<SandboxSleep> self(this);
    // A VM going down kills its processes before sbx reports it stopped: ask a moment later.
    QTimer::singleShot(kExitSettleMs, this, [self, sandboxId, runtime, exitedAt] {
        if (self)
            self->askWhetherStopped(sandboxId, runtime, exitedAt);
    });
}

void SandboxSleep::askWhetherStopped(const QString &sandboxId, const QString &runtime, qint64 exitedAt)
{
    QPointer<SandboxSleep> self(this);
    m_sbx.list([self, sandboxId, runtime, exitedAt](const SbxResult &r, const QList<SbxRuntimeInfo> &items) {
        if (!self)
            return;
        self->m_checkingExit.remove(sandboxId);
        QString status;
        for (const SbxRuntimeInfo &i : items)
            if (i.name == runtime)
                status = i.status;
        if (!r.ok || status != QLatin1String("stopped")) {
            self->m_channels.resumeRestarts(sandboxId);
            return;
        }
        qCWarning(lcSleep).noquote() << "the VM of sandbox" << sandboxId << "stopped under chat2sbx; its commands ended";
        // A tool call may have started the channel again meanwhile (and so the VM): then it slept and woke.
        self->m_sandboxes.sleeper().noteStopped(sandboxId, exitedAt, self->m_channels.isRunning(sandboxId));
    });
}

} // namespace chat2sbx
