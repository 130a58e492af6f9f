#include "runtime/SetupChecklist.h"

#include "runtime/StatusReport.h"
#include "sandbox/sbx/SbxVersion.h"

namespace chat2sbx {
namespace {

using State = ChecklistItem::State;
using Step = ChecklistItem::Step;

ChecklistItem sbxInstalled(const SbxStatus &sbx)
{
    ChecklistItem item{Step::SbxInstalled, State::Checking, QStringLiteral("Docker Sandboxes installed"), {}, {}};
    switch (sbx.state) {
    case SbxStatus::State::Unchecked:
        item.detail = QStringLiteral("checking %1 …").arg(sbx.sbxPath);
        return item;
    case SbxStatus::State::NotInstalled:
        item.state = State::ToDo;
        item.detail = QStringLiteral("sbx was not found (%1). Install Docker Sandboxes: on Ubuntu 24.04 or newer with KVM the "
                                     "docker-sbx package, on macOS 14+ (Apple silicon) and Windows 11 Docker's installer. "
                                     "Installed elsewhere? Set CHAT2SBX_SBX (or \"sbx\" in config.json) to its path.")
                          .arg(sbx.sbxPath);
        return item;
    case SbxStatus::State::TooOld:
        item.state = State::ToDo;
        item.detail = QStringLiteral("sbx %1 is too old: chat2sbx needs %2 or newer. Update Docker Sandboxes.")
                          .arg(sbx.version, minimumSbxVersionText());
        return item;
    case SbxStatus::State::NotAnswering:
    case SbxStatus::State::UpdatePending:
        item.state = State::ToDo;
        item.detail = sbx.currentProblem();
        return item;
    case SbxStatus::State::Failed:
        if (sbx.version.isEmpty()) {
            item.state = State::ToDo;
            item.detail = sbx.currentProblem();
            return item;
        }
        break;
    default:
        break;
    }
    item.state = State::Done;
    item.detail = QStringLiteral("sbx %1 (%2)").arg(sbx.version, sbx.sbxPath);
    return item;
}

ChecklistItem signedIn(const SbxStatus &sbx, bool installed)
{
    ChecklistItem item{Step::SignedIn, State::Blocked, QStringLiteral("Signed in to Docker"), {}, QStringLiteral("sbx login")};
    if (!installed) {
        item.detail = QStringLiteral("after Docker Sandboxes is installed");
        return item;
    }
    if (sbx.signedIn == SbxStatus::Known::Yes || sbx.state == SbxStatus::State::Ready
        || sbx.state == SbxStatus::State::TemplateMissing) {
        item.state = State::Done;
        item.detail = QStringLiteral("signed in");
        return item;
    }
    if (sbx.signedIn == SbxStatus::Known::Unknown && sbx.state != SbxStatus::State::NotSignedIn) {
        item.state = State::Checking;
        item.detail = QStringLiteral("checking …");
        return item;
    }
    item.state = State::ToDo;
    item.detail = QStringLiteral("Run `sbx login` in a terminal: it opens a browser to sign in to your Docker account.");
    return item;
}

ChecklistItem templatePrepared(const SbxStatus &sbx, bool signedInDone)
{
    ChecklistItem item{Step::TemplatePrepared, State::Blocked, QStringLiteral("Sandbox template prepared"), {},
                       QStringLiteral("chat2sbx setup")};
    if (!signedInDone) {
        item.detail = QStringLiteral("after signing in");
        return item;
    }
    if (sbx.templatePresent == SbxStatus::Known::Yes || sbx.state == SbxStatus::State::Ready) {
        item.state = State::Done;
        item.detail = QStringLiteral("%1 is ready").arg(sbx.templateRef);
        return item;
    }
    if (sbx.templatePresent == SbxStatus::Known::Unknown && sbx.state != SbxStatus::State::TemplateMissing) {
        item.state = State::Checking;
        item.detail = QStringLiteral("checking …");
        return item;
    }
    item.state = State::ToDo;
    item.detail = QStringLiteral("Prepare builds %1 once (a few minutes; the first image pull may take longer), the same as "
                                 "`chat2sbx setup`.")
                      .arg(sbx.templateRef);
    return item;
}

ChecklistItem chatGptConnected(const StatusReport &r)
{
    ChecklistItem item{Step::ChatGptConnected, State::Optional, QStringLiteral("ChatGPT connected"), {}, {}};
    if (!r.tunnelEnabled) {
        item.detail = QStringLiteral("Local only: MCP clients on this computer use %1. To reach ChatGPT, turn the Secure MCP "
                                     "Tunnel on (enableTunnel in config.json) and see the README's \"Connecting ChatGPT\".")
                          .arg(r.mcpUrl);
        return item;
    }
    if (r.tunnelHealthy()) {
        item.state = State::Done;
        item.detail = QStringLiteral("the Secure MCP Tunnel is connected");
        return item;
    }
    item.state = State::ToDo;
    item.command = QStringLiteral("chat2sbx tunnel import");
    // Never set up: the two steps, short. Set up but not connected: why, and what to check.
    if (r.tunnel.value(QStringLiteral("notSetUp")).toBool()) {
        item.detail = QStringLiteral("Choose the tunnel id and key files from ChatGPT here (or `chat2sbx tunnel import`). Then in "
                                     "ChatGPT: Settings → Apps & Connectors → Developer mode, create an app with Connection: "
                                     "Tunnel.");
        return item;
    }
    const QString detail = r.tunnel.value(QStringLiteral("detail")).toString();
    const QString lastError = r.tunnel.value(QStringLiteral("lastError")).toString();
    const QString why = !detail.isEmpty() ? detail : lastError;
    item.detail = QStringLiteral("Not connected (%1%2). Check the tunnel files (choose them again here) and tunnel-client (%3); "
                                 "in ChatGPT the app uses Connection: Tunnel.")
                      .arg(r.tunnelState.isEmpty() ? QStringLiteral("not running") : r.tunnelState,
                           why.isEmpty() ? QString() : QStringLiteral(": ") + why, r.tunnelClient);
    return item;
}

ChecklistItem hostFolders(const StatusReport &r)
{
    ChecklistItem item{Step::HostFolders, State::Optional, QStringLiteral("Host folders"), {}, {}};
    if (r.allowedHostRoots.isEmpty()) {
        item.detail = QStringLiteral("Agents work in scratch folders only. To let them ask for folders of yours (each approved "
                                     "by you), list the folders they may ask for in CHAT2SBX_ALLOWED_HOST_ROOTS or "
                                     "allowedHostRoots in config.json.");
        return item;
    }
    if (!r.missingHostRoots.isEmpty()) {
        item.state = State::ToDo;
        item.detail = QStringLiteral("%1 does not exist; fix allowedHostRoots").arg(r.missingHostRoots.join(QStringLiteral(", ")));
        return item;
    }
    item.state = State::Done;
    item.detail = QStringLiteral("agents may ask for folders below %1").arg(r.allowedHostRoots.join(QStringLiteral(", ")));
    return item;
}

ChecklistItem cloudSandboxes(const StatusReport &r)
{
    ChecklistItem item{Step::CloudSandboxes, State::Optional, QStringLiteral("Docker cloud sandboxes"), {}, {}};
    if (!r.cloudEnabled) {
        item.detail = QStringLiteral("Off: sandboxes run on this computer. For a laptop that sleeps or a host without KVM, agents "
                                     "may use Docker's cloud (billed per second while a sandbox runs; a Docker Agentic Platform "
                                     "plan): set \"cloudSandboxes\": true in config.json.");
        return item;
    }
    if (r.cloudState == QLatin1String("ready")) {
        item.state = State::Done;
        item.detail = QStringLiteral("`sbx --cloud diagnose` passes; sandbox_create without placement goes %1")
                          .arg(r.defaultPlacement == QLatin1String("cloud") ? QStringLiteral("to the cloud")
                               : r.defaultPlacement == QLatin1String("auto")
                                   ? QStringLiteral("to the cloud while this computer cannot run sandboxes")
                                   : QStringLiteral("to this computer"));
        return item;
    }
    if (r.cloudState == QLatin1String("checking")) {
        item.state = State::Checking;
        item.detail = QStringLiteral("checking `sbx --cloud diagnose` …");
        return item;
    }
    item.state = State::ToDo;
    item.command = QStringLiteral("sbx --cloud diagnose");
    item.detail = r.cloudProblem();
    return item;
}

// Where sandboxes are made in the cloud (defaultPlacement cloud or auto, the cloud ready), the local
// runtime is not needed: a host without KVM is a supported setup, and its local steps are optional.
void localStepsOptional(QList<ChecklistItem> &items)
{
    for (ChecklistItem &item : items) {
        if (item.step != Step::SbxInstalled && item.step != Step::SignedIn && item.step != Step::TemplatePrepared)
            continue;
        if (item.step == Step::SignedIn && item.state != State::Done) {
            item.state = State::Done;   // the cloud's diagnose checked the sign-in
            item.detail = QStringLiteral("signed in (Docker's cloud answers)");
            continue;
        }
        if (item.state == State::ToDo || item.state == State::Blocked) {
            item.detail = item.state == State::ToDo
                              ? QStringLiteral("Not needed while sandboxes are made in Docker's cloud. For sandboxes on this "
                                               "computer: %1").arg(item.detail)
                              : QStringLiteral("Not needed while sandboxes are made in Docker's cloud (for sandboxes on this "
                                               "computer: `%1`, once sbx answers here)").arg(item.command);
            item.state = State::Optional;
        }
    }
}

} // namespace

QString ChecklistItem::stateName(State state)
{
    switch (state) {
    case State::Done: return QStringLiteral("done");
    case State::ToDo: return QStringLiteral("to do");
    case State::Blocked: return QStringLiteral("blocked");
    case State::Checking: return QStringLiteral("checking");
    case State::Optional: return QStringLiteral("optional");
    }
    return QString();
}

QList<ChecklistItem> setupChecklist(const StatusReport &report)
{
    QList<ChecklistItem> items;
    items << sbxInstalled(report.sbx);
    const bool installed = items.constLast().state == State::Done;
    items << signedIn(report.sbx, installed);
    items << templatePrepared(report.sbx, items.constLast().state == State::Done);
    items << chatGptConnected(report);
    items << hostFolders(report);
    items << cloudSandboxes(report);
    // The sbx CLI itself is needed either way (it is what talks to the cloud).
    if (items.constLast().state == State::Done && report.defaultPlacement != QLatin1String("local") && !report.sbx.version.isEmpty())
        localStepsOptional(items);
    return items;
}

bool setupNeeded(const QList<ChecklistItem> &items)
{
    for (const ChecklistItem &item : items)
        if (item.state == State::ToDo || item.state == State::Blocked)
            return true;
    return false;
}

QString setupChecklistText(const QList<ChecklistItem> &items)
{
    QString text;
    int n = 0;
    for (const ChecklistItem &item : items) {
        text += QStringLiteral("  %1. [%2] %3\n").arg(++n).arg(ChecklistItem::stateName(item.state), item.title);
        if (item.state != State::Done && !item.detail.isEmpty())
            text += QStringLiteral("       %1\n").arg(item.detail);
    }
    return text;
}

} // namespace chat2sbx
