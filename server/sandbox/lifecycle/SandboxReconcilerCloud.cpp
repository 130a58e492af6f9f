// SandboxReconciler's cloud pass: cloud sandboxes against `sbx --cloud ls` (reference/sbx-cloud.md).
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/bash/StopReasons.h"
#include "sandbox/lifecycle/SandboxCreator.h"
#include "sandbox/lifecycle/SandboxDestroyer.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/sbx/SbxDriver.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>

namespace chat2sbx {

namespace {

const QString kGoneFromCloud = QStringLiteral(
    "gone from Docker's cloud: its time-to-live ended and the cloud deleted it, or it was removed outside chat2sbx; its files "
    "went with it (chat2sbx never makes it again by itself)");
const QString kStoppedByCloud = QStringLiteral(
    "stopped by Docker's cloud when its time-to-live ended (its files are kept in the cloud)");

} // namespace

void SandboxReconciler::reconcileCloud()
{
    if (m_ops.records().listCloud().isEmpty())
        return;
    if (!m_cloudTimer.isActive())
        m_cloudTimer.start();
    if (m_cloudListing)
        return;
    m_cloudListing = true;
    QPointer<SandboxReconciler> self(this);
    m_ops.sbx().cloudList([self](const SbxResult &result, const QList<SbxCloudInfo> &rows) {
        if (!self)
            return;
        self->m_cloudListing = false;
        if (!result.ok) {
            qCWarning(lcSandbox).noquote() << "Docker's cloud did not answer `sbx --cloud ls`; cloud sandboxes are left as they are:"
                                           << result.error;
            return;
        }
        QHash<QString, SbxCloudInfo> byName;
        for (const SbxCloudInfo &row : rows)
            byName.insert(row.name, row);
        for (const SandboxRecord &r : self->m_ops.records().listCloud()) {
            if (self->m_creator->isCreating(r.id) || self->m_destroyer->isDestroying(r.id)
                || !self->m_ops.heldFor(r.id).isEmpty())
                continue;
            const auto it = byName.constFind(r.runtimeName);
            self->applyCloudRow(r, it == byName.constEnd() ? nullptr : &*it);
        }
        emit self->m_ops.sandboxesChanged();
    });
}

void SandboxReconciler::applyCloudRow(const SandboxRecord &r, const SbxCloudInfo *row)
{
    const qint64 now = m_ops.clock().nowMs();
    QString error;
    if (r.state == SandboxState::Creating) {
        // A create chat2sbx did not see to its end (it stopped meanwhile): what the cloud made goes.
        qCInfo(lcSandbox).noquote() << "cloud sandbox" << r.id << "was being created when chat2sbx stopped: removing it";
        m_ops.persist(r.id, SandboxState::Failed, QStringLiteral("chat2sbx stopped while it was being created in Docker's cloud"));
        if (row)
            m_ops.removeRuntime(r.runtimeName, [](bool, const QString &) {});
        return;
    }
    if (r.state != SandboxState::Running && r.state != SandboxState::Stopped)
        return;
    if (!row) {
        qCInfo(lcSandbox).noquote() << "cloud sandbox" << r.id << kGoneFromCloud;
        m_ops.markSessionsLost(r.id, kGoneFromCloud, now);
        m_ops.detach(r.id);
        m_ops.persist(r.id, SandboxState::Destroyed, kGoneFromCloud);
        return;
    }
    if (row->expiresAtMs > 0 && row->expiresAtMs != r.expiresAt && !m_ops.records().setExpiry(r.id, row->expiresAtMs, 0, error))
        qCWarning(lcSandbox).noquote() << error;
    if (r.state == SandboxState::Running && row->status == QLatin1String("stopped")) {
        m_ops.markSessionsLost(r.id, stopReasons::sessionLostStopped(), now);
        m_ops.detach(r.id);
        if (!m_ops.records().markStopped(r.id, now, kStoppedByCloud, now, error) && !error.isEmpty())
            qCWarning(lcSandbox).noquote() << error;
        return;
    }
    // Re-attached once by this process (after a restart); later a tool call opens the channel itself.
    if (r.state == SandboxState::Running && row->status == QLatin1String("running") && m_ops.attacher()
        && !m_cloudAttached.contains(r.id)) {
        m_cloudAttached.insert(r.id);
        m_attachQueue.append(m_ops.runningOf(r, std::nullopt));
        attachQueued();
    }
}

} // namespace chat2sbx
