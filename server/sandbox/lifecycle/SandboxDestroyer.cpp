#include "sandbox/lifecycle/SandboxDestroyer.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "sandbox/lifecycle/DestroyGuard.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"

#include <QPointer>

namespace chat2sbx {

SandboxDestroyer::SandboxDestroyer(SandboxRuntimeOps &ops, const SandboxReconciler &reconciler, QObject *parent)
    : QObject(parent), m_ops(ops), m_reconciler(reconciler)
{
}

void SandboxDestroyer::destroy(const QString &sandboxId, SandboxDone done, const QString &reason, bool force)
{
    const auto r = m_ops.records().find(sandboxId);
    if (!r) {
        SandboxOutcome o;
        o.error = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        return done ? done(o) : void();
    }
    if (r->state == SandboxState::Destroyed) {
        SandboxOutcome o;
        o.ok = true;
        o.view = m_ops.viewOf(*r);
        return done ? done(o) : void();
    }
    if (const QString why = m_ops.heldFor(sandboxId); !why.isEmpty()) {
        SandboxOutcome o;
        o.error = QStringLiteral("sandbox %1 is %2 right now; destroy it once that is done").arg(sandboxId, why);
        return done ? done(o) : void();
    }
    if (m_destroying.contains(sandboxId)) {
        m_destroying[sandboxId].append(std::move(done));
        return;
    }
    if (!m_reconciler.isSbxAvailable()) {
        SandboxOutcome o;
        o.error = m_reconciler.unavailableError();
        return done ? done(o) : void();
    }
    m_destroying.insert(sandboxId, {std::move(done)});
    // A stopped sandbox's files are all there: the guard's first request wakes it to keep its work.
    if (!m_guard || (r->state != SandboxState::Running && r->state != SandboxState::Stopped))
        return removeAfterGuard(sandboxId, reason, {}, {});
    // Keep the work first (a clone sandbox's commits and edits become a host branch); the sandbox
    // stays running meanwhile, so a refusal leaves it exactly as it was.
    QPointer<SandboxDestroyer> self(this);
    m_guard->secureWork(m_ops.viewOf(*r), [self, sandboxId, reason, force](const DestroyGuard::Outcome &g) {
        if (!self)
            return;
        if (g.ok) {
            if (!g.branch.isEmpty()) {
                qCInfo(lcSandbox).noquote() << "sandbox" << sandboxId << ":" << g.summary;
                emit self->workKept(sandboxId, g.branch, g.summary);
            }
            return self->removeAfterGuard(sandboxId, reason, g.branch, g.branch.isEmpty() ? QString() : g.summary);
        }
        if (force) {
            qCWarning(lcSandbox).noquote() << "sandbox" << sandboxId << "destroyed with force although its work could not be kept:"
                                           << g.error;
            return self->removeAfterGuard(sandboxId, reason, {},
                                          QStringLiteral("its work could not be kept and was discarded (force): %1").arg(g.error));
        }
        qCWarning(lcSandbox).noquote() << "not destroying" << sandboxId << "because its work could not be kept:" << g.error;
        SandboxOutcome o;
        o.exportFailed = true;
        o.exportError = g.error;
        o.error = QStringLiteral("sandbox %1 was not destroyed: its work (commits and uncommitted changes in the clone) could not be "
                                 "saved to the host repository first: %2. Nothing was lost; fix the cause and try again, or call "
                                 "sandbox_destroy with force: true to discard that work")
                      .arg(sandboxId, g.error);
        if (const auto rec = self->m_ops.records().find(sandboxId))
            o.view = self->m_ops.viewOf(*rec);
        self->finishDestroy(sandboxId, o);
    });
}

void SandboxDestroyer::removeAfterGuard(const QString &sandboxId, const QString &reason, const QString &keptBranch,
                                      const QString &keptSummary)
{
    const auto r = m_ops.records().find(sandboxId);
    if (!r || r->state == SandboxState::Destroyed) {
        SandboxOutcome o;
        o.ok = r.has_value();
        o.error = r ? QString() : QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        if (r)
            o.view = m_ops.viewOf(*r);
        return finishDestroy(sandboxId, o);
    }
    QString recorded = reason;
    if (!keptSummary.isEmpty())
        recorded = recorded.isEmpty() ? keptSummary : recorded + QStringLiteral("; ") + keptSummary;
    m_ops.persist(sandboxId, SandboxState::Destroying, {});
    qCInfo(lcSandbox).noquote() << QStringLiteral("destroying %1%2").arg(sandboxId, reason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(reason));
    m_ops.detach(sandboxId);
    QPointer<SandboxDestroyer> self(this);
    m_ops.removeRuntime(r->runtimeName, [self, sandboxId, recorded, keptBranch, keptSummary](bool ok, const QString &error) {
        if (!self)
            return;
        SandboxOutcome o;
        o.keptBranch = keptBranch;
        o.keptSummary = keptSummary;
        if (ok) {
            QString dbError;
            self->m_ops.records().clearPorts(sandboxId, dbError);
            self->m_ops.persist(sandboxId, SandboxState::Destroyed, recorded);
            o.ok = true;
        } else {
            const QString why = QStringLiteral("destroying failed: %1").arg(error);
            self->m_ops.persist(sandboxId, SandboxState::Failed, why);
            o.error = QStringLiteral("sandbox %1 could not be destroyed: %2 (call sandbox_destroy again)").arg(sandboxId, error);
        }
        if (const auto rec = self->m_ops.records().find(sandboxId))
            o.view = self->m_ops.viewOf(*rec);
        self->finishDestroy(sandboxId, o);
    });
}

void SandboxDestroyer::finishDestroy(const QString &id, const SandboxOutcome &outcome)
{
    const QList<SandboxDone> waiters = m_destroying.take(id);
    for (const SandboxDone &d : waiters)
        if (d)
            d(outcome);
}

} // namespace chat2sbx
