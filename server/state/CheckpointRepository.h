#pragma once

#include "state/Checkpoint.h"

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
    // saving → ready (with the copy's size) or failed (with why): 1 done, 0 not saving any more, -1 error.
    int finish(const QString &id, CheckpointState state, qint64 sizeBytes, const QString &failure, qint64 at, QString &error);
    bool remove(const QString &id, QString &error);

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
    QList<PendingRestore> pendingRestores() const;

private:
    Database &m_db;
};

} // namespace chat2sbx
