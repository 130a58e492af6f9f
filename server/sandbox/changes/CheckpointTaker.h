#pragma once

#include "sandbox/changes/CheckpointRequests.h"

#include <QObject>

#include <utility>

namespace chat2sbx {

class CheckpointJobs;
class CheckpointRemoval;
struct SandboxView;

// sandbox_checkpoint: a checkpoint is recorded `saving` first; then the sandbox is held stopped
// (SandboxService::holdStopped), its VM's disk saved as the template chat2sbx-checkpoint:<id>
// (`sbx template save`), and a managed workspace copied on the host (WorkspaceCopy) into
// <dataRoot>/checkpoints/<id>/workspace; then `ready`, the budget evicts the oldest it must, and the
// sandbox is released (the next tool call wakes it) or kept held for the job that asked
// (AfterSave::KeepHeld). Any failure leaves it `failed` with why and removes what was made. A clone
// sandbox's git state is saved first, while it runs (CloneCheckpointWork, into
// <dataRoot>/checkpoints/<id>/git), and named Docker images before that (DockerImageKeeper).
class CheckpointTaker : public QObject {
    Q_OBJECT
public:
    CheckpointTaker(CheckpointJobs &jobs, CheckpointRemoval &removal, QObject *parent = nullptr);

    // `started` (may be empty) runs once the checkpoint is recorded (its id known); `done` once it is
    // ready or failed.
    void take(const CheckpointRequest &request, CheckpointStarted started, CheckpointDone done);
    // Start-up: checkpoints a crash left `saving` become `failed`, their template and copy removed.
    void failInterrupted();

private:
    using Notes = std::pair<QStringList, QStringList>;   // what it holds, what it does not
    // A cloud sandbox (CheckpointTakerCloud.cpp): `sbx --cloud template save` while it runs on, no
    // hold; its workspace and a clone's work are in its VM's disk, so nothing is copied here.
    void takeInCloud(const CheckpointRequest &request, const SandboxView &view, CheckpointStarted started, CheckpointDone done);
    void finishInCloud(const Checkpoint &c, const Notes &notes, CheckpointDone done);
    // `c` recorded `saving` (its creation time set now), announced and `started` told; false with `error`.
    bool recordStarted(Checkpoint &c, const CheckpointStarted &started, QString &error);
    // Ready with its size; the budget evicts what it must; `done` answered.
    void finishReady(const Checkpoint &c, const Notes &notes, qint64 size, bool releaseHold, const CheckpointDone &done);
    void fail(const Checkpoint &c, const QString &why, bool held, const CheckpointDone &done);
    // The Docker images' archive leaves the source sandbox's HOME (a failure only logs); `then` after.
    void dropDockerArchive(const Checkpoint &c, bool held, std::function<void()> then);
    // The template the sandbox's VM was made from (empty: unknown), and what a save refused for its
    // absence says.
    QString baseTemplateOf(const QString &sandboxId) const;
    QString baseGoneText(const QString &sandboxId, const QString &base) const;
    // Holds the sandbox stopped, saves its VM's disk as the template, copies a managed workspace
    // (`source`), then records the checkpoint ready.
    void saveVm(const Checkpoint &c, const Notes &notes, const QString &source, AfterSave after, qint64 cloneBytes,
                CheckpointDone done);

    CheckpointJobs &m_jobs;
    CheckpointRemoval &m_removal;
};

} // namespace chat2sbx
