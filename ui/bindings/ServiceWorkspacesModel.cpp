#include "bindings/ServiceWorkspacesModel.h"

#include "sandbox/changes/ChangesService.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxNames.h"
#include "sandbox/lifecycle/WorkspaceRemoval.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>
#include <QSet>

namespace chat2sbx::ui {

ServiceWorkspacesModel::ServiceWorkspacesModel(WorkspaceService &workspaces, SandboxService &sandboxes, ChangesService &changes,
                                               WorkspaceRemoval &removal, QObject *parent)
    : WorkspacesModel(parent), m_workspaces(workspaces), m_sandboxes(sandboxes), m_changes(changes), m_removal(removal)
{
    connect(&workspaces, &WorkspaceService::workspacesChanged, this, &WorkspacesModel::changed);
    connect(&sandboxes, &SandboxService::sandboxesChanged, this, &WorkspacesModel::changed);
    connect(&sandboxes, &SandboxService::workKept, this, [this](const QString &id, const QString &, const QString &summary) {
        emit notice(QStringLiteral("chat2sbx: work of %1 saved").arg(id), summary, false);
    });
    connect(&sandboxes, &SandboxService::workNotKept, this, [this](const QString &id, const QString &message) {
        emit notice(QStringLiteral("chat2sbx: %1 kept, its work is not saved").arg(id), m_sandboxes.publicText(message), true);
    });
}

QList<WorkspaceRow> ServiceWorkspacesModel::workspaces() const
{
    QHash<QString, QList<WorkspaceSandboxRow>> byWorkspace;
    QSet<QString> inCloud;
    for (const SandboxView &v : m_sandboxes.list()) {
        if (v.record.state == SandboxState::Destroyed)
            continue;
        byWorkspace[v.record.workspaceId].append({v.record.id, sandboxStateName(v.record.state), sandboxShortName(v)});
        if (v.record.isCloud())
            inCloud.insert(v.record.workspaceId);
    }
    QList<WorkspaceRow> rows;
    for (const Workspace &w : m_workspaces.list()) {
        WorkspaceRow row;
        row.id = w.id;
        row.name = w.displayName.isEmpty() ? w.id : w.displayName;
        row.mode = workspaceModeName(w.mode);
        if (!w.isManaged())
            row.path = w.hostPath;
        row.sandboxes = byWorkspace.value(w.id);
        row.inCloud = inCloud.contains(w.id);
        rows.append(row);
    }
    return rows;
}

void ServiceWorkspacesModel::summarize(const QString &sandboxId, std::function<void(const QString &)> done)
{
    const std::optional<SandboxView> v = m_sandboxes.get(sandboxId);
    if (!v || !v->workspace || v->record.state != SandboxState::Running)
        return done(QString());
    // Built here rather than resolved: looking does not count as using the sandbox (no idle renewal).
    RunningSandbox s;
    s.sandboxId = v->record.id;
    s.runtimeName = v->record.runtimeName;
    s.workspacePath = v->workspace->hostPath;
    s.managedWorkspace = v->workspace->isManaged();
    m_changes.changes(s, {}, false, 0, [done](const ChangesService::ChangesOutcome &o) {
        if (!o.ok)
            return done(o.error.contains(QLatin1String("not a git repository")) ? QStringLiteral("not a git repository")
                                                                                 : QStringLiteral("changes unknown"));
        int added = 0, removed = 0;
        for (const ChangedFile &f : o.changes.files) {
            added += qMax(0, f.added);
            removed += qMax(0, f.removed);
        }
        if (o.changes.commits.isEmpty() && o.changes.files.isEmpty())
            return done(QStringLiteral("no changes"));
        const qsizetype n = o.changes.commits.size(), files = o.changes.files.size();
        done(QStringLiteral("%1 %2 · %3 %4 +%5 −%6")
                 .arg(n).arg(n == 1 ? QStringLiteral("commit") : QStringLiteral("commits"))
                 .arg(files).arg(files == 1 ? QStringLiteral("file") : QStringLiteral("files"))
                 .arg(added).arg(removed));
    });
}

void ServiceWorkspacesModel::fetch(const QString &sandboxId, ResultCallback done)
{
    QPointer<ServiceWorkspacesModel> self(this);
    m_changes.exportWork(sandboxId, {}, [self, done](const ChangesService::ExportOutcome &o) {
        if (!o.ok)
            return done(false, self ? self->m_sandboxes.publicText(o.error) : o.error);
        if (o.nothing)
            return done(true, QStringLiteral("Nothing to fetch: no commit and no change since the sandbox started."));
        done(true, QStringLiteral("Branch %1 in %2 now holds the work (%3 commit(s)%4). Look at it with: %5")
                       .arg(o.branch, o.repository)
                       .arg(o.commits.size())
                       .arg(o.uncommitted ? QStringLiteral(", the last one with the uncommitted changes") : QString(), o.command));
    });
}

void ServiceWorkspacesModel::revoke(const QString &workspaceId, ResultCallback done)
{
    QPointer<ServiceWorkspacesModel> self(this);
    m_removal.remove(workspaceId, [self, done](const WorkspaceRemoval::Outcome &o) {
        if (!o.ok)
            return done(false, self ? self->m_sandboxes.publicText(o.error) : o.error);
        done(true, self ? self->m_sandboxes.publicText(o.summary) : o.summary);
    });
}

} // namespace chat2sbx::ui
