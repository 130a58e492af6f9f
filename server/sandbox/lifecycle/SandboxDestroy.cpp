#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/lifecycle/DestroyGuard.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QPointer>

namespace chat2sbx {

// ---- destroy --------------------------------------------------------------------------------------

void SandboxService::removeRuntime(const QString &runtimeName, std::function<void(bool, const QString &)> done)
{
    if (runtimeName.isEmpty())
        return done(true, {});
    QPointer<SandboxService> self(this);
    m_sbx.remove(runtimeName, [self, runtimeName, done](const SbxResult &r) {
        if (!self)
            return;
        if (r.ok)
            return done(true, {});
        // `rm` of a runtime that is already gone may fail; what counts is that `sbx ls` lacks it.
        self->m_sbx.list([runtimeName, done, rmError = r.error](const SbxResult &lr, const QList<SbxRuntimeInfo> &items) {
            if (!lr.ok)
                return done(false, rmError);
            for (const SbxRuntimeInfo &i : items)
                if (i.name == runtimeName)
                    return done(false, rmError);
            done(true, {});
        });
    });
}

void SandboxService::destroy(const QString &sandboxId, Done done, const QString &reason, bool force)
{
    const auto r = m_repo.find(sandboxId);
    if (!r) {
        Outcome o;
        o.error = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        return done ? done(o) : void();
    }
    if (r->state == SandboxState::Destroyed) {
        Outcome o;
        o.ok = true;
        o.view = viewOf(*r);
        return done ? done(o) : void();
    }
    if (m_destroying.contains(sandboxId)) {
        m_destroying[sandboxId].append(std::move(done));
        return;
    }
    if (!m_available) {
        Outcome o;
        o.error = QStringLiteral("sbx is not available: %1").arg(m_unavailableReason);
        return done ? done(o) : void();
    }
    m_destroying.insert(sandboxId, {std::move(done)});
    // A stopped sandbox's files are all there: the guard's first request wakes it to keep its work.
    if (!m_guard || (r->state != SandboxState::Running && r->state != SandboxState::Stopped))
        return removeAfterGuard(sandboxId, reason, {}, {});
    // Keep the work first (a clone sandbox's commits and edits become a host branch); the sandbox
    // stays running meanwhile, so a refusal leaves it exactly as it was.
    QPointer<SandboxService> self(this);
    m_guard->secureWork(viewOf(*r), [self, sandboxId, reason, force](const DestroyGuard::Outcome &g) {
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
        Outcome o;
        o.exportFailed = true;
        o.exportError = g.error;
        o.error = QStringLiteral("sandbox %1 was not destroyed: its work (commits and uncommitted changes in the clone) could not be "
                                 "saved to the host repository first: %2. Nothing was lost; fix the cause and try again, or call "
                                 "sandbox_destroy with force: true to discard that work")
                      .arg(sandboxId, g.error);
        if (const auto rec = self->m_repo.find(sandboxId))
            o.view = self->viewOf(*rec);
        self->finishDestroy(sandboxId, o);
    });
}

void SandboxService::removeAfterGuard(const QString &sandboxId, const QString &reason, const QString &keptBranch,
                                      const QString &keptSummary)
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state == SandboxState::Destroyed) {
        Outcome o;
        o.ok = r.has_value();
        o.error = r ? QString() : QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        if (r)
            o.view = viewOf(*r);
        return finishDestroy(sandboxId, o);
    }
    QString recorded = reason;
    if (!keptSummary.isEmpty())
        recorded = recorded.isEmpty() ? keptSummary : recorded + QStringLiteral("; ") + keptSummary;
    persist(sandboxId, SandboxState::Destroying, {});
    qCInfo(lcSandbox).noquote() << QStringLiteral("destroying %1%2").arg(sandboxId, reason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(reason));
    if (m_attacher)
        m_attacher->detach(sandboxId);
    QPointer<SandboxService> self(this);
    removeRuntime(r->runtimeName, [self, sandboxId, recorded, keptBranch, keptSummary](bool ok, const QString &error) {
        if (!self)
            return;
        Outcome o;
        o.keptBranch = keptBranch;
        o.keptSummary = keptSummary;
        if (ok) {
            QString dbError;
            self->m_repo.clearPorts(sandboxId, dbError);
            self->persist(sandboxId, SandboxState::Destroyed, recorded);
            o.ok = true;
        } else {
            const QString why = QStringLiteral("destroying failed: %1").arg(error);
            self->persist(sandboxId, SandboxState::Failed, why);
            o.error = QStringLiteral("sandbox %1 could not be destroyed: %2 (call sandbox_destroy again)").arg(sandboxId, error);
        }
        if (const auto rec = self->m_repo.find(sandboxId))
            o.view = self->viewOf(*rec);
        self->finishDestroy(sandboxId, o);
    });
}

void SandboxService::finishDestroy(const QString &id, const Outcome &outcome)
{
    const QList<Done> waiters = m_destroying.take(id);
    for (const Done &d : waiters)
        if (d)
            d(outcome);
}

} // namespace chat2sbx
