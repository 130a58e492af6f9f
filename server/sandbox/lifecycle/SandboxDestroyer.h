#pragma once

#include "sandbox/lifecycle/SandboxOutcome.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

namespace chat2sbx {

class DestroyGuard;
class SandboxReconciler;
class SandboxRuntimeOps;

// sandbox_destroy (and idle expiry, an interrupted destroy, workspace removal): the DestroyGuard keeps
// the sandbox's work first (nothing is destroyed when it cannot, unless forced), then the record is
// persisted as destroying, the channel closed, the runtime removed and the record destroyed (or
// failed, to be destroyed again). Idempotent; callers destroying the same sandbox wait for one run.
class SandboxDestroyer : public QObject {
    Q_OBJECT
public:
    SandboxDestroyer(SandboxRuntimeOps &ops, const SandboxReconciler &reconciler, QObject *parent = nullptr);

    // Asked before every destroy (and idle expiry) to keep the sandbox's work; see DestroyGuard.
    void setGuard(DestroyGuard *guard) { m_guard = guard; }
    // `reason` is kept on the destroyed record (e.g. idle expiry); empty for an explicit destroy.
    void destroy(const QString &sandboxId, SandboxDone done, const QString &reason = {}, bool force = false);
    bool isDestroying(const QString &sandboxId) const { return m_destroying.contains(sandboxId); }

signals:
    // The sandbox's work was saved on a host branch before it was destroyed (tray notification).
    void workKept(const QString &sandboxId, const QString &branch, const QString &summary);

private:
    void removeAfterGuard(const QString &sandboxId, const QString &reason, const QString &keptBranch, const QString &keptSummary);
    void finishDestroy(const QString &id, const SandboxOutcome &outcome);

    // Outlive this: SandboxService declares them first; the guard: Services (runtime/Services.h).
    SandboxRuntimeOps &m_ops;
    const SandboxReconciler &m_reconciler;
    DestroyGuard *m_guard = nullptr;
    QHash<QString, QList<SandboxDone>> m_destroying;   // sandbox id -> callers waiting for it
};

} // namespace chat2sbx
