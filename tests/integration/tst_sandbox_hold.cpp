// SandboxService::holdStopped, what a job on a sandbox's VM (a checkpoint's `sbx template save`)
// stands on: a running sandbox is stopped (recorded first, then `sbx stop`), and while held a tool
// call does not wake it, destroy and sleep leave it alone and a second hold is refused; once
// released, the next tool call wakes it as usual. Against the fake sbx, whose `template save`
// refuses a running VM.
#include "SandboxHarness.h"

#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

struct Held {
    bool done = false, ok = false;
    QString error, runtime;
};

Held holdAndWait(SandboxService &sandboxes, const QString &id)
{
    auto held = std::make_shared<Held>();
    sandboxes.holdStopped(id, QStringLiteral("being checkpointed"), [held](bool ok, const QString &error, const QString &runtime) {
        *held = {true, ok, error, runtime};
    });
    waitFor([held] { return held->done; }, scaled(30000));
    return *held;
}

} // namespace

class TestSandboxHold : public QObject {
    Q_OBJECT
private slots:
    void aHeldSandboxStaysStoppedUntilReleased()
    {
        TestEnvironment env;
        env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
        SandboxHarness h(env);
        QVERIFY(h.opened);
        QVERIFY(h.reconcile());
        const CallResult created = h.call(QStringLiteral("sandbox_create"), {}, scaled(60000));
        QVERIFY2(created.finished && !created.result.isError, qPrintable(created.text()));
        const QString id = created.json().value(QStringLiteral("sandbox_id")).toString();
        const QString runtime = h.sandboxes->get(id)->record.runtimeName;
        QCOMPARE(fakeSandboxStatus(env, runtime), QStringLiteral("running"));
        QVERIFY(runFakeSbx(env, {QStringLiteral("template"), QStringLiteral("save"), runtime, QStringLiteral("chat2sbx-checkpoint:ckp_t0")})
                    .exitCode != 0);   // a running VM cannot be saved

        const Held held = holdAndWait(*h.sandboxes, id);
        QVERIFY2(held.done && held.ok, qPrintable(held.error));
        QCOMPARE(held.runtime, runtime);
        QCOMPARE(h.sandboxes->get(id)->record.state, SandboxState::Stopped);
        QCOMPARE(fakeSandboxStatus(env, runtime), QStringLiteral("stopped"));
        QCOMPARE(h.sandboxes->heldFor(id), QStringLiteral("being checkpointed"));
        const CliResult saved = runFakeSbx(env, {QStringLiteral("template"), QStringLiteral("save"), runtime,
                                                 QStringLiteral("chat2sbx-checkpoint:ckp_t1")});
        QVERIFY2(saved.exitCode == 0, saved.err.constData());

        // Held: no wake, no destroy, no second hold, no sleep.
        RunningSandbox running;
        QString error;
        QVERIFY(!h.sandboxes->resolveRunning(id, running, error));
        QVERIFY2(error.contains(QStringLiteral("being checkpointed")), qPrintable(error));
        QCOMPARE(h.sandboxes->get(id)->record.state, SandboxState::Stopped);
        const CallResult destroyed = h.call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("force"), true}});
        QVERIFY2(destroyed.result.isError && destroyed.text().contains(QStringLiteral("being checkpointed")), qPrintable(destroyed.text()));
        QVERIFY(h.runtimes().contains(runtime));
        const Held twice = holdAndWait(*h.sandboxes, id);
        QVERIFY(twice.done && !twice.ok && twice.error.contains(QStringLiteral("already")));
        QVERIFY(!h.sandboxes->sleeper().putToSleep(id));

        // Released: the next tool call wakes it.
        h.sandboxes->release(id);
        QVERIFY2(h.sandboxes->resolveRunning(id, running, error), qPrintable(error));
        QVERIFY(running.wokeFromSleep);
        QCOMPARE(h.sandboxes->get(id)->record.state, SandboxState::Running);

        // A sleeping sandbox can be held too; an unknown one cannot.
        QVERIFY(h.sandboxes->sleeper().putToSleep(id));
        const Held asleep = holdAndWait(*h.sandboxes, id);
        QVERIFY2(asleep.ok, qPrintable(asleep.error));
        h.sandboxes->release(id);
        const Held unknown = holdAndWait(*h.sandboxes, QStringLiteral("sbx_000000000000000000000000"));
        QVERIFY(!unknown.ok && unknown.error.contains(QStringLiteral("unknown sandbox_id")));
        QVERIFY(h.leaks.isEmpty());
    }
};

QTEST_MAIN(TestSandboxHold)
#include "tst_sandbox_hold.moc"
