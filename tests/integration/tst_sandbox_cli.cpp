// `chat2sbx setup`, `sandbox list [--json]` and `sandbox destroy <id>` against the fake sbx.
#include "SandboxHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestSandboxCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
    }

    void setupWithoutSbx()
    {
        TestEnvironment env;
        env.set("CHAT2SBX_SBX", env.root() + "/nowhere/sbx");
        const CliResult r = runCli(env, {"setup"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith("chat2sbx: sbx is not installed or not working"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.out.contains("[1/7] Checking sbx"));
    }

    void setupBuildsTheTemplateOnce()
    {
        TestEnvironment env;
        SandboxHarness observer(env);
        pointFakeSbxAt(env, false);
        env.set("FAKE_SBX_TEMPLATES", "");   // empty: none (TestEnvironment pins one by default)
        // a slow save (a multi-GB image) is reported while it runs
        env.setSbxFaults({"FAKE_SBX_SLOW_TEMPLATE_SAVE=700"});
        env.set("CHAT2SBX_SETUP_PROGRESS_MS", "200");
        const CliResult r = runCli(env, {"setup"}, 60000);
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        for (const char *step : {"[1/7]", "[2/7]", "[3/7]", "[4/7]", "[5/7]", "[6/7]", "[7/7]", "setup complete",
                                 "found: sbx v0.47.0", "still working"})
            QVERIFY2(r.out.contains(step), step);
        QVERIFY(r.out.contains(pinnedTemplate().toUtf8()));

        // sbx-contract.md: the builder is stopped before `template save` (the real CLI refuses to
        // save a running sandbox when it cannot prompt)
        QStringList create, exec, save, rm, stop;
        int stopIndex = -1, saveIndex = -1, index = 0;
        for (const QStringList &c : observer.calls()) {
            if (c.first() == "create") create = c;
            if (c.first() == "exec") exec = c;
            if (c.value(0) == "template" && c.value(1) == "save") { save = c; saveIndex = index; }
            if (c.first() == "stop") { stop = c; stopIndex = index; }
            if (c.first() == "rm") rm = c;
            ++index;
        }
        QVERIFY(stopIndex >= 0 && stopIndex < saveIndex);
        QVERIFY2(!create.isEmpty() && !create.contains("--template"), qPrintable(create.join(' ')));
        const QString builder = create.at(create.indexOf("--name") + 1);
        QVERIFY(builder.startsWith("chat2sbx-setup-"));
        QCOMPARE(exec.mid(0, 4), (QStringList{"exec", "-u", "root", builder}));
        QCOMPARE(save, (QStringList{"template", "save", builder, pinnedTemplate()}));
        QCOMPARE(stop, (QStringList{"stop", builder}));
        QCOMPARE(rm, (QStringList{"rm", "--force", builder}));
        QVERIFY(observer.runtimes().isEmpty());
        QCOMPARE(observer.calls().first(), (QStringList{"version", "--json"}));

        // idempotent: the second run only looks
        const int calls = static_cast<int>(observer.calls().size());
        const CliResult again = runCli(env, {"setup"});
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QVERIFY(again.out.contains("nothing to do"));
        QCOMPARE(observer.calls().size(), calls + 2);   // version + template ls

        // and the server can create from it
        const CallResult c = observer.call("sandbox_create");
        QVERIFY2(!c.result.isError, qPrintable(c.text()));
    }

    void setupFailureRemovesTheBuilder()
    {
        TestEnvironment env;
        SandboxHarness observer(env);
        pointFakeSbxAt(env, false);
        env.set("FAKE_SBX_TEMPLATES", "");
        env.setSbxFaults({"FAKE_SBX_FAIL_TEMPLATE_SAVE=no space left for the template"});
        const CliResult r = runCli(env, {"setup"}, 60000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no space left for the template"), r.err.constData());
        QVERIFY(observer.runtimes().isEmpty());
        QCOMPARE(observer.countCalls("rm"), 1);
    }

    // sbx-contract.md, behaviour 2: sign-in and a network policy come first; setup names the command.
    void setupPreflight_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QString>("command");
        QTest::addColumn<int>("creates");
        QTest::newRow("not signed in") << "FAKE_SBX_NOT_SIGNED_IN=1" << "`sbx login`" << 0;
        QTest::newRow("no network policy") << "FAKE_SBX_NO_POLICY=1" << "`sbx policy init balanced`" << 1;
    }
    void setupPreflight()
    {
        QFETCH(QString, fault);
        QFETCH(QString, command);
        QFETCH(int, creates);
        TestEnvironment env;
        SandboxHarness observer(env);
        pointFakeSbxAt(env, false);
        env.set("FAKE_SBX_TEMPLATES", "");
        env.setSbxFaults({fault});
        const CliResult r = runCli(env, {"setup"}, 60000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(command.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains("then run `chat2sbx setup` again"), r.err.constData());
        QCOMPARE(observer.countCalls("create"), creates);
        QCOMPARE(observer.countCalls("template"), 1);   // template ls only: nothing saved
        env.setSbxFaults({});
        QVERIFY(observer.runtimes().isEmpty());   // no builder left behind
        // after the user ran the command, setup just works
        const CliResult again = runCli(env, {"setup"}, 60000);
        QVERIFY2(again.exitCode == 0, (again.out + again.err).constData());
        QVERIFY(observer.runtimes().isEmpty());
    }

    // sbx-contract.md, behaviour 6: v0.43 or newer, and setup says which version it found.
    void setupVersionFloor_data()
    {
        QTest::addColumn<QString>("version");
        QTest::newRow("0.42 (has --json)") << "v0.42.1";
        QTest::newRow("0.40 (no --json)") << "0.40.0";
    }
    void setupVersionFloor()
    {
        QFETCH(QString, version);
        TestEnvironment env;
        SandboxHarness observer(env);
        pointFakeSbxAt(env, false);
        env.setSbxFaults({"FAKE_SBX_VERSION=" + version});
        const CliResult r = runCli(env, {"setup"}, 60000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(("sbx " + version + " is too old").toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains("needs v0.43 or newer"), r.err.constData());
        QCOMPARE(observer.countCalls("create"), 0);
        env.setSbxFaults({"FAKE_SBX_VERSION=v0.43.0"});
        const CliResult ok = runCli(env, {"setup"}, 60000);
        QVERIFY2(ok.exitCode == 0, (ok.out + ok.err).constData());
    }

    void listAndDestroy()
    {
        TestEnvironment env;
        QString running, failed;
        {
            SandboxHarness h(env);
            running = h.call("sandbox_create").json().value("sandbox_id").toString();
            env.setSbxFaults({"FAKE_SBX_FAIL_CREATE=quota exceeded on purpose"});
            failed = h.call("sandbox_create").json().value("sandbox_id").toString();
            env.setSbxFaults({});
        }
        CliResult r = runCli(env, {"sandbox", "list"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(running.toUtf8()) && r.out.contains(failed.toUtf8()));
        QVERIFY(r.out.contains("quota exceeded on purpose"));
        r = runCli(env, {"sandbox", "list", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(r.out).object().value("sandboxes").toArray();
        QCOMPARE(rows.size(), 2);

        r = runCli(env, {"sandbox", "destroy", running});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("destroyed"));
        r = runCli(env, {"sandbox", "destroy", running});
        QCOMPARE(r.exitCode, 0);
        r = runCli(env, {"sandbox", "destroy", failed});
        QCOMPARE(r.exitCode, 0);
        r = runCli(env, {"sandbox", "list"});
        QVERIFY(r.out.contains("no sandboxes"));
        SandboxHarness after(env);
        QVERIFY(after.runtimes().isEmpty());

        r = runCli(env, {"sandbox", "destroy", "sbx_000000000000000000000000"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("unknown sandbox_id"));
        r = runCli(env, {"sandbox", "destroy", "chat2sbx-abc"});
        QCOMPARE(r.exitCode, 1);
        r = runCli(env, {"sandbox", "destroy"});
        QCOMPARE(r.exitCode, 2);   // usage error
    }
};

QTEST_GUILESS_MAIN(TestSandboxCli)
#include "tst_sandbox_cli.moc"
