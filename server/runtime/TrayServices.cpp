#include "runtime/TrayServices.h"

#include "config/Config.h"
#include "runtime/Controller.h"
#include "runtime/StatusReportBuilder.h"
#include "sandbox/sbx/SbxHealth.h"
#include "sandbox/setup/TemplateBuilder.h"
#include "sandbox/changes/FileExport.h"

#include "tunnel/TunnelCredentialImport.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>
#include <QTimer>

namespace chat2sbx {

TrayServices::TrayServices(Controller &controller, QObject *parent)
    : QObject(parent), m_controller(controller), m_approvals(controller.approvals()),
      m_exportApprovals(controller.exportApprovals()), m_sandboxes(controller.sandboxes()),
      m_workspaces(controller.workspaces()), m_changes(controller.changes()), m_workspaceRemoval(controller.workspaceRemoval()),
      m_network(controller.network()), m_activity(controller.activity()), m_tunnel(controller.tunnel()),
      m_sbxHealth(controller.sbxHealth())
{
    connect(&controller, &Controller::stateChanged, this, &TrayServices::serverStateChanged);
    connect(&controller, &Controller::started, this, &TrayServices::started);
    connect(&controller, &Controller::failed, this, &TrayServices::failed);
    connect(&controller.fileExport(), &FileExport::exported, this, &TrayServices::fileExported);
}

TrayServices::~TrayServices() = default;

bool TrayServices::prepareTemplate(std::function<void(const QString &line)> output,
                                   std::function<void(bool ok, const QString &message)> done)
{
    if (m_prepare)
        return false;
    m_prepare = std::make_unique<TemplateBuilder>(m_controller.config());
    m_prepare->run(std::move(output), [this, done = std::move(done)](bool ok, const QString &message) {
        // The builder is let go from the loop, not from inside its own last callback.
        QTimer::singleShot(0, this, [this] { m_prepare.reset(); });
        m_sbxHealth.refresh();
        done(ok, message);
    });
    return true;
}

void TrayServices::cancelPrepare()
{
    if (m_prepare)
        m_prepare->cancel();
}

void TrayServices::importTunnelFiles(const QString &fileA, const QString &fileB,
                                     std::function<void(const TunnelImportOutcome &)> done)
{
    importTunnelCredentials(m_controller.config(), fileA, fileB,
                            [self = QPointer<TrayServices>(this), done = std::move(done)](const TunnelImportOutcome &out) {
                                if (out.ok && self)
                                    self->m_controller.reconnectTunnel();
                                done(out);
                            });
}

bool TrayServices::addHostFolder(const QString &dir, QString &message)
{
    QString canonical;
    if (!m_workspaces.addAllowedHostRoot(dir, canonical, message))
        return false;
    message = QStringLiteral("Agents may now ask for folders below %1 (each one approved by you); saved in %2.")
                  .arg(canonical, m_controller.config().configFilePath);
    if (qEnvironmentVariableIsSet("CHAT2SBX_ALLOWED_HOST_ROOTS"))
        message += QStringLiteral(" CHAT2SBX_ALLOWED_HOST_ROOTS is set in the environment and wins over config.json at the "
                                  "next start: add the folder there too.");
    return true;   // WorkspaceService::workspacesChanged tells the models
}

void TrayServices::checkAgain()
{
    m_sbxHealth.refresh();
}

QString TrayServices::exportDir() const
{
    return m_controller.config().exportDir;
}

ServerState TrayServices::serverState() const
{
    return m_controller.state();
}

StatusReport TrayServices::statusReport() const
{
    return statusFromServer(m_controller);
}

} // namespace chat2sbx
