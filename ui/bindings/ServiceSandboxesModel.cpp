#include "bindings/ServiceSandboxesModel.h"

#include "core/LogText.h"

#include "sandbox/changes/CheckpointService.h"
#include "sandbox/changes/SandboxMover.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/ports/PublicPorts.h"
#include "sandbox/present/SandboxNames.h"
#include "sandbox/present/SandboxPresenter.h"
#include "state/AuditEntry.h"

#include <QDateTime>
#include <QPointer>

namespace chat2sbx::ui {

ServiceSandboxesModel::ServiceSandboxesModel(SandboxService &service, QObject *parent)
    : SandboxesModel(parent), m_service(service)
{
    connect(&service, &SandboxService::sandboxesChanged, this, &SandboxesModel::changed);
    connect(&service, &SandboxService::cloudExpiryNear, this, [this](const QString &id, qint64 expiresAtMs, bool atCeiling) {
        const std::optional<SandboxView> v = m_service.get(id);
        emit cloudExpiryNear(id, v ? sandboxShortName(*v) : id, expiresAtMs, atCeiling);
    });
}

void ServiceSandboxesModel::setCheckpoints(CheckpointService *checkpoints)
{
    if (m_checkpoints)
        disconnect(m_checkpoints, nullptr, this, nullptr);
    m_checkpoints = checkpoints;
    if (m_checkpoints)
        connect(m_checkpoints, &CheckpointService::checkpointsChanged, this, &SandboxesModel::changed);
}

QList<SandboxRow> ServiceSandboxesModel::sandboxes() const
{
    QList<SandboxRow> rows;
    const QList<SandboxView> views = m_service.list();
    const QHash<QString, QList<Checkpoint>> checkpoints = m_checkpoints ? m_checkpoints->listLive() : QHash<QString, QList<Checkpoint>>();
    const auto restoring = m_checkpoints ? m_checkpoints->pendingRestores()
                                         : QHash<QString, CheckpointRepository::PendingRestore>();
    QHash<QString, QString> names;   // every sandbox's short name: its row's, and a fork's parent's
    for (const SandboxView &v : views)
        names.insert(v.record.id, sandboxShortName(v));
    for (const SandboxView &v : views) {
        const SandboxRecord &r = v.record;
        if (r.state == SandboxState::Destroyed)
            continue;
        SandboxRow row;
        row.id = r.id;
        row.name = names.value(r.id);
        if (!v.workspace)
            row.workspace = r.workspaceId;
        else if (v.workspace->isManaged())   // named as the Workspaces cards name it, never by its ws_ id
            row.workspace = r.isCloud()        ? QStringLiteral("scratch in the cloud")
                            : r.workspaceInVm ? QStringLiteral("scratch inside the sandbox (~/workspace)")
                                              : QStringLiteral("scratch folder");
        else if (v.workspace->displayName.contains(v.workspace->id))
            row.workspace = v.workspace->displayName;
        else
            row.workspace = QStringLiteral("%1 (%2)").arg(v.workspace->displayName, v.workspace->id);
        if (v.workspace) {
            row.workspaceMode = workspaceModeName(v.workspace->mode);
            row.hostPath = v.workspace->hostPath;
            // Moved back from the cloud: its files are in the VM, the old folder here is not them.
            if (r.workspaceInVm && v.workspace->isManaged())
                row.hostPath.clear();
        }
        row.state = sandboxStateName(r.state);
        row.sleptAtMs = r.sleptAt;
        row.wokeAtMs = r.wokeAt;
        row.memory = r.memory;
        if (r.isCloud()) {
            row.cloudSize = r.cloudSize;
            row.expiresAtMs = r.state == SandboxState::Running ? r.expiresAt : 0;
        }
        row.idleDeadlineMs = r.state == SandboxState::Running ? r.idleDeadline : 0;
        for (const SandboxPortRecord &p : v.ports) {
            const PortView port = presentPort(p.sandboxPort, p.hostIp, p.hostPort);
            row.ports << QStringLiteral("%1 → %2:%3").arg(port.sandboxPort).arg(port.hostIp).arg(port.hostPort);
            row.portLinks.append(PortLink{port.sandboxPort, port.hostIp, port.hostPort, port.url, port.lanWide});
        }
        if (r.isCloud() && m_publicPorts)
            for (const PublicPortRequest &p : m_publicPorts->published(r.id)) {
                row.ports << QStringLiteral("%1 → %2 (public)").arg(p.port).arg(p.url);
                row.portLinks.append(PortLink{p.port, {}, 0, p.url, false, true});
            }
        row.runningCommands = m_running && r.state == SandboxState::Running ? m_running(r.id) : 0;
        row.reason = m_service.publicText(r.reason);
        // sbx stopped listing it: kept as it is, it comes back once sbx lists it again.
        if (r.isUnreachable()) {
            row.state = QStringLiteral("unreachable");
            row.reason = m_service.publicText(r.unreachableWhy);
        }
        if (m_conversations) {
            const auto [first, last] = m_conversations(r.id);
            row.createdByConversation = AuditEntry::shortConversationId(first);
            row.lastConversation = AuditEntry::shortConversationId(last);
        }
        for (const Checkpoint &c : checkpoints.value(r.id))
            row.checkpoints.append({c.id, logSafe(c.label, 200), checkpointStateName(c.state), c.createdAt, c.sizeBytes, c.pinned,
                                    c.inCloud, c.keepsMemory});
        if (!v.forkedFromSandbox.isEmpty())
            row.forkedFrom = names.value(v.forkedFromSandbox, v.forkedFromSandbox);
        if (const auto it = restoring.constFind(r.id); it != restoring.cend())
            row.restoringTo = it->checkpointId;
        if (m_mover) {
            row.movingTo = m_mover->movingTo(r.id);
            row.canMoveToCloud = m_cloudOn && v.workspace && v.workspace->mode != WorkspaceMode::Direct;
        }
        rows.append(row);
    }
    return rows;
}

void ServiceSandboxesModel::destroy(const QString &id, ResultCallback done)
{
    QPointer<ServiceSandboxesModel> self(this);
    m_service.destroy(id, [self, done = std::move(done)](const SandboxService::Outcome &outcome) {
        done(outcome.ok, self ? self->m_service.publicText(outcome.error) : outcome.error);
    });
}

void ServiceSandboxesModel::pause(const QString &id, bool endRunningCommands, PauseCallback done)
{
    PauseRequest request;
    request.sandboxId = id;
    request.running = endRunningCommands ? RunningCommands::MayEnd : RunningCommands::Refuse;
    QPointer<ServiceSandboxesModel> self(this);
    m_service.pause(request, [self, done = std::move(done)](const PauseOutcome &o) {
        done(o.ok, self ? self->m_service.publicText(o.error) : o.error, o.runningCommands);
    });
}

void ServiceSandboxesModel::setPublicPorts(PublicPorts *ports)
{
    m_publicPorts = ports;
    if (ports)
        connect(ports, &PublicPorts::requestsChanged, this, &SandboxesModel::changed);
}

void ServiceSandboxesModel::unpublish(const QString &id, int port, ResultCallback done)
{
    const std::optional<SandboxView> v = m_service.get(id);
    if (!m_publicPorts || !v)
        return done(false, QStringLiteral("no such cloud sandbox %1").arg(id));
    m_publicPorts->unpublish(id, v->record.runtimeName, port, [port, done = std::move(done)](const QString &error) {
        done(error.isEmpty(), error.isEmpty() ? QStringLiteral("port %1 is off the internet").arg(port) : error);
    });
}

void ServiceSandboxesModel::setMover(SandboxMover *mover, bool cloudOn)
{
    if (m_mover)
        disconnect(m_mover, nullptr, this, nullptr);
    m_mover = mover;
    m_cloudOn = cloudOn;
    if (m_mover)
        connect(m_mover, &SandboxMover::moved, this, &SandboxesModel::changed);
}

void ServiceSandboxesModel::move(const QString &id, bool toCloud, bool endRunningCommands, ResultCallback done)
{
    if (!m_mover)
        return done(false, QStringLiteral("moves are not available here"));
    MoveRequest request;
    request.sandboxId = id;
    request.toCloud = toCloud;
    request.endRunningCommands = endRunningCommands;
    QPointer<ServiceSandboxesModel> self(this);
    m_mover->move(request, [self, toCloud, done = std::move(done)](const MoveOutcome &o) {
        if (!o.ok)
            return done(false, self ? self->m_service.publicText(o.error) : o.error);
        QString text = toCloud ? QStringLiteral("it now runs in Docker's cloud (billed while it runs)")
                               : QStringLiteral("it now runs on this computer");
        if (!o.warnings.isEmpty())
            text += QStringLiteral("; sbx warned: ") + o.warnings.join(QStringLiteral("; "));
        done(true, text);
    });
    emit changed();   // its row says it is moving
}

void ServiceSandboxesModel::extend(const QString &id, ResultCallback done)
{
    QPointer<ServiceSandboxesModel> self(this);
    m_service.extendCloud(id, [self, id, done = std::move(done)](const QString &error) {
        if (!self)
            return done(false, error);
        if (!error.isEmpty())
            return done(false, self->m_service.publicText(error));
        const std::optional<SandboxView> v = self->m_service.get(id);
        done(true, v ? QStringLiteral("%1 now runs until %2").arg(sandboxShortName(*v), QDateTime::fromMSecsSinceEpoch(v->record.expiresAt)
                                                                                        .toString(QStringLiteral("HH:mm")))
                     : QStringLiteral("extended"));
    });
}

void ServiceSandboxesModel::restore(const QString &sandboxId, const QString &checkpointId, ResultCallback done)
{
    if (!m_checkpoints)
        return done(false, QStringLiteral("checkpoints are not available here"));
    // The tray is the user's own act: commands still running may end (the confirmation said so).
    RestoreRequest request;
    request.sandboxId = sandboxId;
    request.checkpointId = checkpointId;
    request.running = RunningCommands::MayEnd;
    m_checkpoints->restore(request, {}, [done](const RestoreOutcome &o) {
        done(o.ok, o.ok ? QStringLiteral("back at %1; undo: restore %2").arg(o.restored.id, o.undo.id) : o.error);
    });
}

void ServiceSandboxesModel::fork(const QString &checkpointId, ResultCallback done)
{
    if (!m_checkpoints)
        return done(false, QStringLiteral("checkpoints are not available here"));
    ForkRequest request;
    request.checkpointId = checkpointId;
    m_checkpoints->fork(request, {}, [done](const ForkOutcome &o) {
        done(o.ok, o.ok ? QStringLiteral("forked as %1").arg(sandboxShortName(o.view)) : o.error);
    });
}

void ServiceSandboxesModel::deleteCheckpoint(const QString &checkpointId, ResultCallback done)
{
    if (!m_checkpoints)
        return done(false, QStringLiteral("checkpoints are not available here"));
    m_checkpoints->remove(checkpointId, std::move(done));
}

} // namespace chat2sbx::ui
