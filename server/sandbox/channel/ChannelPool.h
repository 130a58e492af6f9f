#pragma once

#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/channel/SandboxChannel.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <optional>

namespace chat2sbx {

class SbxDriver;

// The control channels of all running sandboxes. As RuntimeAttacher it starts a sandbox's channel
// and answers once the helper's ping came back; tools get the channel with channelFor().
class ChannelPool : public QObject, public RuntimeAttacher {
    Q_OBJECT
public:
    explicit ChannelPool(SbxDriver &driver, const SandboxChannel::Options &options = {}, QObject *parent = nullptr);
    ~ChannelPool() override;

    void attach(const RunningSandbox &sandbox, std::function<void(bool ok, const QString &error)> done) override;
    void detach(const QString &sandboxId) override;

    // The channel of a resolved sandbox, created (and started by its first request) when missing.
    SandboxChannel &channelFor(const RunningSandbox &sandbox);
    SandboxChannel *find(const QString &sandboxId) const;

    // On: channels do not restart by themselves after their child exits; channelExited() is
    // emitted and whoever listens calls resumeRestarts() unless the VM itself stopped (SandboxSleep).
    void setRestartAfterExitCheck(bool on) { m_checkExits = on; }
    void resumeRestarts(const QString &sandboxId);
    // A request is in flight on the sandbox's channel.
    bool isBusy(const QString &sandboxId) const;
    // The sandbox's channel has a child (started or starting).
    bool isRunning(const QString &sandboxId) const;
    // The host is ending (Controller::stop): detach() lets each channel's child go untouched
    // (SandboxChannel::letGo), and their input ends after the event loop, all at once: with this
    // pool, or with the process when it ends right after (the kernel closes the pipes in one go);
    // each helper then ends by itself, as when its host is killed.
    enum class InputEnds { WithPool, WithProcess };
    void beginExit(InputEnds ends = InputEnds::WithPool) { m_exit = ends; }

signals:
    void channelExited(const QString &sandboxId);

private:
    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    SbxDriver &m_driver;
    SandboxChannel::Options m_options;
    QHash<QString, SandboxChannel *> m_channels;
    bool m_checkExits = false;
    std::optional<InputEnds> m_exit;   // set by beginExit()
    QList<QPointer<QProcess>> m_letGo;
};

} // namespace chat2sbx
