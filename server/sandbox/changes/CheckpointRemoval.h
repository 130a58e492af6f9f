#pragma once

#include "state/Checkpoint.h"
#include "state/CheckpointRepository.h"

#include <QObject>
#include <QSet>

#include <functional>

namespace chat2sbx {

struct Config;
class Database;
class SbxDriver;

// What goes of checkpoints, and when:
// - remove(): one checkpoint (the agent's sandbox_checkpoint_delete, `chat2sbx sandbox uncheckpoint`):
//   `sbx template rm` (a template sbx no longer lists counts as removed), the workspace copy, then the
//   row — the row last, so a crash midway leaves a row the next sweep removes again;
// - evictOverBudget(): past checkpointMaxCount or checkpointMaxGiB (cloud checkpoints: past
//   cloudCheckpointMaxCount or cloudCheckpointMaxGiB, counted apart), the oldest ready checkpoints
//   that are not pinned, in use (a restore or fork under way) or the template of a live fork;
// - sweep(): the checkpoints of destroyed sandboxes once no live fork was made from them; a pinned
//   one outlives its sandbox (checkpointBeforeExpiry's, or the agent's pin) until it is deleted.
class CheckpointRemoval : public QObject {
    Q_OBJECT
public:
    CheckpointRemoval(const Config &config, Database &db, SbxDriver &sbx, QObject *parent = nullptr);

    using Done = std::function<void(bool ok, const QString &error)>;
    void remove(const Checkpoint &checkpoint, Done done);
    // One asked for by id: refused while it is saving, restored to, forked from (`inUse`) or the
    // template of a sandbox that still lives.
    void removeAsked(const QString &checkpointId, const QSet<QString> &inUse, Done done);
    // The checkpoints evicted (their removal runs on); `keep` are never chosen. `overBudget`: when
    // what they leave is still past the budget (pins are never evicted), what to say (how many,
    // which settings, what to do); empty otherwise.
    QList<Checkpoint> evictOverBudget(const QSet<QString> &keep, QString &overBudget);
    void sweep();
    // A live fork was made from it: its template stays while the fork lives.
    bool isTemplateOfLiveSandbox(const QString &checkpointId) const;

signals:
    void removed(const QString &sandboxId, const QString &checkpointId);

private:
    struct Budget {
        int maxCount = 0;
        int maxGiB = 0;
        QString what;       // "checkpoints"
        QString countKey;   // the settings, named in what is said
        QString gibKey;
    };
    // evictOverBudget() for one pool: local checkpoints and cloud ones are budgeted apart.
    QList<Checkpoint> evictFrom(const QList<Checkpoint> &ready, const Budget &budget, const QSet<QString> &keep, QString &overBudget);
    // `sbx --cloud template rm`, then the row.
    void removeInCloud(const Checkpoint &c, Done done);
    void dropRow(const Checkpoint &c, const Done &done);

    const Config &m_config;
    SbxDriver &m_sbx;
    CheckpointRepository m_repo;
    QSet<QString> m_removing;
};

} // namespace chat2sbx
