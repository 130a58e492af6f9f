#include "sandbox/lifecycle/WorkspaceRemoval.h"

#include "core/Clock.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "workspace/WorkspaceRetention.h"
#include "workspace/WorkspaceService.h"

#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcRemoval, "chat2sbx.workspace.removal")

WorkspaceRemoval::WorkspaceRemoval(WorkspaceService &workspaces, SandboxService &sandboxes, WorkspaceRetention &retention,
                                   QObject *parent)
    : QObject(parent), m_workspaces(workspaces), m_sandboxes(sandboxes), m_retention(retention)
{
}

void WorkspaceRemoval::remove(const QString &workspaceId, std::function<void(const Outcome &)> done)
{
    const std::optional<Workspace> w = m_workspaces.find(workspaceId);
    if (!w) {
        Outcome o;
        o.error = QStringLiteral("no workspace with id %1").arg(workspaceId);
        return done(o);
    }
    if (w->revokedAt != 0 || w->trashedAt != 0) {
        Outcome o;
        o.error = w->revokedAt ? QStringLiteral("access to %1 was already revoked").arg(w->hostPath)
                               : QStringLiteral("workspace %1 is already in the trash").arg(workspaceId);
        return done(o);
    }
    QStringList pending;
    for (const SandboxView &v : m_sandboxes.list())
        if (v.record.workspaceId == workspaceId && v.record.state != SandboxState::Destroyed)
            pending << v.record.id;
    destroyNext(workspaceId, pending, Outcome{}, std::move(done));
}

void WorkspaceRemoval::destroyNext(const QString &workspaceId, QStringList pending, Outcome progress,
                                   std::function<void(const Outcome &)> done)
{
    if (pending.isEmpty())
        return finish(workspaceId, progress, std::move(done));
    const QString id = pending.takeFirst();
    QPointer<WorkspaceRemoval> self(this);
    m_sandboxes.destroy(id, [self, workspaceId, pending, progress, done, id](const SandboxService::Outcome &o) mutable {
        if (!self)
            return;
        if (!o.ok) {
            progress.error = QStringLiteral("workspace %1 was not removed: %2").arg(workspaceId, o.error);
            return done(progress);
        }
        progress.destroyedSandboxes << id;
        if (!o.keptBranch.isEmpty())
            progress.savedBranches << o.keptBranch;
        self->destroyNext(workspaceId, pending, progress, done);
    });
}

void WorkspaceRemoval::finish(const QString &workspaceId, Outcome outcome, std::function<void(const Outcome &)> done)
{
    const std::optional<Workspace> w = m_workspaces.find(workspaceId);
    if (!w) {
        outcome.error = QStringLiteral("workspace %1 disappeared").arg(workspaceId);
        return done(outcome);
    }
    QString error;
    QString what;
    if (w->isManaged()) {
        if (!m_retention.moveToTrash(*w, error)) {
            outcome.error = QStringLiteral("workspace %1: %2").arg(workspaceId, error);
            return done(outcome);
        }
        what = QStringLiteral("managed workspace %1 moved to the trash (%2)").arg(workspaceId, m_workspaces.config().trashDir());
    } else {
        if (!m_workspaces.recordRevoked(workspaceId, m_workspaces.clock().nowMs(), error)) {
            outcome.error = error;
            return done(outcome);
        }
        what = QStringLiteral("access to %1 revoked (workspace %2); an agent has to ask again with workspace_request")
                   .arg(w->hostPath, workspaceId);
    }
    QStringList parts{what};
    if (!outcome.destroyedSandboxes.isEmpty())
        parts << QStringLiteral("destroyed %1").arg(outcome.destroyedSandboxes.join(QStringLiteral(", ")));
    if (!outcome.savedBranches.isEmpty())
        parts << QStringLiteral("their work is on %1").arg(outcome.savedBranches.join(QStringLiteral(", ")));
    outcome.summary = parts.join(QStringLiteral("; "));
    outcome.ok = true;
    qCInfo(lcRemoval).noquote() << outcome.summary;
    m_workspaces.notifyChanged();
    done(outcome);
}

} // namespace chat2sbx
