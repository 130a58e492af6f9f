#include "runtime/StatusReportBuilder.h"

#include "sandbox/lifecycle/SandboxReconciler.h"

#include "workspace/WorkspaceService.h"

#include "runtime/ChatGptSilence.h"
#include "runtime/ChatGptToolList.h"

#include "config/Config.h"
#include "runtime/Controller.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/WarmPool.h"
#include "sandbox/sbx/SbxDriver.h"
#include "sandbox/lifecycle/CloudWarmPool.h"
#include "sandbox/sbx/SbxHealth.h"
#include "tunnel/TunnelSupervisor.h"
#include "workspace/ApprovalService.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace chat2sbx {

namespace {
// The folders agents may ask for, and those of them that do not exist.
void setHostRoots(StatusReport &r, const QStringList &roots)
{
    r.allowedHostRoots = roots;
    r.missingHostRoots.clear();
    for (const QString &root : roots)
        if (!QFileInfo(root).isDir())
            r.missingHostRoots << root;
}
} // namespace

StatusReport statusFromConfig(const Config &c)
{
    StatusReport r;
    r.mcpUrl = c.mcpUrl();
    r.tunnelEnabled = c.enableTunnel;
    r.tunnelState = c.enableTunnel ? QStringLiteral("unknown") : QStringLiteral("disabled");
    r.maxActiveSandboxes = c.maxActiveSandboxes;
    r.warmTarget = c.warmSandboxes;
    r.dataRoot = c.dataRoot;
    r.host = c.host;
    r.port = c.port;
    r.loopbackBind = c.isLoopbackBind();
    r.databasePath = c.databasePath;
    r.tunnelClient = c.tunnelClient;
    r.secretDir = c.secretDir;
    r.sbxPath = c.sbxPath;
    setHostRoots(r, c.allowedHostRoots);
    r.exposeAllowLan = c.exposeAllowLan;
    r.sbx.sbxPath = c.sbxPath;
    r.sbx.templateRef = c.templateRef();
    r.cloudEnabled = c.cloudSandboxes;
    r.cloudState = c.cloudSandboxes ? QStringLiteral("checking") : QStringLiteral("off");
    r.defaultPlacement = c.defaultPlacement;
    return r;
}

StatusReport statusFromServer(Controller &controller)
{
    StatusReport r = statusFromConfig(controller.config());
    // With the folders added while running (the tray's "Add a folder").
    setHostRoots(r, controller.workspaces().allowedHostRoots());
    const bool running = controller.state() == Controller::State::Running;
    r.serverRunning = running;
    r.healthy = running;
    r.pid = QCoreApplication::applicationPid();
    r.version = QStringLiteral(CHAT2SBX_VERSION);
    r.uptimeMs = controller.uptimeMs();
    r.mcpReachable = running;
    if (r.tunnelEnabled) {
        r.tunnel = controller.tunnel().toJson();
        r.tunnelState = r.tunnel.value(QStringLiteral("state")).toString();
    }
    r.sbx = controller.sbxHealth().status();
    r.sbxPath = controller.sbx().sbxPath();   // the one chosen in the tray, when the user chose one
    if (r.cloudEnabled && !r.sbx.cloudState.isEmpty()) {
        r.cloudState = r.sbx.cloudState;
        r.cloudDetail = r.sbx.cloudDetail;
    }
    if (running) {
        r.activeSandboxes = controller.sandboxes().countActive();
        const ListingDiagnosis &listing = controller.sandboxes().reconciler().listing();
        r.unreachableSandboxes = listing.missing;
        r.unreachableWhy = listing.why;
        r.warmSandboxes = controller.warmPool().readyCount();
        r.cloudActiveSandboxes = controller.sandboxes().countActiveInCloud();
        r.cloudWarmSandboxes = controller.cloudWarmPool() ? controller.cloudWarmPool()->readyCount() : 0;
        r.pendingApprovals = controller.approvals().pending().size();
    }
    if (const ChatGptSilence *silence = controller.chatGptSilence())
        r.chatGptQuiet = silence->notice(r.tunnelEnabled && r.tunnelState == QLatin1String("connected"));
    if (const ChatGptToolList *tools = controller.chatGptToolList()) {
        switch (tools->freshness()) {
        case ChatGptToolList::Freshness::NeverFetched: r.chatGptToolList = QStringLiteral("never_fetched"); break;
        case ChatGptToolList::Freshness::Current: r.chatGptToolList = QStringLiteral("current"); break;
        case ChatGptToolList::Freshness::Changed: r.chatGptToolList = QStringLiteral("changed"); break;
        }
        r.chatGptFetchedAtMs = tools->fetchedAtMs();
    }
    return r;
}

void applyHealthAnswer(StatusReport &r, const QJsonObject &health)
{
    r.healthy = true;
    r.serverRunning = true;
    r.version = health.value(QStringLiteral("version")).toString();
    r.uptimeMs = health.contains(QStringLiteral("uptimeMs")) ? health.value(QStringLiteral("uptimeMs")).toInteger() : -1;
    const QJsonObject chatGpt = health.value(QStringLiteral("chatgpt")).toObject();
    if (chatGpt.value(QStringLiteral("toolList")).isString()) {
        r.chatGptToolList = chatGpt.value(QStringLiteral("toolList")).toString().left(20);
        r.chatGptFetchedAtMs = chatGpt.value(QStringLiteral("fetchedAtMs")).toInteger();
        r.chatGptQuiet = chatGpt.value(QStringLiteral("quiet")).toString().left(1000);
    }
    // The running server's configuration is authoritative for the tunnel.
    const QJsonObject tunnel = health.value(QStringLiteral("tunnel")).toObject();
    if (tunnel.contains(QStringLiteral("enabled")))
        r.tunnelEnabled = tunnel.value(QStringLiteral("enabled")).toBool();
    r.tunnel = tunnel;
    r.tunnelState = r.tunnelEnabled ? tunnel.value(QStringLiteral("state")).toString(QStringLiteral("unknown"))
                                    : QStringLiteral("disabled");
    // Without the local token a server that requires it answers only status, name and tunnel state.
    if (health.contains(QStringLiteral("activeSandboxes")))
        r.activeSandboxes = health.value(QStringLiteral("activeSandboxes")).toInteger();
    if (health.contains(QStringLiteral("unreachableSandboxes"))) {
        r.unreachableSandboxes = health.value(QStringLiteral("unreachableSandboxes")).toInteger();
        r.unreachableWhy = health.value(QStringLiteral("unreachableWhy")).toString();
    }
    if (health.contains(QStringLiteral("warmSandboxes")))
        r.warmSandboxes = health.value(QStringLiteral("warmSandboxes")).toInteger();
    if (health.contains(QStringLiteral("cloudActiveSandboxes")))
        r.cloudActiveSandboxes = health.value(QStringLiteral("cloudActiveSandboxes")).toInteger();
    if (health.contains(QStringLiteral("cloudWarmSandboxes")))
        r.cloudWarmSandboxes = health.value(QStringLiteral("cloudWarmSandboxes")).toInteger();
    if (health.contains(QStringLiteral("pendingApprovals")))
        r.pendingApprovals = health.value(QStringLiteral("pendingApprovals")).toInteger();
    r.dataRoot = health.value(QStringLiteral("dataRoot")).toString(r.dataRoot);
    if (health.value(QStringLiteral("sbx")).isObject())
        r.sbx = SbxStatus::fromHealthJson(health.value(QStringLiteral("sbx")).toObject());
}

} // namespace chat2sbx
