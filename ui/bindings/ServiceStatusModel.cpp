#include "bindings/ServiceStatusModel.h"

#include "runtime/SetupChecklist.h"
#include "runtime/TrayServices.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxPresenter.h"
#include "sandbox/sbx/SbxHealth.h"
#include "tunnel/TunnelCredentialImport.h"
#include "tunnel/TunnelSupervisor.h"
#include "workspace/WorkspaceService.h"

namespace chat2sbx::ui {

ServiceStatusModel::ServiceStatusModel(TrayServices &services, QObject *parent) : StatusModel(parent), m_services(services)
{
    connect(&services, &TrayServices::serverStateChanged, this, &StatusModel::changed);
    connect(&services, &TrayServices::failed, this, [this](const QString &reason) {
        m_failure = reason;
        emit changed();
    });
    connect(&services, &TrayServices::started, this, [this] {
        m_failure.clear();
        emit changed();
    });
    connect(&services.tunnel(), &TunnelSupervisor::statusChanged, this, &StatusModel::changed);
    connect(&services.tunnel(), &TunnelSupervisor::stateChanged, this, &StatusModel::changed);
    connect(&services.sandboxes(), &SandboxService::sandboxesChanged, this, &StatusModel::changed);
    connect(&services.sbxHealth(), &SbxHealth::changed, this, &StatusModel::changed);
    connect(&services.workspaces(), &WorkspaceService::workspacesChanged, this, &StatusModel::changed);   // added folders
}

StatusInfo ServiceStatusModel::status() const
{
    StatusInfo s;
    switch (m_services.serverState()) {
    case ServerState::Stopped: s.server = StatusInfo::Server::Stopped; break;
    case ServerState::Starting: s.server = StatusInfo::Server::Starting; break;
    case ServerState::Running: s.server = StatusInfo::Server::Running; break;
    case ServerState::Stopping: s.server = StatusInfo::Server::Stopping; break;
    case ServerState::Failed: s.server = StatusInfo::Server::Failed; break;
    }
    s.serverError = m_failure;
    const StatusReport report = m_services.statusReport();
    s.endpointUrl = report.mcpUrl;
    if (!report.tunnelEnabled) {
        s.tunnel = StatusInfo::Tunnel::Disabled;
    } else {
        TunnelSupervisor &t = m_services.tunnel();
        switch (t.state()) {
        case TunnelSupervisor::State::Stopped: s.tunnel = StatusInfo::Tunnel::Stopped; break;
        case TunnelSupervisor::State::Starting: s.tunnel = StatusInfo::Tunnel::Starting; break;
        case TunnelSupervisor::State::Connected: s.tunnel = StatusInfo::Tunnel::Connected; break;
        case TunnelSupervisor::State::Unauthorized: s.tunnel = StatusInfo::Tunnel::Unauthorized; break;
        case TunnelSupervisor::State::Failed:
            s.tunnel = t.notSetUp() ? StatusInfo::Tunnel::NotSetUp : StatusInfo::Tunnel::Failed;
            break;
        }
        s.tunnelError = t.state() == TunnelSupervisor::State::Connected ? QString()
                        : !t.detail().isEmpty() && t.state() != TunnelSupervisor::State::Starting ? t.detail()
                                                                                                  : t.lastError();
    }
    s.activeSandboxes = int(qMax<qint64>(report.activeSandboxes, 0));
    s.warmSandboxes = int(qMax<qint64>(report.warmSandboxes, 0));
    s.cloudActiveSandboxes = int(qMax<qint64>(report.cloudActiveSandboxes, 0));
    s.cloudWarmSandboxes = int(qMax<qint64>(report.cloudWarmSandboxes, 0));
    s.sandboxLimit = sandboxLimitText(report.maxActiveSandboxes);
    s.version = report.version;
    s.sbx = report.sbx.summary();
    s.sbxProblem = report.sbx.checked() ? report.sbx.currentProblem() : QString();
    const QStringList notices = report.notices();
    s.chatGptNotice = notices.isEmpty() ? QString() : QStringLiteral("ChatGPT: ") + notices.first();
    const QList<ChecklistItem> items = setupChecklist(report);
    static const char *const kSteps[] = {"sbx", "login", "template", "chatgpt", "folders", "cloud"};
    for (const ChecklistItem &item : items)
        s.checklist.append({QLatin1String(kSteps[static_cast<int>(item.step)]), ChecklistItem::stateName(item.state), item.title,
                            item.detail, item.command});
    s.setupNeeded = setupNeeded(items);
    return s;
}

bool ServiceStatusModel::prepare(std::function<void(const QString &line)> line, ResultCallback done)
{
    return m_services.prepareTemplate(std::move(line), std::move(done));
}

void ServiceStatusModel::cancelPrepare()
{
    m_services.cancelPrepare();
}

void ServiceStatusModel::importTunnelFiles(const QString &fileA, const QString &fileB, TunnelFilesDone done)
{
    m_services.importTunnelFiles(fileA, fileB, [done = std::move(done)](const TunnelImportOutcome &out) {
        if (!out.ok)
            return done(false, QStringLiteral("Nothing was stored: %1").arg(out.error), QString());
        QString message = QStringLiteral("Stored tunnel %1 in %2.").arg(out.tunnelId, out.storedIn);
        if (!out.note.isEmpty())
            message += QStringLiteral(" (%1)").arg(out.note);
        done(true, message, out.tunnelId);
    });
}

bool ServiceStatusModel::addHostFolder(const QString &dir, QString &message)
{
    return m_services.addHostFolder(dir, message);
}

void ServiceStatusModel::useSbxProgram(const QString &path, ResultCallback done)
{
    m_services.useSbxProgram(path, std::move(done));
}

void ServiceStatusModel::checkAgain()
{
    m_services.checkAgain();
}

} // namespace chat2sbx::ui
