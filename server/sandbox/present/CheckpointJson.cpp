#include "sandbox/present/CheckpointJson.h"

#include "core/Clock.h"

#include <QJsonArray>

namespace chat2sbx {

QJsonObject checkpointJson(const Checkpoint &c)
{
    QJsonObject o{{QStringLiteral("checkpoint_id"), c.id},
                  {QStringLiteral("sandbox_id"), c.sandboxId},
                  {QStringLiteral("state"), checkpointStateName(c.state)},
                  {QStringLiteral("created_at"), isoTime(c.createdAt)},
                  {QStringLiteral("workspace_copied"), !c.workspaceCopy.isEmpty()},
                  {QStringLiteral("size_bytes"), static_cast<double>(c.sizeBytes)}};
    if (!c.dockerImages.isEmpty())
        o.insert(QStringLiteral("docker_images"), QJsonArray::fromStringList(c.dockerImages));
    if (!c.cloneState.isEmpty())
        o.insert(QStringLiteral("clone_state_kept"), true);
    if (c.inCloud) {
        o.insert(QStringLiteral("placement"), QStringLiteral("cloud"));
        o.insert(QStringLiteral("keeps_memory"), c.keepsMemory);
    }
    if (c.pinned)
        o.insert(QStringLiteral("pinned"), true);
    if (!c.label.isEmpty())
        o.insert(QStringLiteral("label"), c.label);
    if (c.finishedAt > 0)
        o.insert(QStringLiteral("took_ms"), static_cast<double>(c.finishedAt - c.createdAt));
    if (!c.failure.isEmpty())
        o.insert(QStringLiteral("failure"), c.failure);
    return o;
}

} // namespace chat2sbx
