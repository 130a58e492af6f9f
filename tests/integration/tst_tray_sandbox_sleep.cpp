// Sleep and wake over a real in-process Controller (what `serve` and the tray run), the fake sbx and
// real MCP over HTTP, with a manual clock for the idle decision: a sandbox with a running command
// stays awake however long it is idle; once the command ended and sandboxSleepSeconds passed without
// a tool call, it sleeps (channel closed, `sbx stop`, state stopped with slept_at; the tray row says
// so); the next tool call wakes it transparently (it succeeds, says woke_from_sleep, the file written
// before is still there) and sandbox_get / the tray row show the wake.
#include "SandboxHarness.h"
#include "McpTestClient.h"
#include "tray_support.h"

#include "ManualClock.h"
#include "bindings/ServiceModels.h"
#include "runtime/Controller.h"
#include "workspace/WorkspaceService.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

// The status `sbx ls --json` reports for a runtime right now (empty: not listed).
QString fakeStatus(const Config &config, const QString &runtime)
{
    QList<SbxRuntimeInfo> items;
    SbxDriver::parseList(runProcess(config.sbxPath, {QStringLiteral("ls"), QStringLiteral("--json")}).out, items);
    for (const SbxRuntimeInfo &i : items)
        if (i.name == runtime)
            return i.status;
    return {};
}

QJsonObject structured(const QJsonObject &result)
{
    return result.value(QStringLiteral("structuredContent")).toObject();
}

} // namespace

class TraySandboxSleepTest : public QObject {
    Q_OBJECT

private slots:
    void sleepsWhenIdleAndWakesOnTheNextCall()
    {
        TestEnvironment env;
        pointFakeSbxAt(env);
        env.set(QStringLiteral("CHAT2SBX_SANDBOX_SLEEP_SECONDS"), QStringLiteral("2"));   // checked every 0.5 s
        env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
        ManualClock clock;
        Controller controller(env.config(), clock);
        ui::ServiceModels models = ui::makeServiceModels(controller);
        SandboxHarness observer(env);   // the fake's state and the database, read only
        QSignalSpy started(&controller, &Controller::started);
        controller.start();
        QVERIFY(started.wait(30000));
        McpTestClient mcp(env.mcpUrl());
        QString error;
        QVERIFY2(mcp.open(&error), qPrintable(error));

        const QJsonObject created = structured(mcp.callToolResult(QStringLiteral("sandbox_create"), {}));
        const QString id = created.value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(QJsonDocument(created).toJson()));
        const QString runtime = observer.records.find(id)->runtimeName;
        auto bash = [&](const QString &command, int yieldMs = 10000) {
            return mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                         {QStringLiteral("command"), command},
                                                         {QStringLiteral("yield_time_ms"), yieldMs}});
        };
        auto sandboxGet = [&] { return structured(mcp.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}})); };
        auto trayRow = [&]() -> ui::SandboxRow {
            for (const ui::SandboxRow &row : models.sandboxes->sandboxes())
                if (row.id == id)
                    return row;
            return {};
        };
        QCOMPARE(structured(bash(QStringLiteral("echo kept > note.txt && echo ok"))).value(QStringLiteral("output")).toString(),
                 QStringLiteral("ok\n"));

        // A running command keeps it awake, however long no tool call comes.
        const QJsonObject longRunning = structured(bash(QStringLiteral("sleep 300"), 200));
        QCOMPARE(longRunning.value(QStringLiteral("status")).toString(), QStringLiteral("running"));
        clock.advance(10000);
        QTest::qWait(1500);   // three sleep checks
        QCOMPARE(sandboxGet().value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        QCOMPARE(fakeStatus(observer.config, runtime), QStringLiteral("running"));
        QCOMPARE(observer.countCalls(QStringLiteral("stop")), 0);

        // Once it ended, the idle period sends it to sleep.
        const QJsonObject stopped = structured(mcp.callToolResult(QStringLiteral("bash_stop"),
            {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("session_id"), longRunning.value(QStringLiteral("session_id"))}}));
        QCOMPARE(stopped.value(QStringLiteral("status")).toString(), QStringLiteral("exited"));
        QTest::qWait(1000);
        QCOMPARE(sandboxGet().value(QStringLiteral("state")).toString(), QStringLiteral("running"));   // not idle long enough yet
        clock.advance(2500);
        QVERIFY(waitFor([&] { return sandboxGet().value(QStringLiteral("state")).toString() == QLatin1String("stopped"); }, 10000));
        const QJsonObject asleep = sandboxGet();
        QVERIFY2(asleep.contains(QStringLiteral("slept_at")) && !asleep.contains(QStringLiteral("woke_at")),
                 qPrintable(QJsonDocument(asleep).toJson()));
        QVERIFY2(asleep.value(QStringLiteral("sleep_note")).toString().contains(QLatin1String("wakes it")),
                 qPrintable(QJsonDocument(asleep).toJson()));
        QVERIFY(waitFor([&] { return fakeStatus(observer.config, runtime) == QLatin1String("stopped"); }, 10000));
        QCOMPARE(observer.countCalls(QStringLiteral("stop")), 1);
        QCOMPARE(trayRow().state, QStringLiteral("stopped"));
        // A scratch sandbox's workspace is named as the Workspaces card names it, not by its ws_ id.
        QCOMPARE(trayRow().workspace, QStringLiteral("scratch folder"));
        QCOMPARE(trayRow().workspaceMode, QStringLiteral("managed"));
        QVERIFY(trayRow().sleptAtMs > 0);
        const QJsonObject listed = structured(mcp.callToolResult(QStringLiteral("sandbox_list"), {}));
        QCOMPARE(listed.value(QStringLiteral("sandboxes")).toArray().first().toObject().value(QStringLiteral("state")).toString(),
                 QStringLiteral("stopped"));
        // Asleep, it still holds its workspace: workspace_list and the tray's Workspaces show it, and
        // the managed workspace gets no retention deadline.
        const QString workspaceId = observer.records.find(id)->workspaceId;
        const QJsonArray workspaces = structured(mcp.callToolResult(QStringLiteral("workspace_list"), {}))
                                          .value(QStringLiteral("workspaces")).toArray();
        QCOMPARE(workspaces.size(), 1);
        QCOMPARE(workspaces.first().toObject().value(QStringLiteral("workspace_id")).toString(), workspaceId);
        QCOMPARE(workspaces.first().toObject().value(QStringLiteral("sandbox_id")).toString(), id);
        QVERIFY(workspaces.first().toObject().value(QStringLiteral("retention_deadline")).isNull());
        const QList<ui::WorkspaceRow> trayWorkspaces = models.workspaces->workspaces();
        QCOMPARE(trayWorkspaces.size(), 1);
        QCOMPARE(trayWorkspaces.first().sandboxes.size(), 1);
        QCOMPARE(trayWorkspaces.first().sandboxes.first().id, id);
        QCOMPARE(trayWorkspaces.first().sandboxes.first().state, QStringLiteral("stopped"));
        QCOMPARE(controller.workspaces().overview().first().activeSandboxId, id);
        QCOMPARE(controller.workspaces().overview().first().retentionDeadline, 0);
        // Asleep, it still counts against maxActiveSandboxes (it wakes on the next call).
        QCOMPARE(controller.sandboxes().countActive(), 1);

        // The next tool call wakes it: it succeeds, says so, and the files are still there.
        const QJsonObject woken = bash(QStringLiteral("cat note.txt"));
        QVERIFY2(!woken.value(QStringLiteral("isError")).toBool(), qPrintable(QJsonDocument(woken).toJson()));
        const QJsonObject wokenResult = structured(woken);
        QCOMPARE(wokenResult.value(QStringLiteral("output")).toString(), QStringLiteral("kept\n"));
        QCOMPARE(wokenResult.value(QStringLiteral("woke_from_sleep")).toBool(), true);
        QVERIFY(!wokenResult.value(QStringLiteral("wake_note")).toString().isEmpty());
        const QJsonObject awake = sandboxGet();
        QCOMPARE(awake.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        QVERIFY(awake.contains(QStringLiteral("slept_at")) && awake.contains(QStringLiteral("woke_at")));
        QVERIFY(!awake.contains(QStringLiteral("sleep_note")));
        QCOMPARE(fakeStatus(observer.config, runtime), QStringLiteral("running"));
        QCOMPARE(trayRow().state, QStringLiteral("running"));
        QVERIFY(trayRow().wokeAtMs > 0);
        // Only the waking call says so.
        const QJsonObject again = structured(bash(QStringLiteral("echo again")));
        QVERIFY(!again.contains(QStringLiteral("woke_from_sleep")));
        observer.checkLeaks(QString::fromUtf8(QJsonDocument(woken).toJson()));
        observer.checkLeaks(QString::fromUtf8(QJsonDocument(asleep).toJson()));
        QVERIFY2(observer.leaks.isEmpty(), qPrintable(observer.leaks.join(QLatin1Char(10))));

        QSignalSpy stoppedSpy(&controller, &Controller::stopped);
        controller.stop();
        QVERIFY(stoppedSpy.wait(15000));
    }
};

QTEST_MAIN(TraySandboxSleepTest)
#include "tst_tray_sandbox_sleep.moc"
