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
        QVERIFY(r.out.contains("[1/6] Checking sbx"));
    }

    void setupBuildsTheTemplateOnce()
    {
        TestEnvironment env;
        SandboxHarness observer(env);
        pointFakeSbxAt(env, false);
        env.set("FAKE_SBX_TEMPLATES", "");   // empty: none (TestEnvironment pins one by default)
        const CliResult r = runCli(env, {"setup"}, 60000);
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        for (const char *step : {"[1/6]", "[2/6]", "[3/6]", "[4/6]", "[5/6]", "[6/6]", "setup complete"})
            QVERIFY2(r.out.contains(step), step);
        QVERIFY(r.out.contains(pinnedTemplate().toUtf8()));

        QStringList create, exec, save, rm;
        for (const QStringList &c : observer.calls()) {
            if (c.first() == "create") create = c;
            if (c.first() == "exec") exec = c;
            if (c.value(0) == "template" && c.value(1) == "save") save = c;
            if (c.first() == "rm") rm = c;
        }
        QVERIFY2(!create.isEmpty() && !create.contains("--template"), qPrintable(create.join(' ')));
        const QString builder = create.at(create.indexOf("--name") + 1);
        QVERIFY(builder.startsWith("chat2sbx-setup-"));
        QCOMPARE(exec.mid(0, 4), (QStringList{"exec", "-u", "root", builder}));
        QCOMPARE(save, (QStringList{"template", "save", builder, pinnedTemplate()}));
        QCOMPARE(rm, (QStringList{"rm", "--force", builder}));
        QVERIFY(observer.runtimes().isEmpty());

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
