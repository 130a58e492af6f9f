// The decision part of start-up reconciliation (sandbox/ReconcilePlan): records and `sbx ls` rows
// in, the list of actions out, one data row per situation.
#include "sandbox/lifecycle/ReconcilePlan.h"

#include <QtTest>

using namespace chat2sbx;

namespace {

using K = ReconcileAction;
const QString kPrefix = QStringLiteral("chat2sbx-");

// "<id>:<state>[:clone][:busy][:unreachable][:vanished]" -> a record whose runtime is chat2sbx-<id>
// (vanished: failed by an older chat2sbx because a listing left it out).
ReconcileRecord record(const QString &spec)
{
    const QStringList parts = spec.split(QLatin1Char(':'));
    ReconcileRecord r;
    r.id = parts.at(0);
    r.runtimeName = kPrefix + r.id;
    if (!parseSandboxState(parts.at(1), r.state))
        qFatal("bad state in test row: %s", qPrintable(spec));
    r.cloneWorkspace = parts.contains(QStringLiteral("clone"));
    r.inFlight = parts.contains(QStringLiteral("busy"));
    r.unreachable = parts.contains(QStringLiteral("unreachable"));
    r.failedAsVanished = parts.contains(QStringLiteral("vanished"));
    return r;
}

// "<name>:<status>"; a name without the prefix is taken as is when it starts with "other-".
ReconcileRuntime runtime(const QString &spec)
{
    const QStringList parts = spec.split(QLatin1Char(':'));
    const QString name = parts.at(0).startsWith(QLatin1String("other-")) ? parts.at(0) : kPrefix + parts.at(0);
    return {name, parts.value(1)};
}

QString kindName(K::Kind k)
{
    switch (k) {
    case K::Reattach: return QStringLiteral("reattach");
    case K::MarkStopped: return QStringLiteral("stopped");
    case K::FinishStop: return QStringLiteral("finish-stop");
    case K::MarkUnreachable: return QStringLiteral("unreachable");
    case K::Reachable: return QStringLiteral("reachable");
    case K::RecoverFailed: return QStringLiteral("recover");
    case K::RemoveLeftover: return QStringLiteral("remove-leftover");
    case K::KeepLeftover: return QStringLiteral("keep-leftover");
    case K::CleanInterruptedCreate: return QStringLiteral("clean-create");
    case K::FinishDestroy: return QStringLiteral("finish-destroy");
    case K::ReportUnknown: return QStringLiteral("unknown");
    }
    return {};
}

// "<kind> <sandbox id or runtime name>" per action.
QStringList describe(const QList<ReconcileAction> &plan)
{
    QStringList out;
    for (const ReconcileAction &a : plan)
        out << kindName(a.kind) + QLatin1Char(' ') + (a.sandboxId.isEmpty() ? a.runtimeName : a.sandboxId);
    return out;
}

} // namespace

class TestReconcilePlan : public QObject {
    Q_OBJECT
private slots:
    void plan_data()
    {
        QTest::addColumn<QStringList>("records");
        QTest::addColumn<QStringList>("runtimes");
        QTest::addColumn<QStringList>("ownedElsewhere");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("nothing") << QStringList{} << QStringList{} << QStringList{} << QStringList{};
        QTest::newRow("running record, runtime running")
            << QStringList{"a:running"} << QStringList{"a:running"} << QStringList{} << QStringList{"reattach a"};
        QTest::newRow("running record, runtime stopped while we were down")
            << QStringList{"a:running"} << QStringList{"a:stopped"} << QStringList{} << QStringList{"stopped a"};
        QTest::newRow("stopped record, runtime stopped: nothing to do")
            << QStringList{"s:stopped"} << QStringList{"s:stopped"} << QStringList{} << QStringList{};
        QTest::newRow("stopped record whose VM still runs (sleep interrupted before sbx stop)")
            << QStringList{"s:stopped"} << QStringList{"s:running"} << QStringList{} << QStringList{"finish-stop s"};
        QTest::newRow("stopped record, runtime missing")
            << QStringList{"s:stopped"} << QStringList{} << QStringList{} << QStringList{"unreachable s"};
        QTest::newRow("stopped record in a status sbx may add: left asleep")
            << QStringList{"s:stopped"} << QStringList{"s:unresponsive"} << QStringList{} << QStringList{};
        QTest::newRow("stopped record a job holds (a restore between rm and create): left to it")
            << QStringList{"s:stopped:busy"} << QStringList{} << QStringList{} << QStringList{};
        QTest::newRow("stopped record a job holds, its new VM running: left to it")
            << QStringList{"s:stopped:busy"} << QStringList{"s:running"} << QStringList{} << QStringList{};
        QTest::newRow("running record, runtime missing")
            << QStringList{"a:running"} << QStringList{} << QStringList{} << QStringList{"unreachable a"};
        QTest::newRow("running record, runtime in a status sbx may add")
            << QStringList{"a:running"} << QStringList{"a:unresponsive"} << QStringList{} << QStringList{"reattach a"};
        QTest::newRow("every record missing from an empty listing: all unreachable, nothing removed")
            << QStringList{"a:running", "s:stopped", "k:running:clone"} << QStringList{} << QStringList{}
            << QStringList{"unreachable a", "unreachable k", "unreachable s"};
        QTest::newRow("unreachable running record listed again: reachable, then re-attached")
            << QStringList{"a:running:unreachable"} << QStringList{"a:running"} << QStringList{}
            << QStringList{"reachable a", "reattach a"};
        QTest::newRow("unreachable stopped record listed again: reachable, left asleep")
            << QStringList{"s:stopped:unreachable"} << QStringList{"s:stopped"} << QStringList{} << QStringList{"reachable s"};
        QTest::newRow("unreachable record still missing: counted again")
            << QStringList{"a:running:unreachable"} << QStringList{} << QStringList{} << QStringList{"unreachable a"};
        QTest::newRow("failed by an older version because a listing left it out, listed: recovered, never removed")
            << QStringList{"f:failed:vanished"} << QStringList{"f:running"} << QStringList{} << QStringList{"recover f"};
        QTest::newRow("failed by an older version because a listing left it out, still missing: recovered as unreachable")
            << QStringList{"f:failed:vanished"} << QStringList{} << QStringList{} << QStringList{"recover f"};
        QTest::newRow("runtime of ours without a record")
            << QStringList{} << QStringList{"zz:running"} << QStringList{} << QStringList{"unknown chat2sbx-zz"};
        QTest::newRow("runtime of ours owned by the warm pool")
            << QStringList{} << QStringList{"w1:stopped"} << QStringList{"chat2sbx-w1"} << QStringList{};
        QTest::newRow("someone else's runtime is not ours to report")
            << QStringList{} << QStringList{"other-vm:running"} << QStringList{} << QStringList{};
        QTest::newRow("runtime of a destroyed record is unknown")
            << QStringList{"d:destroyed"} << QStringList{"d:running"} << QStringList{} << QStringList{"unknown chat2sbx-d"};
        QTest::newRow("failed record with its runtime: removed")
            << QStringList{"f:failed"} << QStringList{"f:running"} << QStringList{} << QStringList{"remove-leftover f"};
        QTest::newRow("failed clone record with its runtime: kept for its work")
            << QStringList{"f:failed:clone"} << QStringList{"f:stopped"} << QStringList{} << QStringList{"keep-leftover f"};
        QTest::newRow("failed record without runtime: nothing")
            << QStringList{"f:failed"} << QStringList{} << QStringList{} << QStringList{};
        QTest::newRow("failed record this process is working on: left to it")
            << QStringList{"f:failed:busy"} << QStringList{"f:running"} << QStringList{} << QStringList{};
        QTest::newRow("creating record from a previous run")
            << QStringList{"c:creating"} << QStringList{"c:creating"} << QStringList{} << QStringList{"clean-create c"};
        QTest::newRow("creating record of this process")
            << QStringList{"c:creating:busy"} << QStringList{} << QStringList{} << QStringList{};
        QTest::newRow("destroying record from a previous run")
            << QStringList{"x:destroying"} << QStringList{"x:running"} << QStringList{} << QStringList{"finish-destroy x"};
        QTest::newRow("destroying record of this process")
            << QStringList{"x:destroying:busy"} << QStringList{} << QStringList{} << QStringList{};
        QTest::newRow("everything at once, in order")
            << QStringList{"x:destroying", "c:creating", "f:failed", "a:running", "b:running", "s:stopped", "t:running"}
            << QStringList{"a:running", "f:running", "zz:running", "x:running", "s:running", "t:stopped"} << QStringList{}
            << QStringList{"reattach a", "unreachable b", "stopped t", "finish-stop s", "remove-leftover f", "clean-create c",
                           "finish-destroy x", "unknown chat2sbx-zz"};
    }

    void plan()
    {
        QFETCH(QStringList, records);
        QFETCH(QStringList, runtimes);
        QFETCH(QStringList, ownedElsewhere);
        QFETCH(QStringList, expected);
        QList<ReconcileRecord> recs;
        for (const QString &r : records)
            recs << record(r);
        QList<ReconcileRuntime> rts;
        for (const QString &r : runtimes)
            rts << runtime(r);
        const QSet<QString> owned(ownedElsewhere.begin(), ownedElsewhere.end());
        QCOMPARE(describe(planReconciliation(recs, rts, owned, kPrefix)), expected);
    }

    void recoverCarriesTheListedStatus()
    {
        const QList<ReconcileAction> plan = planReconciliation({record("f:failed:vanished"), record("g:failed:vanished")},
                                                               {runtime("f:stopped")}, {}, kPrefix);
        QCOMPARE(plan.size(), 2);
        QCOMPARE(plan.at(0).listedStatus, QStringLiteral("stopped"));
        QCOMPARE(plan.at(1).listedStatus, QString());
    }

    void counts()
    {
        const QList<ReconcileAction> plan = planReconciliation({record("a:running"), record("b:running")}, {runtime("a:running")},
                                                               {}, kPrefix);
        QCOMPARE(countActions(plan, K::Reattach), 1);
        QCOMPARE(countActions(plan, K::MarkUnreachable), 1);
        QCOMPARE(countActions(plan, K::ReportUnknown), 0);
    }
};

QTEST_APPLESS_MAIN(TestReconcilePlan)
#include "tst_reconcile_plan.moc"
