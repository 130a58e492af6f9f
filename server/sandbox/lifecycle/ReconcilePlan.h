#pragma once

#include "state/SandboxRepository.h"

#include <QList>
#include <QSet>
#include <QString>

namespace chat2sbx {

// What start-up reconciliation knows of one sandbox record.
struct ReconcileRecord {
    QString id;
    QString runtimeName;
    SandboxState state = SandboxState::Creating;
    bool cloneWorkspace = false;   // its VM may hold the only copy of the user's work
    bool inFlight = false;         // this process is creating, destroying or holding it (SandboxService::holdStopped) right now
    bool unreachable = false;      // an earlier listing left its VM out (SandboxRecord::isUnreachable)
    bool failedAsVanished = false; // failed only because sbx stopped listing it (an older chat2sbx did that)
};

// One `sbx ls --json` row.
struct ReconcileRuntime {
    QString name;
    QString status;   // "running", "stopped", "creating", or whatever a newer sbx reports
};

struct ReconcileAction {
    enum Kind {
        Reattach,                // running record, runtime present and not stopped: attach its channel again
        MarkStopped,             // running record, runtime stopped (auto-stop while we were down): stopped, sessions lost
        FinishStop,              // stopped record whose VM runs (a sleep interrupted before `sbx stop`): stop it
        MarkUnreachable,         // running or stopped record that sbx does not list: unreachable, state kept, never removed
        Reachable,               // an unreachable record that sbx lists again (its state's own action follows)
        RecoverFailed,           // failed only because sbx did not list it (an older chat2sbx): its state back
        RemoveLeftover,          // failed record (a create or destroy that failed) whose runtime still exists: remove it
        KeepLeftover,            // the same, but a clone workspace: leave it (sandbox_destroy removes it)
        CleanInterruptedCreate,  // creating record from a previous run: failed, partial runtime removed
        FinishDestroy,           // destroying record from a previous run: finish it
        ReportUnknown,           // a runtime named like ours that no record owns: only reported
    };
    Kind kind;
    QString sandboxId;     // empty for ReportUnknown
    QString runtimeName;
    QString listedStatus;  // RecoverFailed: the status sbx lists its VM with; empty when it does not list it
};

// The decision part of reconciliation (records + `sbx ls` -> what to do), with no side effects.
// `ownedElsewhere`: runtime names other owners account for (the warm pool). Actions come in the
// order of the record kinds above, records oldest first, then unknown runtimes in `sbx ls` order.
// Nothing in it removes a runtime that holds a sandbox's work: `sbx rm` only for a create or destroy
// that failed or was interrupted (never because sbx answered wrong or left a sandbox out).
QList<ReconcileAction> planReconciliation(const QList<ReconcileRecord> &records, const QList<ReconcileRuntime> &runtimes,
                                          const QSet<QString> &ownedElsewhere, const QString &runtimePrefix);

int countActions(const QList<ReconcileAction> &plan, ReconcileAction::Kind kind);

} // namespace chat2sbx
