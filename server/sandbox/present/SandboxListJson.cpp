#include "sandbox/present/SandboxListJson.h"

#include "core/JsonText.h"
#include "sandbox/present/SandboxPresenter.h"
#include "state/Workspace.h"

#include <optional>

namespace chat2sbx {

namespace {

// A field added to one of these records must be compared in sameView too, or a change of only that
// field would leave a stale summary in the cache: these sizes fail to compile first.
static_assert(sizeof(SandboxRecord) == 10 * sizeof(QString) + 10 * sizeof(qint64) + 4 * sizeof(int),   // + workspaceInVm, padded
              "SandboxRecord changed: compare the new field in SandboxListJson::sameView, then update this size");
static_assert(sizeof(Workspace) == 3 * sizeof(QString) + 6 * sizeof(qint64) + 2 * sizeof(int),
              "Workspace changed: compare the new field in SandboxListJson::sameView, then update this size");
static_assert(sizeof(SandboxPortRecord) == sizeof(QString) + 4 * sizeof(int),
              "SandboxPortRecord changed: compare the new field in SandboxListJson::sameView, then update this size");

bool sameRecord(const SandboxRecord &a, const SandboxRecord &b)
{
    return a.id == b.id && a.workspaceId == b.workspaceId && a.runtimeName == b.runtimeName && a.state == b.state
           && a.memory == b.memory && a.reason == b.reason && a.createdAt == b.createdAt && a.updatedAt == b.updatedAt
           && a.lastActivityAt == b.lastActivityAt && a.idleDeadline == b.idleDeadline && a.sleptAt == b.sleptAt
           && a.wokeAt == b.wokeAt && a.sleepReason == b.sleepReason && a.unreachableSince == b.unreachableSince
           && a.unreachableLists == b.unreachableLists && a.unreachableWhy == b.unreachableWhy && a.templateRef == b.templateRef
           && a.placement == b.placement && a.cloudSize == b.cloudSize && a.expiresAt == b.expiresAt
           && a.expiresCeilingAt == b.expiresCeilingAt && a.workspaceInVm == b.workspaceInVm;
}

bool sameWorkspace(const std::optional<Workspace> &a, const std::optional<Workspace> &b)
{
    if (!a || !b)
        return !a && !b;
    return a->id == b->id && a->mode == b->mode && a->hostPath == b->hostPath && a->displayName == b->displayName
           && a->createdAt == b->createdAt && a->lastUsedAt == b->lastUsedAt && a->trashedAt == b->trashedAt
           && a->revokedAt == b->revokedAt && a->hostDevice == b->hostDevice && a->hostInode == b->hostInode;
}

bool samePorts(const QList<SandboxPortRecord> &a, const QList<SandboxPortRecord> &b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i)
        if (a[i].sandboxPort != b[i].sandboxPort || a[i].hostIp != b[i].hostIp || a[i].hostPort != b[i].hostPort)
            return false;
    return true;
}

} // namespace

bool SandboxListJson::sameView(const SandboxView &a, const SandboxView &b)
{
    return sameRecord(a.record, b.record) && sameWorkspace(a.workspace, b.workspace) && samePorts(a.ports, b.ports)
           && a.forkedFromSandbox == b.forkedFromSandbox && a.forkedFromCheckpoint == b.forkedFromCheckpoint;
}

QByteArray SandboxListJson::summaryJson(const SandboxView &view, const SandboxService &sandboxes)
{
    const auto it = m_entries.find(view.record.id);
    if (it != m_entries.end() && sameView(it->view, view)) {
        it->listed = m_listing;
        return it->json;
    }
    QByteArray json = json::compact(sandboxJson(view, sandboxes));
    // A failure reason is redacted against the other sandboxes' runtime names, which may change
    // without this row changing: such a summary is always built afresh.
    if (view.record.reason.isEmpty())
        m_entries.insert(view.record.id, Entry{view, json, m_listing});
    else
        m_entries.remove(view.record.id);
    return json;
}

QByteArray SandboxListJson::listJson(const QList<SandboxView> &views, const SandboxService &sandboxes,
                                     int maxActiveSandboxes, int total, const QString &nextCursor)
{
    ++m_listing;
    QByteArray out;
    // The last listing's size is a good guess at this one's.
    out.reserve(qMax(m_lastSize, qsizetype(64)) + 1024);
    out += "{\"max_active_sandboxes\":";
    json::appendValue(out, sandboxLimitJson(maxActiveSandboxes));
    if (total >= 0) {
        out += ",\"total\":";
        out += QByteArray::number(total);
    }
    if (!nextCursor.isEmpty()) {
        out += ",\"next_cursor\":";
        json::appendValue(out, nextCursor);
    }
    out += ",\"sandboxes\":[";
    for (qsizetype i = 0; i < views.size(); ++i) {
        if (i > 0)
            out += ',';
        out += summaryJson(views.at(i), sandboxes);
    }
    out += "]}";
    // Sandboxes no longer listed leave the cache.
    if (m_entries.size() > views.size())
        m_entries.removeIf([this](const QHash<QString, Entry>::iterator &e) { return e->listed != m_listing; });
    m_lastSize = out.size();
    return out;
}

} // namespace chat2sbx
