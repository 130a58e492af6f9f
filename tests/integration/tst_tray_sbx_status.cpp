// Is Docker Sandboxes ready? sbx present, its version, signed in, the
// pinned template saved: in `chat2sbx status` (text, --json, exit code) with and without a running
// server, in serve's log (once), after a create that met a set-up problem, and in the tray's status
// rows. Driven by the fake sbx's fault modes.
#include "SandboxHarness.h"
#include "bindings/ServiceModels.h"
#include "McpTestClient.h"
#include "popup/StatusSection.h"
#include "TestSupport.h"
#include "tray/TrayIcons.h"

#include "runtime/Controller.h"
#include "sandbox/sbx/SbxHealth.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QJsonObject statusJson(const TestEnvironment &env, CliResult *result = nullptr)
{
    const CliResult r = runCli(env, {"status", "--json"});
    if (result)
        *result = r;
    return QJsonDocument::fromJson(r.out).object();
}

QJsonObject sbxOf(const QJsonObject &status)
{
    return status.value("sbx").toObject();
}

} // namespace

class TestTraySbxStatus : public QObject {
    Q_OBJECT
private slots:
    void readyWithoutServer()
    {
        TestEnvironment env;
        const CliResult text = runCli(env, {"status"});
        QVERIFY2(text.out.contains("sbx:        sbx v0.47.0, signed in, template " + pinnedTemplate().toUtf8() + " present\n"),
                 text.out.constData());
        // Only the server is missing: one line on stderr, nothing about sbx.
        QCOMPARE(text.exitCode, 1);
        QCOMPARE(text.err, QByteArray("chat2sbx: server is not running\n"));
        const QJsonObject sbx = sbxOf(statusJson(env));
        QCOMPARE(sbx.value("state").toString(), QStringLiteral("ready"));
        QCOMPARE(sbx.value("ready").toBool(), true);
        QCOMPARE(sbx.value("present").toBool(), true);
        QCOMPARE(sbx.value("version").toString(), QStringLiteral("v0.47.0"));
        QCOMPARE(sbx.value("minimum_version").toString(), QStringLiteral("v0.43"));
        QCOMPARE(sbx.value("signed_in").toBool(), true);
        QCOMPARE(sbx.value("template").toString(), pinnedTemplate());
        QCOMPARE(sbx.value("template_present").toBool(), true);
        QVERIFY(sbx.value("problem").isNull());
    }

    void faultsWithoutServer_data()
    {
        QTest::addColumn<QStringList>("faults");
        QTest::addColumn<bool>("noSbx");
        QTest::addColumn<QString>("state");
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("field");       // the JSON field that says it
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("template missing") << QStringList{"FAKE_SBX_TEMPLATES="} << false << "template_missing"
                                          << "template missing: run `chat2sbx setup`" << "template_present" << QJsonValue(false);
        QTest::newRow("not signed in") << QStringList{"FAKE_SBX_NOT_SIGNED_IN=1"} << false << "not_signed_in"
                                       << "run `sbx login`" << "signed_in" << QJsonValue(false);
        QTest::newRow("too old (json)") << QStringList{"FAKE_SBX_VERSION=v0.42.3"} << false << "too_old"
                                        << "sbx v0.42.3 is too old: chat2sbx needs v0.43 or newer" << "version" << QJsonValue("v0.42.3");
        QTest::newRow("too old (no --json)") << QStringList{"FAKE_SBX_VERSION=v0.31.0"} << false << "too_old"
                                             << "sbx v0.31.0 is too old" << "version" << QJsonValue("v0.31.0");
        QTest::newRow("not installed") << QStringList{} << true << "not_installed"
                                       << "sbx is not installed or not working" << "present" << QJsonValue(false);
    }

    void faultsWithoutServer()
    {
        QFETCH(QStringList, faults);
        QFETCH(bool, noSbx);
        QFETCH(QString, state);
        QFETCH(QString, problem);
        QFETCH(QString, field);
        QFETCH(QJsonValue, value);
        TestEnvironment env;
        env.setSbxFaults(faults);
        if (noSbx)
            env.set("CHAT2SBX_SBX", env.root() + "/no-such-sbx");

        const CliResult text = runCli(env, {"status"});
        QCOMPARE(text.exitCode, 1);
        bool said = false;
        for (const QByteArray &line : text.out.split('\n'))
            said = said || (line.startsWith("sbx:        ") && line.contains(problem.toUtf8()));
        QVERIFY2(said, text.out.constData());
        QVERIFY2(text.err.startsWith("chat2sbx: server is not running; ") && text.err.contains(problem.toUtf8()),
                 text.err.constData());
        QCOMPARE(text.err.count('\n'), 1);

        CliResult json;
        const QJsonObject sbx = sbxOf(statusJson(env, &json));
        QCOMPARE(json.exitCode, 1);
        QCOMPARE(sbx.value("state").toString(), state);
        QCOMPARE(sbx.value("ready").toBool(), false);
        QVERIFY2(sbx.value("problem").toString().contains(problem), qPrintable(sbx.value("problem").toString()));
        QCOMPARE(sbx.value(field), value);
    }

    void serveLogsOnceAndStatusFailsOnMissingTemplate()
    {
        TestEnvironment env;
        env.setSbxFaults({"FAKE_SBX_TEMPLATES="});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        // The check runs beside start-up; the server reports it once done.
        QVERIFY(waitFor([&] { return sbxOf(statusJson(env)).value("state").toString() != QLatin1String("checking"); }, 15000));

        CliResult json;
        const QJsonObject status = statusJson(env, &json);
        QCOMPARE(json.exitCode, 1);
        QCOMPARE(status.value("server").toObject().value("healthy").toBool(), true);
        QCOMPARE(status.value("healthy").toBool(), false);
        QCOMPARE(sbxOf(status).value("state").toString(), QStringLiteral("template_missing"));
        const CliResult text = runCli(env, {"status"});
        QCOMPARE(text.exitCode, 1);
        QVERIFY2(text.err.startsWith("chat2sbx: template missing: run `chat2sbx setup`"), text.err.constData());
        QVERIFY(text.out.contains("healthy, up"));

        // sandbox_create tells the agent what the user must do; the check behind status stays one line in the log.
        McpTestClient mcp(env.mcpUrl());
        QVERIFY(mcp.open());
        const QJsonObject created = mcp.callToolResult("sandbox_create", {});
        QVERIFY2(created.value("isError").toBool(), qPrintable(McpTestClient::describe(created)));
        QVERIFY2(McpTestClient::describe(created).contains("chat2sbx setup"), qPrintable(McpTestClient::describe(created)));
        QTest::qWait(1500);
        QCOMPARE(server.output().count(QStringLiteral("template missing: run `chat2sbx setup`")), 1);
        QCOMPARE(server.terminate(), 0);
    }

    void createFailuresRefreshTheServersView()
    {
        TestEnvironment env;
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY(waitFor([&] { return sbxOf(statusJson(env)).value("state").toString() == QLatin1String("ready"); }, 15000));
        QCOMPARE(runCli(env, {"status"}).exitCode, 0);
        McpTestClient mcp(env.mcpUrl());
        QVERIFY(mcp.open());

        // No network policy: no check can see it before a sandbox starts; the failed create tells.
        env.setSbxFaults({"FAKE_SBX_NO_POLICY=1"});
        QJsonObject created = mcp.callToolResult("sandbox_create", {});
        QVERIFY2(created.value("isError").toBool(), qPrintable(McpTestClient::describe(created)));
        CliResult json;
        QJsonObject sbx = sbxOf(statusJson(env, &json));
        QCOMPARE(json.exitCode, 1);
        QCOMPARE(sbx.value("state").toString(), QStringLiteral("create_failed"));
        QVERIFY2(sbx.value("problem").toString().contains("sbx policy init balanced"), qPrintable(sbx.value("problem").toString()));
        QVERIFY(runCli(env, {"status"}).err.contains("run `sbx policy init balanced`"));

        // Policy set: the next create succeeds and clears it.
        env.setSbxFaults({});
        created = mcp.callToolResult("sandbox_create", {});
        QVERIFY2(!created.value("isError").toBool(), qPrintable(McpTestClient::describe(created)));
        QCOMPARE(sbxOf(statusJson(env)).value("state").toString(), QStringLiteral("ready"));
        QCOMPARE(runCli(env, {"status"}).exitCode, 0);

        // The template disappears (another data root's setup, a prune): the failed create makes the
        // server check again, and status says so without waiting for the periodic check.
        env.setSbxFaults({"FAKE_SBX_TEMPLATES="});
        created = mcp.callToolResult("sandbox_create", {});
        QVERIFY2(created.value("isError").toBool(), qPrintable(McpTestClient::describe(created)));
        QVERIFY(waitFor([&] { return sbxOf(statusJson(env)).value("state").toString() == QLatin1String("template_missing"); }, 15000));
        QCOMPARE(runCli(env, {"status"}).exitCode, 1);
        QCOMPARE(server.terminate(), 0);
    }

    void trayShowsTheSbxRows()
    {
        TestEnvironment env;
        pointFakeSbxAt(env, false);   // no pinned template
        Controller controller(env.config());
        ui::ServiceModels models = ui::makeServiceModels(controller);
        ui::StatusSection section(*models.status);
        QSignalSpy started(&controller, &Controller::started);
        controller.start();
        QVERIFY(started.wait(30000));
        QVERIFY(waitFor([&] { return controller.sbxHealth().status().checked(); }, 15000));

        const ui::StatusInfo s = models.status->status();
        QCOMPARE(s.sbx, QStringLiteral("sbx v0.47.0, signed in, template %1 missing").arg(pinnedTemplate()));
        QVERIFY2(s.sbxProblem.startsWith("template missing: run `chat2sbx setup`"), qPrintable(s.sbxProblem));
        QCOMPARE(ui::trayStateOf(s), ui::TrayState::Error);
        QVERIFY(ui::trayToolTip(s, 0).contains("template missing: run `chat2sbx setup`"));
        auto *row = section.findChild<QLabel *>(QStringLiteral("sbx"));
        auto *problem = section.findChild<QLabel *>(QStringLiteral("sbxProblem"));
        QVERIFY(row && problem);
        QCOMPARE(row->text(), s.sbx);
        QCOMPARE(problem->text(), s.sbxProblem);

        // `chat2sbx setup` saved it meanwhile: the next check (here asked for at once) clears the rows.
        qputenv("FAKE_SBX_TEMPLATES", pinnedTemplate().toUtf8());
        QSignalSpy changed(models.status.get(), &ui::StatusModel::changed);
        controller.sbxHealth().refresh();
        QVERIFY(waitFor([&] { return models.status->status().sbxProblem.isEmpty(); }, 15000));
        QVERIFY(models.status->status().sbx.endsWith(" present"));
        QVERIFY(problem->text().isEmpty() || problem->isHidden());
        QVERIFY(changed.count() > 0);

        QSignalSpy stopped(&controller, &Controller::stopped);
        controller.stop();
        QVERIFY(stopped.wait(15000));
    }
};

QTEST_MAIN(TestTraySbxStatus)
#include "tst_tray_sbx_status.moc"
