#include "sandbox/lifecycle/ReconcilePlan.h"

#include <QHash>

namespace chat2sbx {

QList<ReconcileAction> planReconciliation(const QList<ReconcileRecord> &records, const QList<ReconcileRuntime> &runtimes,
                                          const QSet<QString> &ownedElsewhere, const QString &runtimePrefix)
{
    QHash<QString, QString> statusOf;
    for (const ReconcileRuntime &r : runtimes)
        statusOf.insert(r.name, r.status);
    QList<ReconcileAction> plan;
    auto add = [&plan](ReconcileAction::Kind kind, const ReconcileRecord &r) {
        plan.append({kind, r.id, r.runtimeName, {}});
    };
    auto pass = [&](SandboxState state, auto decide) {
        for (const ReconcileRecord &r : records)
            if (r.state == state)
                decide(r);
    };

    const QString stopped = QStringLiteral("stopped");
    // A sandbox sbx does not list is unreachable, not gone: sbx leaves sandboxes out of `sbx ls` when
    // its session expired or its daemon lost the executor, and lists them again later.
    auto listed = [&](const ReconcileRecord &r) {
        if (!statusOf.contains(r.runtimeName)) {
            add(ReconcileAction::MarkUnreachable, r);
            return false;
        }
        if (r.unreachable)
            add(ReconcileAction::Reachable, r);
        return true;
    };
    // A sandbox a job holds (a checkpoint, a restore between `sbx rm` and `sbx create`) is the job's.
    pass(SandboxState::Running, [&](const ReconcileRecord &r) {
        if (r.inFlight || !listed(r))
            return;
        add(statusOf.value(r.runtimeName) == stopped ? ReconcileAction::MarkStopped : ReconcileAction::Reattach, r);
    });
    pass(SandboxState::Stopped, [&](const ReconcileRecord &r) {
        if (r.inFlight || !listed(r))
            return;
        if (statusOf.value(r.runtimeName) == QLatin1String("running"))
            add(ReconcileAction::FinishStop, r);
    });
    pass(SandboxState::Failed, [&](const ReconcileRecord &r) {
        if (r.inFlight)
            return;
        // Marked failed by an older chat2sbx only because a listing left it out: its state comes back
        // (unreachable still when sbx does not list it now).
        if (r.failedAsVanished) {
            plan.append({ReconcileAction::RecoverFailed, r.id, r.runtimeName, statusOf.value(r.runtimeName)});
            return;
        }
        // A create or destroy that failed, whose runtime sbx still lists: a create that went on after
        // we stopped (an orphaned `sbx create` finishing late), or a clean-up that did not finish.
        // Converge: remove it, unless the VM may hold the only copy of the user's work (a clone workspace).
        if (statusOf.contains(r.runtimeName))
            add(r.cloneWorkspace ? ReconcileAction::KeepLeftover : ReconcileAction::RemoveLeftover, r);
    });
    pass(SandboxState::Creating, [&](const ReconcileRecord &r) {
        if (!r.inFlight)
            add(ReconcileAction::CleanInterruptedCreate, r);
    });
    pass(SandboxState::Destroying, [&](const ReconcileRecord &r) {
        if (!r.inFlight)
            add(ReconcileAction::FinishDestroy, r);   // the record says it was to go
    });

    QSet<QString> known = ownedElsewhere;
    for (const ReconcileRecord &r : records)
        if (r.state != SandboxState::Destroyed)
            known.insert(r.runtimeName);
    for (const ReconcileRuntime &rt : runtimes)
        if (rt.name.startsWith(runtimePrefix) && !known.contains(rt.name))
            plan.append({ReconcileAction::ReportUnknown, {}, rt.name, {}});
    return plan;
}

int countActions(const QList<ReconcileAction> &plan, ReconcileAction::Kind kind)
{
    int n = 0;
    for (const ReconcileAction &a : plan)
        n += a.kind == kind ? 1 : 0;
    return n;
}

} // namespace chat2sbx
