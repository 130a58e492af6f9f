#include "sandbox/channel/ChannelPool.h"

#include <QProcess>

namespace chat2sbx {

ChannelPool::ChannelPool(SbxDriver &driver, const SandboxChannel::Options &options, QObject *parent)
    : QObject(parent), m_driver(driver), m_options(options)
{
}

ChannelPool::~ChannelPool()
{
    if (m_exit == InputEnds::WithPool)
        for (const QPointer<QProcess> &proc : std::as_const(m_letGo))
            if (proc && proc->state() != QProcess::NotRunning)
                proc->closeWriteChannel();
    qDeleteAll(m_channels);
}

void ChannelPool::attach(const RunningSandbox &sandbox, std::function<void(bool, const QString &)> done)
{
    SandboxChannel &channel = channelFor(sandbox);
    channel.ping(m_options.startTimeoutMs, [done](const ChannelReply &r) {
        if (done)
            done(r.ok, r.ok ? QString() : QStringLiteral("in-sandbox helper did not start: %1").arg(r.error));
    });
}

void ChannelPool::detach(const QString &sandboxId)
{
    SandboxChannel *channel = m_channels.take(sandboxId);
    if (!channel)
        return;
    if (!m_exit)
        channel->stop();
    else if (QProcess *proc = channel->letGo())
        m_letGo.append(proc);
    channel->deleteLater();
}

SandboxChannel &ChannelPool::channelFor(const RunningSandbox &sandbox)
{
    SandboxChannel *&channel = m_channels[sandbox.sandboxId];
    if (!channel) {
        SandboxChannel::Options options = m_options;
        options.restartAfterExit = !m_checkExits;
        channel = new SandboxChannel(m_driver, sandbox, options);
        SandboxChannel *created = channel;
        connect(created, &SandboxChannel::exited, this, [this, created] { emit channelExited(created->sandbox().sandboxId); });
    }
    else if (channel->sandbox().runtimeName != sandbox.runtimeName) {
        // Same public id on a new runtime (re-created): the old child talks to the wrong VM.
        channel->stop();
        channel->setSandbox(sandbox);
    }
    channel->checkAtStart(sandbox.startCheck);
    return *channel;
}

SandboxChannel *ChannelPool::find(const QString &sandboxId) const
{
    return m_channels.value(sandboxId, nullptr);
}

void ChannelPool::resumeRestarts(const QString &sandboxId)
{
    if (SandboxChannel *channel = find(sandboxId))
        channel->resumeRestarts();
}

bool ChannelPool::isBusy(const QString &sandboxId) const
{
    const SandboxChannel *channel = find(sandboxId);
    return channel && channel->pendingCount() > 0;
}

bool ChannelPool::isRunning(const QString &sandboxId) const
{
    const SandboxChannel *channel = find(sandboxId);
    return channel && channel->isRunning();
}

} // namespace chat2sbx
