// Start-up reconciliation in-process: after a "crash" (the service objects vanish without any
// clean-up), a new SandboxService over the same database and sbx state re-attaches live runtimes,
// keeps the ones `sbx ls` leaves out (unreachable, never removed), cleans up half-made creates, finishes interrupted destroys and reports
// unknown chat2sbx-* runtimes without touching them. Also the RuntimeAttacher contract on create.
#include "RecordingAttacher.h"
#include "SandboxHarness.h"

#include "core/Ids.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonArray>
#include <QTimer>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

bool runFake(const Config &c, const QStringList &args)
{
    return runProcess(c.sbxPath, args).exitCode == 0;
}

// What one start-up reconciliation cost: statements on the server's connection and sbx calls.
struct RestartCost {
    qint64 statements = -1;
    int sbxCalls = -1;
    int attaches = -1;
};

// A restart over `n` records whose VMs sbx lists with `status`, all recorded as running. The records
// and the fake's runtimes are written directly (no `sbx create`), so n costs nothing to set up.
RestartCost restartWith(int n, const QString &status)
{
    TestEnvironment env;
    {
        SandboxHarness a(env);
        const CallResult first = a.call("sandbox_create");
        if (first.result.isError)
            return {};
        const auto model = a.records.find(first.json().value("sandbox_id").toString());
        QString error;
        // the first one goes: only the n written below remain
        if (!a.records.setState(model->id, SandboxState::Destroyed, {}, a.clock.nowMs(), error)
            || !runFake(a.config, {"rm", "--force", model->runtimeName}))
            return {};
        for (int i = 0; i < n; ++i) {
            SandboxRecord r = *model;
            r.id = newId("sbx_");
            r.runtimeName = QStringLiteral("chat2sbx-") + randomHex(8);
            r.state = SandboxState::Running;
            bool limit = false;
            if (!a.records.insertWithinLimit(r, 0, limit, error))
                return {};
            const QString dir = env.sbxState() + "/sandboxes/" + r.runtimeName;
            QDir().mkpath(dir);
            QFile meta(dir + "/meta.json");
            if (!meta.open(QIODevice::WriteOnly))
                return {};
            meta.write(QJsonDocument(QJsonObject{{"name", r.runtimeName}, {"status", status},
                                                 {"workspace", env.root()}, {"ports", QJsonArray()}})
                           .toJson());
        }
    }
    SandboxHarness b(env);
    if (status == QLatin1String("stopped"))
        for (int i = 0; i < n; ++i)
            QTest::ignoreMessage(QtWarningMsg, QRegularExpression("stopped while chat2sbx was not running"));
    RecordingAttacher attacher;
    attacher.neverAnswer = true;   // only the first few attaches start: they are not what is counted
    b.sandboxes->setAttacher(&attacher);
    const int callsBefore = b.calls().size();
    RestartCost cost;
    b.db.countStatements(true);
    bool done = false;
    b.sandboxes->reconciler().reconcile([&] {
        cost.statements = b.db.statementsRun();
        done = true;
    });
    if (!waitFor([&] { return done; }, 30000))
        return {};
    b.db.countStatements(false);
    cost.sbxCalls = b.calls().size() - callsBefore;
    cost.attaches = attacher.attached.size();
    return cost;
}

} // namespace

class TestSandboxReconcile : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
    }

    void afterACrash()
    {
        TestEnvironment env;
        QStringList ids;
        QMap<QString, QString> runtimeOf;
        QString creatingId, creatingRuntime, destroyingId, destroyingRuntime;
        const QString stray = QStringLiteral("chat2sbx-") + randomHex(8);
        const QString ws = env.root() + "/plain";
        QDir().mkpath(ws);
        {
            SandboxHarness a(env);
            for (int i = 0; i < 4; ++i) {
                const CallResult c = a.call("sandbox_create");
                QVERIFY2(!c.result.isError, qPrintable(c.text()));
                const QString id = c.json().value("sandbox_id").toString();
                ids << id;
                runtimeOf[id] = a.records.find(id)->runtimeName;
            }
            // the 4th was being destroyed when the server died
            destroyingId = ids.takeLast();
            destroyingRuntime = runtimeOf[destroyingId];
            QString error;
            QVERIFY(a.records.setState(destroyingId, SandboxState::Destroying, {}, a.clock.nowMs(), error));
            // a create was half-way: `creating` persisted, the runtime half-made
            SandboxRecord half;
            half.id = creatingId = newId("sbx_");
            half.workspaceId = a.records.find(ids.first())->workspaceId;
            half.runtimeName = creatingRuntime = QStringLiteral("chat2sbx-") + randomHex(8);
            half.state = SandboxState::Creating;
            half.createdAt = half.updatedAt = half.lastActivityAt = a.clock.nowMs();
            bool limit = false;
            QVERIFY(a.records.insertWithinLimit(half, 0, limit, error));
            QVERIFY(runFake(a.config, {"create", "--quiet", "--name", creatingRuntime, "shell", ws}));
            // somebody else's runtime that looks like ours
            QVERIFY(runFake(a.config, {"create", "--quiet", "--name", stray, "shell", ws}));
            QCOMPARE(a.runtimes().size(), 6);
        }
        const int createsBefore = [&] { SandboxHarness probe(env); return probe.countCalls("create"); }();
        // the third sandbox's runtime vanished while nobody watched
        env.setSbxFaults({"FAKE_SBX_LS_HIDE=" + runtimeOf[ids.at(2)]});

        SandboxHarness b(env);
        RecordingAttacher attacher;
        attacher.answerAfterMs = 10;
        b.sandboxes->setAttacher(&attacher);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("is unreachable \\(kept as it is, never removed for this\\)"));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("was half-made when chat2sbx stopped"));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("runtime " + stray + " looks like chat2sbx's but no sandbox record owns it; left alone"));
        QElapsedTimer t;
        t.start();
        QVERIFY(b.reconcile());
        qInfo("reconciliation with 6 runtimes: %lld ms", t.elapsed());

        // re-attached: same ids, still running, the attacher saw them with their runtime names
        for (int i = 0; i < 2; ++i) {
            const auto r = b.records.find(ids.at(i));
            QCOMPARE(r->state, SandboxState::Running);
            QVERIFY(std::any_of(attacher.attached.begin(), attacher.attached.end(), [&](const RunningSandbox &s) {
                return s.sandboxId == ids.at(i) && s.runtimeName == runtimeOf[ids.at(i)] && s.managedWorkspace;
            }));
        }
        QCOMPARE(attacher.attached.size(), 2);
        // left out of the listing: unreachable, its state and its VM kept, with what is known of why
        const auto gone = b.records.find(ids.at(2));
        QCOMPARE(gone->state, SandboxState::Running);
        QVERIFY(gone->isUnreachable());
        QCOMPARE(gone->unreachableLists, 1);
        QVERIFY2(gone->unreachableWhy.contains("no longer lists this sandbox"), qPrintable(gone->unreachableWhy));
        QVERIFY(QFileInfo::exists(env.sbxState() + "/sandboxes/" + runtimeOf[ids.at(2)] + "/meta.json"));
        // half-made: failed, runtime removed
        QVERIFY(waitFor([&] { return !b.runtimes().contains(creatingRuntime); }, 10000));
        const auto half = b.records.find(creatingId);
        QCOMPARE(half->state, SandboxState::Failed);
        QVERIFY2(half->reason.contains("interrupted"), qPrintable(half->reason));
        // interrupted destroy: finished
        QVERIFY(waitFor([&] { return b.records.find(destroyingId)->state == SandboxState::Destroyed; }, 10000));
        QVERIFY(!b.runtimes().contains(destroyingRuntime));
        // the stranger is left alone
        QVERIFY(b.runtimes().contains(stray));
        // nothing was created again
        QCOMPARE(b.countCalls("create"), createsBefore);

        // the tools agree
        const CallResult l = b.call("sandbox_list");
        int running = 0, failed = 0, unreachable = 0;
        for (const QJsonValue &v : l.json().value("sandboxes").toArray()) {
            running += v.toObject().value("state").toString() == "running";
            failed += v.toObject().value("state").toString() == "failed";
            unreachable += v.toObject().contains("unreachable");
        }
        QCOMPARE(running, 3);
        QCOMPARE(failed, 1);
        QCOMPARE(unreachable, 1);
        // a tool call on it says so and what brings it back, and sbx is asked again
        RunningSandbox resolved;
        QString refused;
        QVERIFY(!b.sandboxes->resolveRunning(ids.at(2), resolved, refused));
        QVERIFY2(refused.contains("is unreachable") && refused.contains("Nothing was removed"), qPrintable(refused));
        QVERIFY(waitFor([&] { return b.records.find(ids.at(2))->unreachableLists == 2; }, 10000));
        // listed again: reachable, re-attached, nothing removed
        env.setSbxFaults({});
        QVERIFY(b.reconcile());
        QVERIFY(!b.records.find(ids.at(2))->isUnreachable());
        // (re-attached, or found stopped: the fake stops a VM nobody attached to after a few seconds)
        QVERIFY(waitFor([&] {
            return std::any_of(attacher.attached.begin(), attacher.attached.end(),
                               [&](const RunningSandbox &s) { return s.sandboxId == ids.at(2); })
                   || b.records.find(ids.at(2))->state == SandboxState::Stopped;
        }, 10000));
        QCOMPARE(b.countCalls("rm", runtimeOf[ids.at(2)]), 0);
        QVERIFY(waitFor([&] { return attacher.answered == attacher.attached.size(); }, 10000));
        QVERIFY2(b.leaks.isEmpty(), qPrintable(b.leaks.join('\n')));
        env.setSbxFaults({});
    }

    void reattachFailureKeepsTheSandbox()
    {
        TestEnvironment env;
        QString id;
        {
            SandboxHarness a(env);
            id = a.call("sandbox_create").json().value("sandbox_id").toString();
        }
        SandboxHarness b(env);
        RecordingAttacher attacher;
        attacher.answerAfterMs = 10;
        attacher.failAll = true;
        b.sandboxes->setAttacher(&attacher);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("re-attaching .* failed \\(it stays running\\)"));
        QVERIFY(b.reconcile());
        QVERIFY(waitFor([&] { return attacher.answered == 1; }, 5000));
        QCOMPARE(b.records.find(id)->state, SandboxState::Running);
    }

    // Start-up does not wait for re-attaches: a helper that never answers delays nothing, and at
    // most a few attaches run at once.
    void reconcileDoesNotWaitForReattaches()
    {
        TestEnvironment env;
        {
            SandboxHarness a(env);
            for (int i = 0; i < 6; ++i)
                QVERIFY(!a.call("sandbox_create").result.isError);
        }
        SandboxHarness b(env);
        RecordingAttacher attacher;
        attacher.answerAfterMs = 10;
        attacher.neverAnswer = true;
        b.sandboxes->setAttacher(&attacher);
        QElapsedTimer t;
        t.start();
        QVERIFY(b.reconcile(5000));
        QVERIFY2(t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(attacher.attached.size(), 4);
        const CallResult l = b.call("sandbox_list");
        QCOMPARE(l.json().value("sandboxes").toArray().size(), 6);
    }

    // A restart's work per record is bounded: with every VM running, the statements and sbx calls
    // do not grow with the records at all (one query loads them with their workspaces, one `sbx ls`
    // lists the VMs; re-attaches run later, a few at a time); with every VM found stopped, each record
    // costs the same few writes, so the work grows linearly (never faster), and the sbx calls still
    // not at all. Counts, not times: 10 and 20 records against none.
    void restartWorkIsLinear()
    {
        constexpr int kN = 10;
        for (const QString &status : {QStringLiteral("running"), QStringLiteral("stopped")}) {
            const RestartCost none = restartWith(0, status);
            const RestartCost some = restartWith(kN, status);
            const RestartCost twice = restartWith(2 * kN, status);
            qInfo("%s: statements %lld / %lld / %lld, sbx calls %d / %d / %d for 0 / %d / %d records", qPrintable(status),
                  none.statements, some.statements, twice.statements, none.sbxCalls, some.sbxCalls, twice.sbxCalls, kN,
                  2 * kN);
            QVERIFY(none.statements > 0 && some.statements > 0 && twice.statements > 0);
            // one `sbx ls`, whatever the number of records: nothing per record waits on sbx
            QCOMPARE(none.sbxCalls, 1);
            QCOMPARE(some.sbxCalls, 1);
            QCOMPARE(twice.sbxCalls, 1);
            if (status == QLatin1String("running")) {
                // the first re-attaches start at once (each reads its record); the rest wait for them
                QVERIFY(some.attaches > 0 && some.attaches < kN);
                QCOMPARE(twice.attaches, some.attaches);
                QVERIFY(some.statements - none.statements <= some.attaches);
                QCOMPARE(twice.statements, some.statements);
            } else {
                const qint64 perRecord = (some.statements - none.statements) / kN;
                QVERIFY2(perRecord >= 1 && perRecord <= 3, qPrintable(QString::number(perRecord)));
                QCOMPARE(twice.statements - some.statements, some.statements - none.statements);
                QCOMPARE(twice.attaches, 0);
            }
        }
    }

    void attacherOnCreate()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        RecordingAttacher attacher;
        attacher.answerAfterMs = 10;
        h.sandboxes->setAttacher(&attacher);
        const CallResult ok = h.call("sandbox_create");
        QVERIFY2(!ok.result.isError, qPrintable(ok.text()));
        QCOMPARE(attacher.attached.size(), 1);
        QCOMPARE(attacher.attached.at(0).sandboxId, ok.json().value("sandbox_id").toString());
        QVERIFY(attacher.attached.at(0).workspacePath.startsWith(h.config.workspaceRoot));
        QCOMPARE(h.countCalls("exec"), 0);   // the attacher replaces the plain health check

        attacher.failAll = true;
        const CallResult bad = h.call("sandbox_create");
        QVERIFY(bad.result.isError);
        QVERIFY2(bad.result.message.contains("channel refused on purpose"), qPrintable(bad.result.message));
        const QString badId = bad.json().value("sandbox_id").toString();
        QVERIFY(attacher.detached.contains(badId));
        QCOMPARE(h.records.find(badId)->state, SandboxState::Failed);
        QCOMPARE(h.runtimes().size(), 1);

        // destroy detaches first
        attacher.detached.clear();
        QVERIFY(!h.call("sandbox_destroy", QJsonObject{{"sandbox_id", ok.json().value("sandbox_id")}}).result.isError);
        QCOMPARE(attacher.detached, QStringList{ok.json().value("sandbox_id").toString()});
        // shutdown detaches what runs, and leaves it running
        const QString keep = h.call("sandbox_create", {}).json().value("sandbox_id").toString();
        attacher.failAll = false;
        const QString keep2 = h.call("sandbox_create", {}).json().value("sandbox_id").toString();
        attacher.detached.clear();
        h.sandboxes->reconciler().shutdown();
        QVERIFY(attacher.detached.contains(keep2));
        QCOMPARE(h.records.find(keep2)->state, SandboxState::Running);
        Q_UNUSED(keep);
    }

    void resolveRunningIsCheapAndRenews()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        const QString id = h.call("sandbox_create").json().value("sandbox_id").toString();
        RunningSandbox rs;
        QString error;
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < 1000; ++i)
            QVERIFY(h.sandboxes->resolveRunning(id, rs, error));
        qInfo("1000 resolveRunning calls: %lld ms", t.elapsed());
        const qint64 before = h.sandboxes->get(id)->record.idleDeadline;
        h.clock.advance(5000);
        QVERIFY(h.sandboxes->resolveRunning(id, rs, error));
        QCOMPARE(h.sandboxes->get(id)->record.idleDeadline, before + 5000);
        QVERIFY(!h.sandboxes->resolveRunning("sbx_000000000000000000000000", rs, error));
        QVERIFY(error.contains("unknown sandbox_id"));
    }
};

QTEST_GUILESS_MAIN(TestSandboxReconcile)
#include "tst_sandbox_reconcile.moc"
