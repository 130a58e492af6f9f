#pragma once

#include "state/Checkpoint.h"

#include <QHash>
#include <QList>

#include <optional>

namespace chat2sbx {

class Database;

// Rows of the checkpoints table. Every write is committed before it returns.
class CheckpointRepository {
public:
    explicit CheckpointRepository(Database &db) : m_db(db) {}

    bool insert(const Checkpoint &c, QString &error);
    std::optional<Checkpoint> find(const QString &id) const;
    // A sandbox's checkpoints, oldest first (failed ones included: the caller decides what to show).
    QList<Checkpoint> listFor(const QString &sandboxId) const;
    // Every checkpoint in `state`, oldest first (start-up: the ones a crash left `saving`).
    QList<Checkpoint> inState(CheckpointState state) const;
    // Every checkpoint saving or ready, oldest first (the tray: one query for every sandbox).
    QList<Checkpoint> listLive() const;
    // saving → ready (with the copy's size) or failed (with why): 1 done, 0 not saving any more, -1 error.
    int finish(const QString &id, CheckpointState state, qint64 sizeBytes, const QString &failure, qint64 at, QString &error);
    bool remove(const QString &id, QString &error);
    // Pins `id` as the undo of a restore of `sandboxId` (pinned = 2) and releases the undo checkpoints
    // of that sandbox pinned before it: one pinned undo per sandbox, the older ones superseded (they
    // stay, and the budget may evict them). A pin the user or agent asked for (pinned = 1) stays.
    // Returns how many were released, -1 on error.
    int pinAsUndo(const QString &id, const QString &sandboxId, QString &error);
    bool setPinned(const QString &id, bool pinned, QString &error);

    // A restore under way: recorded before the sandbox's VM is removed, ended once it runs from the
    // checkpoint (or was put back). A row found at start belongs to a restore a crash interrupted.
    struct PendingRestore {
        QString sandboxId;
        QString checkpointId;
        QString undoCheckpointId;   // the sandbox as it was before the restore
        qint64 startedAt = 0;
    };
    bool beginRestore(const PendingRestore &restore, QString &error);
    bool endRestore(const QString &sandboxId, QString &error);
    std::optional<PendingRestore> pendingRestore(const QString &sandboxId) const;
    // A restore under way goes to it or keeps it as its undo.
    bool pendingRestoreUsing(const QString &checkpointId) const;
    QList<PendingRestore> pendingRestores() const;

    // A sandbox made from a checkpoint (sandbox_fork).
    struct Fork {
        QString sandboxId;
        QString checkpointId;
        QString parentSandboxId;
        QString name;           // the agent's words, may be empty
        qint64 createdAt = 0;
    };
    bool insertFork(const Fork &fork, QString &error);
    std::optional<Fork> forkOf(const QString &sandboxId) const;
    // Every fork, by sandbox id (sandbox_list: one query for the whole list).
    QHash<QString, Fork> allForks() const;
    int forksOfCheckpoint(const QString &checkpointId) const;
    // A sandbox made from its template (a fork, or one restored to it) is not destroyed: the template
    // must stay, as sbx cannot save a sandbox whose base image is gone.
    bool isTemplateOfLiveSandbox(const QString &checkpointId) const;
    // Checkpoints whose sandbox is destroyed (or gone), not saving, not pinned, without a live fork and
    // not part of a restore under way: what may be removed, oldest first, at most `limit`.
    QList<Checkpoint> orphaned(int limit) const;

private:
    Database &m_db;
};

} // namespace chat2sbx
