#pragma once

#include "state/SandboxState.h"
#include "state/Workspace.h"

#include <QList>
#include <QString>

#include <optional>

namespace chat2sbx {

class Database;

// One row of the sandboxes table. `reason` is why a sandbox failed or was destroyed by us (idle).
struct SandboxRecord {
    QString id;               // sbx_ + random: public
    QString workspaceId;
    QString runtimeName;      // chat2sbx-<random>: internal, never in a tool result
    SandboxState state = SandboxState::Creating;
    QString memory;           // empty: sbx default
    QString reason;
    qint64 createdAt = 0;
    qint64 updatedAt = 0;
    qint64 lastActivityAt = 0;
    qint64 idleDeadline = 0;
    qint64 sleptAt = 0;       // when its VM last stopped (0: never)
    qint64 wokeAt = 0;        // when a tool call last woke it (0: never)
    QString sleepReason;      // why its VM last stopped
    // sbx stopped listing its VM (the state stays; it comes back when sbx lists it again): since when
    // (0: reachable), in how many listings in a row, and what is known of why.
    qint64 unreachableSince = 0;
    int unreachableLists = 0;
    QString unreachableWhy;
    QString templateRef;      // the template its VM was made from (empty: unknown, an older record)
    // Where it runs: this computer ("local") or Docker's cloud ("cloud", `sbx --cloud`, billed while
    // it runs), its compute size there, and when its time-to-live ends (0: not known or none armed)
    // and at the latest can end (24 h from creation; extensions only forward).
    QString placement = QStringLiteral("local");
    QString cloudSize;
    qint64 expiresAt = 0;
    qint64 expiresCeilingAt = 0;
    bool isCloud() const { return placement == QLatin1String("cloud"); }
    // Its workspace is a folder of its VM (~/workspace), not a host folder mounted in: a sandbox
    // moved back from the cloud (`sbx move` gives it no mount). Always so in the cloud.
    bool workspaceInVm = false;
    bool hasVmWorkspace() const { return isCloud() || workspaceInVm; }

    // What maxActiveSandboxes counts and what holds a workspace (state/SandboxState.h).
    bool isActive() const { return isActiveSandboxState(state); }
    bool isUnreachable() const { return unreachableSince > 0; }
};

struct SandboxPortRecord {
    int sandboxPort = 0;
    QString hostIp;
    int hostPort = 0;
};

// A sandbox as the tools and the UI show it.
struct SandboxView {
    SandboxRecord record;
    std::optional<Workspace> workspace;
    QList<SandboxPortRecord> ports;
    // A fork (sandbox_fork): the sandbox and checkpoint it was made from; empty otherwise.
    QString forkedFromSandbox;
    QString forkedFromCheckpoint;
};

// Rows of the sandboxes and sandbox_ports tables. Every write is committed before it returns; nothing
// is cached, because the CLI and the server share the database file.
class SandboxRepository {
public:
    explicit SandboxRepository(Database &db) : m_db(db) {}
    Database &database() const { return m_db; }

    // Inserts `r` only while fewer than `limit` sandboxes are creating/running/destroying (limit 0:
    // no limit), in one statement, so the check and the insert are atomic even across processes.
    // Returns false with `limitReached` true when the limit refused it.
    bool insertWithinLimit(const SandboxRecord &r, int limit, bool &limitReached, QString &error);
    std::optional<SandboxRecord> find(const QString &id) const;
    // find() plus the workspace's mode and host path in one indexed read (the per-tool-call lookup).
    std::optional<SandboxRecord> findWithWorkspace(const QString &id, QString &workspaceMode, QString &workspacePath) const;
    // Every sandbox except destroyed ones (unless asked), oldest first.
    QList<SandboxRecord> list(bool includeDestroyed = false) const;
    // The cloud sandboxes that are not destroyed, oldest first: what the cloud's reconciliation and its
    // limit read, without every local record.
    QList<SandboxRecord> listCloud() const;
    // list() with each sandbox's workspace and ports, in one query (sandbox_list, the tray).
    QList<SandboxView> listViews() const;
    // One page of sandbox_list: the `limit` newest live sandboxes created before `before` (none: the
    // newest), oldest first as listViews() orders them. `before` is a cursor of cursorOf().
    struct Page {
        int limit = 0;
        QString before;
    };
    QList<SandboxView> listViews(const Page &page) const;
    // The live (not destroyed) sandboxes listViews() lists.
    int countListed() const;
    // Where the next (older) page starts: after `oldest`, the first sandbox of a page.
    static QString cursorOf(const SandboxRecord &oldest);
    // A cursor of cursorOf(), or false (made up, or from another version).
    static bool parseCursor(const QString &cursor, qint64 &createdAt, QString &id);
    QList<SandboxRecord> inState(SandboxState state) const;
    // The workspace's sandbox in `state`, newest first; a fork (of a clone, sharing its workspace) last.
    std::optional<SandboxRecord> findForWorkspace(const QString &workspaceId, SandboxState state) const;
    int countActive() const;
    // Running or stopped sandboxes whose idle deadline is at or before nowMs.
    QList<SandboxRecord> idleExpired(qint64 nowMs) const;
    // Running sandboxes no tool call reached since `lastActivityBefore`.
    QList<SandboxRecord> idleSince(qint64 lastActivityBefore) const;

    bool setState(const QString &id, SandboxState state, const QString &reason, qint64 nowMs, QString &error);
    // Moves id to `to` only if it is still in `from`; returns false (no error) if it was not.
    bool transition(const QString &id, SandboxState from, SandboxState to, const QString &reason, qint64 nowMs,
                    QString &error);
    bool renew(const QString &id, qint64 nowMs, qint64 idleDeadline, QString &error);
    // running -> stopped, recording when and why; false (no error) if it was not running.
    bool markStopped(const QString &id, qint64 sleptAt, const QString &why, qint64 nowMs, QString &error);
    // stopped -> running (woken by a tool call); false (no error) if it was not stopped.
    bool markWoken(const QString &id, qint64 nowMs, qint64 idleDeadline, QString &error);
    // A VM that stopped and was started again before anyone marked it stopped: both times.
    bool recordSleepAndWake(const QString &id, qint64 sleptAt, qint64 wokeAt, const QString &why, QString &error);
    // One more listing of `sbx ls` without its VM: unreachable since nowMs (or still since the first),
    // counted, with what is known of why. Its state does not change.
    bool markUnreachable(const QString &id, const QString &why, qint64 nowMs, QString &error);
    // sbx lists its VM again.
    bool clearUnreachable(const QString &id, qint64 nowMs, QString &error);
    // Its VM was made again from `templateRef` (a restore).
    bool setTemplateRef(const QString &id, const QString &templateRef, QString &error);
    // A cloud sandbox's time-to-live as sbx last said it (0: unchanged).
    bool setExpiry(const QString &id, qint64 expiresAt, qint64 ceilingAt, QString &error);
    // A record an older chat2sbx marked failed because sbx stopped listing it gets its state back
    // (`to`: running or stopped); false (no error) if it was not failed.
    bool recoverFailed(const QString &id, SandboxState to, qint64 nowMs, QString &error);
    // Records why a sandbox is the way it is without changing its state (e.g. idle expiry postponed).
    bool setReason(const QString &id, const QString &reason, qint64 nowMs, QString &error);

    QList<SandboxPortRecord> ports(const QString &sandboxId) const;
    // Fills the view's forkedFrom* from the sandbox_forks table.
    void readForkOrigin(SandboxView &view) const;
    std::optional<SandboxPortRecord> findPort(const QString &sandboxId, int sandboxPort) const;
    bool upsertPort(const QString &sandboxId, const SandboxPortRecord &p, QString &error);
    bool clearPorts(const QString &sandboxId, QString &error);
    bool removePort(const QString &sandboxId, int sandboxPort, QString &error);

private:
    // Outlives this: a repository is a member or a local of the database's user.
    Database &m_db;
};

} // namespace chat2sbx
