#include "bindings/ServiceSandboxesModel.h"

#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxNames.h"
#include "sandbox/present/SandboxPresenter.h"
#include "state/AuditEntry.h"

#include <QPointer>

namespace chat2sbx::ui {

ServiceSandboxesModel::ServiceSandboxesModel(SandboxService &service, QObject *parent)
    : SandboxesModel(parent), m_service(service)
{
    connect(&service, &SandboxService::sandboxesChanged, this, &SandboxesModel::changed);
}

QList<SandboxRow> ServiceSandboxesModel::sandboxes() const
{
    QList<SandboxRow> rows;
    for (const SandboxView &v : m_service.list()) {
        const SandboxRecord &r = v.record;
        if (r.state == SandboxState::Destroyed)
            continue;
        SandboxRow row;
        row.id = r.id;
        row.name = sandboxShortName(v);
        if (!v.workspace)
            row.workspace = r.workspaceId;
        else if (v.workspace->displayName.contains(v.workspace->id))
            row.workspace = v.workspace->displayName;
        else
            row.workspace = QStringLiteral("%1 (%2)").arg(v.workspace->displayName, v.workspace->id);
        if (v.workspace) {
            row.workspaceMode = workspaceModeName(v.workspace->mode);
            row.hostPath = v.workspace->hostPath;
        }
        row.state = sandboxStateName(r.state);
        row.sleptAtMs = r.sleptAt;
        row.wokeAtMs = r.wokeAt;
        row.memory = r.memory;
        row.idleDeadlineMs = r.state == SandboxState::Running ? r.idleDeadline : 0;
        for (const SandboxPortRecord &p : v.ports) {
            const PortView port = presentPort(p.sandboxPort, p.hostIp, p.hostPort);
            row.ports << QStringLiteral("%1 → %2:%3").arg(port.sandboxPort).arg(port.hostIp).arg(port.hostPort);
            row.portLinks.append(PortLink{port.sandboxPort, port.hostIp, port.hostPort, port.url, port.lanWide});
        }
        row.runningCommands = m_running && r.state == SandboxState::Running ? m_running(r.id) : 0;
        row.reason = m_service.publicText(r.reason);
        if (m_conversations) {
            const auto [first, last] = m_conversations(r.id);
            row.createdByConversation = AuditEntry::shortConversationId(first);
            row.lastConversation = AuditEntry::shortConversationId(last);
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

} // namespace chat2sbx::ui
