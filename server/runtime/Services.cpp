#include "runtime/Services.h"

#include "config/Config.h"
#include "sandbox/bash/BashSessions.h"
#include "sandbox/changes/ChangesService.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/lifecycle/ActivityMonitor.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxSleep.h"
#include "sandbox/lifecycle/WarmPool.h"
#include "sandbox/lifecycle/WorkspaceRemoval.h"
#include "sandbox/changes/SandboxMover.h"
#include "sandbox/network/NetworkAccess.h"
#include "sandbox/sbx/SbxDriver.h"
#include "sandbox/sbx/SbxHealth.h"
#include "state/Database.h"
#include "tools/ChangesTools.h"
#include "tools/CheckpointTools.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/changes/CloneCheckpointWork.h"
#include "sandbox/changes/CloudCloneSeed.h"
#include "sandbox/lifecycle/CloudWarmPool.h"
#include "sandbox/changes/ExportApprovals.h"
#include "sandbox/ports/PublicPorts.h"
#include "sandbox/changes/FileExport.h"
#include "sandbox/changes/HostExportFile.h"
#include "tools/ExportFileTool.h"
#include "tools/ImportFileTool.h"
#include "tools/InSandboxTools.h"
#include "tools/NetworkTools.h"
#include "tools/SandboxTools.h"
#include "tools/WorkspaceTools.h"
#include "tunnel/TunnelSupervisor.h"
#include "workspace/ApprovalService.h"
#include "workspace/HostGit.h"
#include "workspace/WorkspaceRetention.h"
#include "workspace/WorkspaceService.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>

namespace chat2sbx {

namespace {

// A CLI command's helpers run beside the server's under an owner of their own, so that neither
// replaces the other.
SandboxChannel::Options cliChannelOptions()
{
    SandboxChannel::Options o;
    o.owner = QStringLiteral("cli-%1").arg(QCoreApplication::applicationPid());
    return o;
}

} // namespace

Services::Services(const Config &config, Clock &clock, Profile profile)
    : profile(profile), config(config), db(std::make_unique<Database>())
{
    const bool server = profile == Profile::Server;
    if (server)
        tunnel = std::make_unique<TunnelSupervisor>(config);
    // sbx driver, workspaces, sandbox lifecycle and its tools.
    sbx = std::make_unique<SbxDriver>(config.sbxPath, config.sbxEnv);
    SbxDriver::Timeouts timeouts;
    timeouts.otherMs = config.sbxTimeoutSeconds * 1000;
    sbx->setTimeouts(timeouts);
    workspaces = std::make_unique<WorkspaceService>(config, *db, clock);
    sandboxes = std::make_unique<SandboxService>(config, *db, *workspaces, *sbx, clock);
    sandboxes->reconciler().setRetryIntervalMs(config.sbxRecheckSeconds * 1000);
    // sandbox_expose probes ports through it; `sandbox fetch` exports through it.
    channels = std::make_unique<ChannelPool>(*sbx, server ? SandboxChannel::Options{} : cliChannelOptions());
    hostGit = std::make_unique<HostGit>();
    // A clone sandbox's git state for its checkpoints (the server's and the CLI's).
    cloneWork = std::make_unique<CloneCheckpointWork>(*channels, *hostGit);
    // A clone workspace in a cloud sandbox: the repository's commit carried in (no host mount there).
    cloudClones = std::make_unique<CloudCloneSeed>(*channels, *hostGit);
    sandboxes->setCloneSeeder(cloudClones.get());
    FileExportOptions exports;
    exports.dir = config.exportDir;
    exports.maxFileBytes = static_cast<qint64>(config.exportMaxFileMiB) << 20;
    exports.maxSandboxBytes = static_cast<qint64>(config.exportMaxSandboxMiB) << 20;
    exports.needsApproval = config.exportNeedsApproval;
    exports.askOverBudget = config.exportOverBudget == QLatin1String("ask");
    exportApprovals = std::make_unique<ExportApprovals>(*db, clock);
    publicPorts = std::make_unique<PublicPorts>(*db, clock, *sbx);
    // The CLI's `sandbox export` is the user's own act: it does not wait for an approval.
    fileExport = std::make_unique<FileExport>(*channels, exports, server ? exportApprovals.get() : nullptr);
    if (server)
        // A sandbox that is gone closes its requests: nothing waits for them any more.
        QObject::connect(sandboxes.get(), &SandboxService::sandboxesChanged, exportApprovals.get(), [this] {
            const auto isGone = [this](const QString &id) {
                const std::optional<SandboxView> view = sandboxes->get(id);
                return !view || !isActiveSandboxState(view->record.state);
            };
            exportApprovals->forgetSandboxes(isGone);
            publicPorts->forgetSandboxes(isGone);
        });
    if (server) {
        sbxHealth = std::make_unique<SbxHealth>(*sbx, config.templateRef());
        sbxHealth->setCloudCheck(config.cloudSandboxes);
        QObject::connect(sandboxes.get(), &SandboxService::templateMissing, sbxHealth.get(), &SbxHealth::refresh);
        QObject::connect(sandboxes.get(), &SandboxService::createFinished, sbxHealth.get(), &SbxHealth::noteCreateResult);
        tools.setToolCardsEnabled(config.toolCards);
    }
    if (profile != Profile::Cli)
        network = std::make_unique<NetworkAccess>(*db, *sandboxes, *sbx, clock);
    // The CLI's too: with no server running, its checkpoint verbs act with it.
    checkpoints = std::make_unique<CheckpointService>(config, *db, *sandboxes, *sbx, clock, cloneWork.get());
    if (server) {
        if (config.checkpointBeforeExpiry)
            sandboxes->setBeforeExpiry([this](const QString &id, std::function<void(const QString &)> proceed) {
                checkpoints->checkpointBeforeExpiry(id, std::move(proceed));
            });
    }
    if (server) {
        registerSandboxTools(tools, *sandboxes, config, channels.get(), network.get(), checkpoints.get(), publicPorts.get());
        registerNetworkTools(tools, *network);
    }
    // Workspaces and approvals.
    approvals = std::make_unique<ApprovalService>(*workspaces, *db, clock);
    retention = std::make_unique<WorkspaceRetention>(*workspaces, clock);
    if (server) {
        registerWorkspaceTools(tools, *workspaces, *approvals);

        // One control channel per running sandbox (the attacher SandboxService calls after create and
        // on re-attach), bash sessions and the in-sandbox tools.
        bashSessions = std::make_unique<BashSessions>(*db, *channels, clock);
        sandboxes->setAttacher(channels.get());
        warm = std::make_unique<WarmPool>(config, *db, *sbx, clock);
        warm->setAttacher(channels.get());
        sandboxes->setWarmPool(warm.get());
        if (config.cloudSandboxes && config.cloudWarmSandboxes > 0) {
            cloudWarm = std::make_unique<CloudWarmPool>(config, *db, *sbx, clock);
            sandboxes->setCloudWarmPool(cloudWarm.get());
        }
        registerInSandboxTools(tools, *sandboxes, *channels, *bashSessions);
        ImportFileOptions import;
        import.allowedHosts = config.importFileHosts;
        import.maxBytes = static_cast<qint64>(config.importFileMaxMiB) * 1024 * 1024;
        import.extraCaFile = config.testImportCaFile;
        registerImportFileTool(tools, *sandboxes, *channels, import);
        registerExportFileTool(tools, *sandboxes, *channels, *fileExport);
        // A server killed mid-copy left a hidden staged file in the export folder: gone after an hour.
        HostExportFile::removeStale(config.exportDir, 60, clock.nowMs());
        activity = std::make_unique<ActivityMonitor>(*db, *sandboxes, *bashSessions, *channels);
        // Idle sandboxes sleep (VM stopped, files kept) and wake on their next tool call.
        sleep = std::make_unique<SandboxSleep>(*sandboxes, *channels, *bashSessions, *sbx, clock);
    }

    if (server)
        registerCheckpointTools(tools, *checkpoints, *sandboxes, config);
    // Moves between this computer and the cloud: the server's, and the CLI's with no server running.
    mover = std::make_unique<SandboxMover>(config, *db, *sandboxes, *sbx, *channels, clock, bashSessions.get());
    mover->setCloneWork(cloneWork.get(), cloudClones.get());
    if (server)
        registerSandboxMoveTool(tools, *mover, *sandboxes, config);

    // Review and export of the agent's work; also what destroy and idle expiry ask first.
    changes = std::make_unique<ChangesService>(*sandboxes, *channels, *hostGit);
    sandboxes->setDestroyGuard(changes.get());
    if (server)
        QObject::connect(sandboxes.get(), &SandboxService::cloudExpiryNear, changes.get(),
                         [this](const QString &id, qint64, bool) { changes->keepBeforeCloudExpiry(id); });
    if (server)
        registerChangesTools(tools, *sandboxes, *changes);
    removal = std::make_unique<WorkspaceRemoval>(*workspaces, *sandboxes, *retention);
}

// A CLI command's channels leave their sandboxes before the services go.
Services::~Services()
{
    if (profile == Profile::Server)
        return;
    for (const SandboxView &v : sandboxes->list())
        channels->detach(v.record.id);
}

bool Services::openDatabase(QString &error)
{
    if (!QDir().mkpath(config.dataRoot)) {
        error = QStringLiteral("cannot create data root %1").arg(config.dataRoot);
        return false;
    }
    QFile::setPermissions(config.dataRoot, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return db->open(config.databasePath, error);
}

} // namespace chat2sbx
