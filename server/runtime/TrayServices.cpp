#include "runtime/TrayServices.h"

#include "config/Config.h"
#include "runtime/Controller.h"
#include "runtime/StatusReportBuilder.h"
#include "sandbox/sbx/SbxHealth.h"
#include "sandbox/setup/TemplateBuilder.h"
#include "sandbox/changes/FileExport.h"

#include "config/ConfigFile.h"
#include "sandbox/sbx/SbxDriver.h"
#include "sandbox/sbx/SbxVersion.h"
#include "tunnel/TunnelCredentialImport.h"
#include "workspace/WorkspaceService.h"

#include <QFileInfo>
#include <QPointer>
#include <QTimer>

namespace chat2sbx {

TrayServices::TrayServices(Controller &controller, QObject *parent)
    : QObject(parent), m_controller(controller), m_approvals(controller.approvals()),
      m_exportApprovals(controller.exportApprovals()), m_publicPorts(controller.publicPorts()), m_sandboxes(controller.sandboxes()),
      m_workspaces(controller.workspaces()), m_changes(controller.changes()), m_workspaceRemoval(controller.workspaceRemoval()),
      m_network(controller.network()), m_activity(controller.activity()), m_tunnel(controller.tunnel()),
      m_sbxHealth(controller.sbxHealth()),
      m_checkpoints(controller.checkpoints())
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
    m_prepareConfig = std::make_unique<Config>(m_controller.config());
    m_prepareConfig->sbxPath = m_controller.sbx().sbxPath();
    m_prepare = std::make_unique<TemplateBuilder>(*m_prepareConfig);
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

void TrayServices::useSbxProgram(const QString &path, std::function<void(bool ok, const QString &message)> done)
{
    const QFileInfo info(path);
    if (!info.isAbsolute() || !info.isFile() || !info.isExecutable()) {
        QTimer::singleShot(0, this, [done, path] { done(false, QStringLiteral("%1 is not a program you can run").arg(path)); });
        return;
    }
    auto *probe = new SbxDriver(path, m_controller.config().sbxEnv, this);
    probe->version([self = QPointer<TrayServices>(this), probe, path, done](const SbxResult &r) {
        probe->deleteLater();
        const QString version = findSbxVersion(QString::fromUtf8(r.out + '\n' + r.err));
        if (!r.ok || version.isEmpty())
            return done(false, QStringLiteral("%1 did not answer `version` like Docker Sandboxes' sbx (%2): nothing was changed")
                                   .arg(path, r.ok ? QStringLiteral("no version in its output") : r.error.left(300)));
        if (!sbxVersionSupported(version))
            return done(false, QStringLiteral("%1 is sbx %2; chat2sbx needs %3 or newer: update Docker Sandboxes")
                                   .arg(path, version, minimumSbxVersionText()));
        if (!self)
            return;
        QString error;
        if (!ConfigFile::setString(self->m_controller.config().configFilePath, QStringLiteral("sbx"), path, error))
            return done(false, error);
        self->m_controller.sbx().setSbxPath(path);
        self->m_sbxHealth.refresh();
        QString message = QStringLiteral("Using sbx %1 at %2 (saved as sbx in %3).").arg(version, path, self->m_controller.config().configFilePath);
        if (qEnvironmentVariableIsSet("CHAT2SBX_SBX"))
            message += QStringLiteral(" CHAT2SBX_SBX is set in the environment and wins over config.json at the next start: change it "
                                      "there too.");
        done(true, message);
    });
}

void TrayServices::checkAgain()
{
    m_sbxHealth.refresh();
}

SandboxMover &TrayServices::mover() const
{
    return m_controller.mover();
}

bool TrayServices::cloudSandboxes() const
{
    return m_controller.config().cloudSandboxes;
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
