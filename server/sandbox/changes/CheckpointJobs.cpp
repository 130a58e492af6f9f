#include "sandbox/changes/CheckpointJobs.h"

#include "config/Config.h"
#include "sandbox/changes/CloneCheckpointWork.h"
#include "sandbox/changes/DockerImageKeeper.h"
#include "sandbox/changes/WorkspaceCopy.h"
#include "sandbox/lifecycle/SandboxService.h"

#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcCheckpointJobs, "chat2sbx.checkpoint")
} // namespace

CheckpointJobs::CheckpointJobs(const Config &config, Database &db, SandboxService &sandboxes, SbxDriver &sbx, Clock &clock,
                               CloneCheckpointWork *cloneWork, QObject *parent)
    : QObject(parent), m_config(config), m_sandboxes(sandboxes), m_sbx(sbx), m_clock(clock), m_cloneWork(cloneWork), m_repo(db),
      m_sessions(db), m_copy(new WorkspaceCopy(this)), m_docker(new DockerImageKeeper(sbx, this))
{
}

QString CheckpointJobs::copyDir(const QString &checkpointId) const
{
    return m_config.dataRoot + QStringLiteral("/checkpoints/") + checkpointId;
}

void CheckpointJobs::markInUse(const QString &checkpointId)
{
    ++m_inUse[checkpointId];
}

void CheckpointJobs::unmarkInUse(const QString &checkpointId)
{
    if (--m_inUse[checkpointId] <= 0)
        m_inUse.remove(checkpointId);
}

QSet<QString> CheckpointJobs::inUse() const
{
    QSet<QString> ids;
    for (auto it = m_inUse.cbegin(); it != m_inUse.cend(); ++it)
        ids.insert(it.key());
    return ids;
}

QString CheckpointJobs::whyNotUsable(const std::optional<Checkpoint> &c, const QString &checkpointId)
{
    if (!c)
        return QStringLiteral("unknown checkpoint_id %1 (sandbox_checkpoints lists them)").arg(checkpointId);
    if (c->state == CheckpointState::Saving)
        return QStringLiteral("checkpoint %1 is still being saved: sandbox_checkpoints shows when it is ready").arg(c->id);
    if (c->state == CheckpointState::Failed)
        return QStringLiteral("checkpoint %1 failed and holds nothing (%2)").arg(c->id, c->failure);
    return {};
}

void CheckpointJobs::fillNewVm(const RunningSandbox &vm, const Checkpoint &c, std::function<void(bool, const QString &)> done)
{
    QPointer<CheckpointJobs> self(this);
    const auto loadImages = [self, vm, c, done](bool ok, const QString &error) {
        if (!self)
            return done(false, QStringLiteral("chat2sbx is stopping"));
        if (!ok || c.dockerImages.isEmpty())
            return done(ok, error);
        self->m_docker->load(vm.runtimeName, c.id, [self, done](bool loaded, const QString &loadError) {
            done(loaded, loaded || !self ? loadError : self->m_sandboxes.publicText(loadError));
        });
    };
    if (c.cloneState.isEmpty())
        return loadImages(true, QString());
    if (!m_cloneWork)
        return done(false, QStringLiteral("clone sandboxes cannot be restored or forked here"));
    m_cloneWork->putBack(vm, c.cloneState, [self, loadImages](bool ok, const QString &error) {
        loadImages(ok, ok || !self ? error : self->m_sandboxes.publicText(error));
    });
}

bool CheckpointJobs::setPinned(const QString &checkpointId, bool pinned, QString &error)
{
    if (!m_repo.find(checkpointId)) {
        error = QStringLiteral("unknown checkpoint_id %1").arg(checkpointId);
        return false;
    }
    if (!m_repo.setPinned(checkpointId, pinned, error))
        return false;
    if (const auto c = m_repo.find(checkpointId))
        emit checkpointsChanged(c->sandboxId);
    return true;
}

bool CheckpointJobs::pinAsUndo(const QString &checkpointId, const QString &sandboxId, QString &error)
{
    const int released = m_repo.pinAsUndo(checkpointId, sandboxId, error);
    if (released < 0)
        return false;
    if (released > 0)
        qCInfo(lcCheckpointJobs).noquote() << "checkpoint" << checkpointId << "is the undo of" << sandboxId << "now;" << released
                                           << "older undo checkpoint(s) of it are no longer pinned";
    emit checkpointsChanged(sandboxId);
    return true;
}

} // namespace chat2sbx
