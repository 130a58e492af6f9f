// CheckpointTaker for a sandbox in Docker's cloud (reference/sbx-cloud.md §2.11, §7): `sbx --cloud
// template save` snapshots it while it runs and leaves it running, so no command ends and nothing is
// held; the workspace and a clone's work are folders of its VM, so the template holds them.
#include "sandbox/changes/CheckpointTaker.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/changes/CheckpointJobs.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcCloudCheckpoint, "chat2sbx.checkpoint")
} // namespace

void CheckpointTaker::takeInCloud(const CheckpointRequest &request, const SandboxView &view, CheckpointStarted started,
                                  CheckpointDone done)
{
    CheckpointOutcome refused;
    const QString &sandboxId = request.sandboxId;
    if (!request.dockerImages.isEmpty()) {
        refused.error = QStringLiteral("docker_images is for checkpoints on this computer: a checkpoint of sandbox %1, which runs in "
                                       "Docker's cloud, saves its whole disk as the cloud snapshots it. Call again without "
                                       "docker_images").arg(sandboxId);
        return done(refused);
    }
    // A stopped cloud sandbox is started again here first (the answer says to call again), since the
    // cloud saves only a running one.
    RunningSandbox running;
    if (!m_jobs.sandboxes().resolveRunning(sandboxId, running, refused.error))
        return done(refused);
    Checkpoint c;
    c.id = newId("ckp_");
    c.sandboxId = sandboxId;
    c.label = request.label.left(kMaxCheckpointLabelChars);
    c.templateRef = Checkpoint::cloudTemplateNameFor(c.id);
    c.inCloud = true;
    c.keepsMemory = request.keepMemory;
    if (!recordStarted(c, started, refused.error))
        return done(refused);
    QStringList kept{QStringLiteral("the sandbox's disk as Docker's cloud snapshots it: installed packages, HOME, the workspace at "
                                    "~/workspace and every file written in the VM (secrets written to files too), saved as a "
                                    "template in Docker's cloud (it counts against the account's cloud storage) until the "
                                    "checkpoint is deleted")};
    QStringList notKept;
    if (view.workspace && view.workspace->mode == WorkspaceMode::Clone)
        kept << QStringLiteral("the clone in ~/workspace with its commits, branches, staged and unstaged changes and untracked "
                               "files, as the VM holds them");
    if (c.keepsMemory)
        kept << QStringLiteral("its memory and running processes: a restore or fork resumes them where they were");
    else
        notKept << QStringLiteral("memory and running processes are not kept: a restore or fork starts the sandbox afresh "
                                  "(keep_memory: true keeps them)");
    notKept << QStringLiteral("published ports, network rules and secrets stored with sbx are not in a template");
    kept << QStringLiteral("the sandbox kept running while it was saved: its commands went on");
    const Notes notes{kept, notKept};
    qCInfo(lcCloudCheckpoint).noquote() << "saving checkpoint" << c.id << "of cloud sandbox" << sandboxId
                                        << (c.keepsMemory ? "with its memory" : "(disk)");
    QPointer<CheckpointTaker> self(this);
    m_jobs.sbx().cloudTemplateSave(running.runtimeName, c.templateRef, c.keepsMemory, [self, c, notes, done](const SbxResult &saved) {
        if (!self)
            return;
        if (!saved.ok) {
            QString why = self->m_jobs.sandboxes().publicText(saved.error);
            if (c.keepsMemory && why.contains(QLatin1String("capture-mode disk")))
                why += QStringLiteral(" (Docker's cloud cannot keep this sandbox's memory: call again without keep_memory to "
                                      "keep its disk)");
            return self->fail(c, why, false, done);
        }
        self->finishInCloud(c, notes, done);
    });
}

void CheckpointTaker::finishInCloud(const Checkpoint &c, const Notes &notes, CheckpointDone done)
{
    // Its size as the cloud lists it (the shape is UNKNOWN: an unreadable or missing size counts 0
    // against the budget's GiB, and is logged).
    QPointer<CheckpointTaker> self(this);
    m_jobs.sbx().cloudTemplateList([self, c, notes, done](const SbxResult &listed, const QList<SbxCloudTemplate> &templates) {
        if (!self)
            return;
        qint64 size = -1;
        for (const SbxCloudTemplate &t : templates)
            if (t.name == c.templateRef)
                size = t.sizeBytes;
        if (size < 0)
            qCWarning(lcCloudCheckpoint).noquote() << "the size of cloud template" << c.templateRef << "is unknown:"
                                                   << (listed.ok ? QStringLiteral("not listed with a size") : listed.error);
        self->finishReady(c, notes, qMax<qint64>(size, 0), false, done);
    });
}

} // namespace chat2sbx
