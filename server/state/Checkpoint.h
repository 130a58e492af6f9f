#pragma once

#include <QString>
#include <QStringList>

namespace chat2sbx {

// saving (recorded before anything is acted on) → ready | failed. A row still `saving` when the
// server starts belongs to a checkpoint a crash interrupted: it is finished or removed then, never
// listed as usable.
enum class CheckpointState { Saving, Ready, Failed };

QString checkpointStateName(CheckpointState state);
bool parseCheckpointState(const QString &text, CheckpointState &out);

// A sandbox saved as it was: its VM's disk as an sbx template (`sbx template save`; never
// memory, processes, mounted folders or /var/lib/docker) and, for a managed workspace, a copy of the
// workspace folder on the host, for a clone sandbox its git state (commits, branches, index, working tree).
struct Checkpoint {
    QString id;               // ckp_ + random
    QString sandboxId;
    QString label;            // the agent's words (<= 200 characters), may be empty
    QString templateRef;      // chat2sbx-checkpoint:<id>
    QString workspaceCopy;    // the host copy of a managed workspace; empty when none was made
    QString cloneState;       // a clone sandbox's git state (CloneCheckpointWork): a host folder; empty otherwise
    QStringList dockerImages; // the sandbox's Docker images kept in its disk (DockerImageKeeper); usually none
    CheckpointState state = CheckpointState::Saving;
    QString failure;          // failed: why, one sentence
    qint64 sizeBytes = 0;     // the template's size (`sbx template ls`) + the workspace copy or the clone's state
    qint64 createdAt = 0;
    qint64 finishedAt = 0;    // 0 while saving
    bool pinned = false;      // kept when the budget evicts the oldest
    // A cloud sandbox's checkpoint: a template in Docker's cloud (`sbx --cloud template save`, named
    // cloudTemplateNameFor), counted against its own budget; restored and forked in the cloud only.
    bool inCloud = false;
    bool keepsMemory = false; // saved with --capture-mode all: memory and processes come back

    bool isReady() const { return state == CheckpointState::Ready; }
    static QString templateRefFor(const QString &checkpointId);
    // chat2sbx-ckp-<hex>: cloud names take letters, digits and hyphens.
    static QString cloudTemplateNameFor(const QString &checkpointId);
};

} // namespace chat2sbx
