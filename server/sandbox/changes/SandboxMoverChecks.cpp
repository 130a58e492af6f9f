// SandboxMover's refusals: what stops a move before anything changes (reference/sbx-cloud.md §6).
#include "sandbox/changes/SandboxMover.h"

#include "config/Config.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/sbx/SbxCloud.h"

#include <QDir>
#include <QRegularExpression>
#include <QStorageInfo>

namespace chat2sbx {

QString cloudSizeForMemory(const QString &memory, bool &tooLarge)
{
    tooLarge = false;
    if (memory.isEmpty())
        return QStringLiteral("small");
    static const QRegularExpression re(QStringLiteral("^([0-9]+)([gGmM])$"));
    const QRegularExpressionMatch m = re.match(memory);
    const qint64 mib = m.hasMatch() ? m.captured(1).toLongLong() * (m.captured(2).toLower() == QLatin1String("g") ? 1024 : 1) : 0;
    for (const SbxCloudSize &s : sbxCloudSizes())
        if (s.memoryMib >= mib)
            return s.name;
    tooLarge = true;
    return {};
}

QString SandboxMover::refusal(const MoveRequest &request, const std::optional<SandboxView> &view) const
{
    const QString &id = request.sandboxId;
    if (!view || !view->workspace)
        return QStringLiteral("unknown sandbox_id %1").arg(id);
    const SandboxRecord &r = view->record;
    const Workspace &w = *view->workspace;
    if (const std::optional<SandboxMove> left = m_moves.find(id); left && left->step == QLatin1String("source_left") && !m_jobs.contains(id))
        return QStringLiteral("the old copy sandbox %1 left at its last move could not be removed yet: chat2sbx tries again (every "
                              "few minutes, and at its next start), and the sandbox moves again after that").arg(id);
    if (m_jobs.contains(id) || m_moves.find(id))
        return QStringLiteral("sandbox %1 is being moved already").arg(id);
    if (r.state != SandboxState::Running && r.state != SandboxState::Stopped)
        return QStringLiteral("sandbox %1 is %2: only a running or paused sandbox moves").arg(id, sandboxStateName(r.state));
    if (const QString held = m_sandboxes.heldFor(id); !held.isEmpty())
        return QStringLiteral("sandbox %1 is %2 right now: move it once that is done").arg(id, held);
    if (request.toCloud && r.isCloud())
        return QStringLiteral("sandbox %1 runs in Docker's cloud already").arg(id);
    if (!request.toCloud && !r.isCloud())
        return QStringLiteral("sandbox %1 runs on this computer already").arg(id);
    if (request.toCloud && w.mode == WorkspaceMode::Clone && !r.workspaceInVm && (!m_cloneWork || !m_seeder))
        return QStringLiteral("sandbox %1 works on a clone of %2, whose work cannot be carried into the cloud from here: move it "
                              "through `chat2sbx serve`").arg(id, w.hostPath);
    if (!request.toCloud) {
        if (!m_sandboxes.isSbxAvailable())
            return QStringLiteral("sbx on this computer is not usable right now (chat2sbx status says why): a move to this computer "
                                  "needs a working local runtime. Nothing was changed");
        const QStorageInfo temp(QDir::tempPath());
        const qint64 need = qint64(m_config.moveTempSpaceGiB) << 30;
        if (temp.isValid() && temp.bytesAvailable() < need)
            return QStringLiteral("a move to this computer may need %1 GiB of free space in %2 (sbx stages the sandbox there) and it "
                                  "has %3 GiB: free some space there first (moveTempSpaceGiB, CHAT2SBX_MOVE_TEMP_SPACE_GIB says how "
                                  "much is needed). Nothing was changed")
                .arg(m_config.moveTempSpaceGiB).arg(QDir::tempPath()).arg(double(temp.bytesAvailable()) / (1 << 30), 0, 'f', 1);
        return {};
    }
    if (!m_config.cloudSandboxes)
        return QStringLiteral("cloud sandboxes are off (cloudSandboxes, CHAT2SBX_CLOUD_SANDBOXES): they run in Docker's cloud and "
                              "are billed per second while they run. The user turns them on with \"cloudSandboxes\": true in "
                              "config.json");
    if (w.mode == WorkspaceMode::Direct)
        return QStringLiteral("sandbox %1 works on the user's own folder %2 (direct mode): a cloud sandbox has no host mount, so "
                              "its work would be cut off from that folder. It stays on this computer; for the cloud, ask for the "
                              "folder in mode clone (workspace_request)").arg(id, w.hostPath);
    bool tooLarge = false;
    const QString size = cloudSizeForMemory(r.memory, tooLarge);
    if (tooLarge)
        return QStringLiteral("sandbox %1 has %2 of memory, more than the largest cloud size (xl: 16 CPUs, 32 GiB): sbx stops such "
                              "a move before anything is captured. Nothing was changed").arg(id, r.memory);
    if (sbxCloudSizeRank(size) > sbxCloudSizeRank(m_config.cloudMaxSize))
        return QStringLiteral("sandbox %1 needs cloud size %2 (its memory %3), larger than the user allows (cloudMaxSize %4, "
                              "CHAT2SBX_CLOUD_MAX_SIZE). Nothing was changed").arg(id, size, r.memory, m_config.cloudMaxSize);
    if (request.ttlSeconds > kSbxCloudMaxTtlSeconds || (request.ttlSeconds > 0 && request.ttlSeconds < 15))
        return QStringLiteral("a cloud sandbox's time-to-live is 15 s to 24 h: ask for a ttl in that range");
    if (m_sandboxes.cloudExpiryDeletes())
        return QStringLiteral("this Docker account cannot stop cloud sandboxes: when the time-to-live of a moved sandbox ends, "
                              "Docker's cloud deletes it with every file it holds, and a move asks for a stop. Sandbox %1 stays on "
                              "this computer; a plan that can stop sandboxes lifts this").arg(id);
    int activeInCloud = 0;
    for (const SandboxRecord &c : m_records.listCloud())
        activeInCloud += c.isActive() ? 1 : 0;
    if (activeInCloud >= m_config.cloudMaxSandboxes)
        return QStringLiteral("the limit of %1 active cloud sandboxes (cloudMaxSandboxes, CHAT2SBX_CLOUD_MAX_SANDBOXES) is reached: "
                              "destroy one with sandbox_destroy first").arg(m_config.cloudMaxSandboxes);
    return {};
}

} // namespace chat2sbx
