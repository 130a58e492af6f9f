// WarmPool's rules: hand-over at once, replacement, the active limit, template change,
// a lowered target, adoption after a restart, and no leaked runtime after a kill -9 mid-create.
#include "RecordingAttacher.h"
#include "SandboxHarness.h"
#include "SandboxProcesses.h"

#include "sandbox/lifecycle/WarmPool.h"
#include "state/WarmSandboxRepository.h"

#include <QDir>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

// The harness plus a pool and an attacher, wired as the Controller does.
struct WarmStack {
    explicit WarmStack(TestEnvironment &env) : h(env)
    {
        h.sandboxes->setAttacher(&attacher);
        pool = std::make_unique<WarmPool>(h.config, h.db, *h.sbx, h.clock);
        pool->setAttacher(&attacher);
        pool->setRetryIntervalMs(200);
        h.sandboxes->setWarmPool(pool.get());
    }
    QList<WarmRecord> rows() { return WarmSandboxRepository(h.db).list(); }
    QStringList readyRuntimes()
    {
        QStringList out;
        for (const WarmRecord &r : rows())
            if (r.state == WarmState::Ready)
                out << r.runtimeName;
        return out;
    }
    bool waitReady(int n, int ms = 30000)
    {
        return waitFor([this, n] { return readyRuntimes().size() == n && pool->creatingCount() == 0; }, ms);
    }

    SandboxHarness h;
    RecordingAttacher attacher;
    std::unique_ptr<WarmPool> pool;
};

QJsonObject healthz(const TestEnvironment &env)
{
    const HttpResult r = httpRequest("GET", QStringLiteral("http://127.0.0.1:%1/healthz").arg(env.port()), {});
    return QJsonDocument::fromJson(r.body).object();
}

// A live `sbx create` process for this runtime (its arguments name it).
bool createRunning(const QString &runtime)
{
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList({QStringLiteral("[0-9]*")}, QDir::Dirs);
    for (const QString &pid : pids) {
        const QList<QByteArray> args = procFile(pid, "cmdline").split('\0');
        if (args.contains("create") && args.contains(runtime.toUtf8()) && !isGone(pid))
            return true;
    }
    return false;
}

} // namespace

class TestWarmPool : public QObject {
    Q_OBJECT
private slots:
    void handOverAnswersAtOnceAndIsReplaced();
    void memoryOrWorkspaceTakesTheColdPath();
    void neverHandedOverAtTheLimit();
    void templateChangeReplacesThem();
    void loweringTheTargetRemovesThem();
    void adoptedAfterRestartAndWokenOnHandOver();
    void noLeakAfterKill9MidCreate();
};

void TestWarmPool::handOverAnswersAtOnceAndIsReplaced()
{
    TestEnvironment env;
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("1"));
    WarmStack s(env);
    QVERIFY(s.h.reconcile());
    QVERIFY(s.waitReady(1));
    const QString warm = s.readyRuntimes().first();
    QVERIFY(s.h.runtimes().contains(warm));
    QCOMPARE(s.h.call(QStringLiteral("sandbox_list")).json().value(QStringLiteral("sandboxes")).toArray().size(), 0);

    const int createsBefore = s.h.countCalls(QStringLiteral("create"));
    auto r = s.h.start(QStringLiteral("sandbox_create"));
    QVERIFY2(r->finished, "a warm hand-over answers without waiting for anything");
    QVERIFY2(!r->result.isError, qPrintable(r->text()));
    QCOMPARE(r->json().value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    const QString id = r->json().value(QStringLiteral("sandbox_id")).toString();
    const auto record = s.h.records.find(id);
    QVERIFY(record);
    QCOMPARE(record->runtimeName, warm);
    QCOMPARE(s.h.countCalls(QStringLiteral("create")), createsBefore);
    QVERIFY(s.h.workspaces->find(record->workspaceId));
    QVERIFY(QFileInfo(s.h.workspaces->find(record->workspaceId)->hostPath).isDir());

    // A replacement is made in the background.
    QVERIFY(s.waitReady(1));
    QVERIFY(s.readyRuntimes().first() != warm);
    QCOMPARE(s.h.countCalls(QStringLiteral("create")), createsBefore + 1);
    QCOMPARE(s.h.call(QStringLiteral("sandbox_list")).json().value(QStringLiteral("sandboxes")).toArray().size(), 1);
    QVERIFY2(s.h.leaks.isEmpty(), qPrintable(s.h.leaks.join('\n')));
}

void TestWarmPool::memoryOrWorkspaceTakesTheColdPath()
{
    TestEnvironment env;
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("1"));
    WarmStack s(env);
    QVERIFY(s.h.reconcile());
    QVERIFY(s.waitReady(1));
    const QString warm = s.readyRuntimes().first();
    const CallResult r = s.h.call(QStringLiteral("sandbox_create"), {{QStringLiteral("memory"), QStringLiteral("512m")}});
    QVERIFY2(!r.result.isError, qPrintable(r.text()));
    const auto record = s.h.records.find(r.json().value(QStringLiteral("sandbox_id")).toString());
    QVERIFY(record && record->runtimeName != warm);
    QCOMPARE(s.readyRuntimes(), QStringList{warm});
}

void TestWarmPool::neverHandedOverAtTheLimit()
{
    TestEnvironment env;
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("1"));
    env.set(QStringLiteral("CHAT2SBX_MAX_ACTIVE_SANDBOXES"), QStringLiteral("1"));
    WarmStack s(env);
    QVERIFY(s.h.reconcile());
    QVERIFY(s.waitReady(1));
    QCOMPARE(s.h.sandboxes->countActive(), 0);   // warm ones do not count
    const CallResult first = s.h.call(QStringLiteral("sandbox_create"));
    QVERIFY2(!first.result.isError, qPrintable(first.text()));
    QVERIFY(s.waitReady(1));
    const QString replacement = s.readyRuntimes().first();

    const CallResult second = s.h.call(QStringLiteral("sandbox_create"));
    QVERIFY(second.result.isError);
    QVERIFY2(second.result.message.contains(QStringLiteral("maxActiveSandboxes")), qPrintable(second.text()));
    QCOMPARE(s.readyRuntimes(), QStringList{replacement});
    QCOMPARE(s.h.sandboxes->countActive(), 1);
}

void TestWarmPool::templateChangeReplacesThem()
{
    TestEnvironment env;
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("1"));
    WarmStack s(env);
    QVERIFY(s.h.reconcile());
    QVERIFY(s.waitReady(1));
    const WarmRecord old = s.rows().first();
    // What `chat2sbx setup` does after saving a rebuilt template.
    QString error;
    QVERIFY(WarmSandboxRepository(s.h.db).markAllStale(error));
    QVERIFY(s.readyRuntimes().isEmpty());
    QVERIFY2(s.h.call(QStringLiteral("sandbox_create")).json().value(QStringLiteral("sandbox_id")).isString(), "cold path");
    s.pool->maintain();
    QVERIFY(waitFor([&] { return !s.h.runtimes().contains(old.runtimeName); }, 30000));
    QVERIFY(s.waitReady(1));
    QVERIFY(s.readyRuntimes().first() != old.runtimeName);
    // The folder goes when `sbx rm` has returned, which may be a moment after `sbx ls` stopped listing it.
    QVERIFY(waitFor([&] { return !QFileInfo::exists(old.workspacePath); }, 10000));
}

void TestWarmPool::loweringTheTargetRemovesThem()
{
    TestEnvironment env;
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("2"));
    WarmStack s(env);
    QVERIFY(s.h.reconcile());
    QVERIFY(s.waitReady(2));
    const QList<WarmRecord> before = s.rows();
    s.pool->setTarget(0);
    QVERIFY(waitFor([&] { return s.rows().isEmpty(); }, 30000));
    for (const WarmRecord &r : before) {
        QVERIFY(!s.h.runtimes().contains(r.runtimeName));
        QVERIFY(!QFileInfo::exists(r.workspacePath));
    }
    QCOMPARE(s.attacher.detached.size(), 2);
}

void TestWarmPool::adoptedAfterRestartAndWokenOnHandOver()
{
    TestEnvironment env;
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("1"));
    QString warm;
    {
        WarmStack first(env);
        QVERIFY(first.h.reconcile());
        QVERIFY(first.waitReady(1));
        warm = first.readyRuntimes().first();
        first.h.sandboxes->reconciler().shutdown();
        QVERIFY(first.attacher.detached.size() == 1);
    }
    WarmStack second(env);
    const int createsBefore = second.h.countCalls(QStringLiteral("create"));
    QVERIFY(second.h.reconcile());
    QCOMPARE(second.readyRuntimes(), QStringList{warm});
    QVERIFY2(second.attacher.attached.isEmpty(), "adopted unattached: it may sleep");
    const CallResult r = second.h.call(QStringLiteral("sandbox_create"));
    QVERIFY2(!r.result.isError, qPrintable(r.text()));
    QCOMPARE(r.json().value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    QCOMPARE(second.h.records.find(r.json().value(QStringLiteral("sandbox_id")).toString())->runtimeName, warm);
    QVERIFY2(second.attacher.attachedRuntimes.contains(warm), "the hand-over attaches (wakes) it");
    QVERIFY(second.waitReady(1));
    QCOMPARE(second.h.countCalls(QStringLiteral("create")), createsBefore + 1);
}

void TestWarmPool::noLeakAfterKill9MidCreate()
{
    TestEnvironment env;
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("1"));
    env.set(QStringLiteral("FAKE_SBX_CREATE_DELAY_MS"), QStringLiteral("4000"));
    QString orphan;
    {
        ServerProcess serve(env);
        QVERIFY2(serve.start(), qPrintable(serve.output()));
        SandboxHarness look(env);
        // The row is written before `sbx create` runs: wait until the fake shows the runtime.
        QVERIFY(waitFor([&] { return !look.runtimes().isEmpty(); }, 20000));
        const QList<WarmRecord> rows = WarmSandboxRepository(look.db).list();
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows.first().state, WarmState::Creating);
        QCOMPARE(look.runtimes(), QStringList{rows.first().runtimeName});
        orphan = rows.first().runtimeName;
        serve.kill9();
    }
    // Next start without a pool: reconciliation removes the half-made one; nothing is left behind.
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
    env.set(QStringLiteral("FAKE_SBX_CREATE_DELAY_MS"), QStringLiteral("0"));
    ServerProcess serve(env);
    QVERIFY2(serve.start(), qPrintable(serve.output()));
    SandboxHarness look(env);
    QVERIFY2(waitFor([&] { return WarmSandboxRepository(look.db).list().isEmpty(); }, 20000), qPrintable(serve.output()));
    // The orphaned `sbx create` finishes its delay, finds its sandbox removed and gives up: wait for
    // that process to end, however long the machine takes, then look.
    QVERIFY2(waitFor([&] { return !createRunning(orphan); }, 60000), "the orphaned sbx create is still running");
    QCOMPARE(look.runtimes(), QStringList{});
    QCOMPARE(QDir(env.config().workspaceRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList{});
    QCOMPARE(healthz(env).value(QStringLiteral("warmSandboxes")).toInt(-1), 0);
    QCOMPARE(serve.terminate(), 0);
}

QTEST_GUILESS_MAIN(TestWarmPool)
#include "tst_warm_pool.moc"
