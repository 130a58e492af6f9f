// Real VMs stop by themselves when nothing is attached (sbx-contract.md §1), and the fake does too
// (FAKE_SBX_IDLE_STOP_MS). Against a real `chat2sbx serve`:
//  - serve stops, the VM auto-stops meanwhile, serve starts again: the sandbox is `stopped`, the
//    bash session that ran is `lost` with the reason, the files are kept and a new `bash` works;
//  - the VM stops while serve runs (`sbx stop` from outside kills the control channel): serve
//    notices, marks the sandbox stopped and the session lost instead of reporting it running, and
//    the next call wakes it.
#include "SandboxHarness.h"
#include "McpTestClient.h"

#include <QJsonArray>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QJsonObject structured(const QJsonObject &result)
{
    return result.value(QStringLiteral("structuredContent")).toObject();
}

bool runFake(const TestEnvironment &env, const QStringList &args)
{
    return runFakeSbx(env, args).exitCode == 0;
}

QJsonObject sessionIn(const QJsonObject &bashList, const QString &sessionId)
{
    for (const QJsonValue &v : bashList.value(QStringLiteral("sessions")).toArray())
        if (v.toObject().value(QStringLiteral("session_id")).toString() == sessionId)
            return v.toObject();
    return {};
}

struct Fixture {
    TestEnvironment env;
    Fixture()
    {
        env.set(QStringLiteral("FAKE_SBX_TEMPLATES"), pinnedTemplate());
        env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
    }
};

} // namespace

class TestSandboxAutostop : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
        QVERIFY(!chat2sbxBinary().isEmpty());
    }

    void stoppedWhileServeWasDown()
    {
        Fixture f;
        f.env.set(QStringLiteral("FAKE_SBX_IDLE_STOP_MS"), QStringLiteral("1000"));
        SandboxHarness observer(f.env);
        QString id, sessionId, runtime;
        {
            ServerProcess server(f.env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(f.env.mcpUrl());
            QVERIFY(mcp.open());
            id = structured(mcp.callToolResult(QStringLiteral("sandbox_create"), {})).value(QStringLiteral("sandbox_id")).toString();
            QVERIFY(id.startsWith(QLatin1String("sbx_")));
            runtime = observer.records.find(id)->runtimeName;
            QCOMPARE(structured(mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                      {QStringLiteral("command"), QStringLiteral("echo data > keep.txt")}}))
                         .value(QStringLiteral("exit_code")).toInt(-1), 0);
            const QJsonObject running = structured(mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                                        {QStringLiteral("command"), QStringLiteral("sleep 300")},
                                                                                        {QStringLiteral("yield_time_ms"), 200}}));
            QCOMPARE(running.value(QStringLiteral("status")).toString(), QStringLiteral("running"));
            sessionId = running.value(QStringLiteral("session_id")).toString();
            // Attached all along: the VM did not stop under the running server.
            QTest::qWait(2000);
            QCOMPARE(fakeSandboxStatus(f.env, runtime), QStringLiteral("running"));
            QCOMPARE(server.terminate(), 0);
        }
        // Nothing attached any more: the VM stops by itself, and the command with it.
        QVERIFY(waitFor([&] { return fakeSandboxStatus(f.env, runtime) == QLatin1String("stopped"); }, 20000));

        ServerProcess again(f.env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        QVERIFY2(again.output().contains(QLatin1String("0 re-attached, 0 unreachable")) && again.output().contains(QLatin1String("1 found stopped")),
                 qPrintable(again.output()));
        McpTestClient mcp(f.env.mcpUrl());
        QVERIFY(mcp.open());
        const QJsonObject asleep = structured(mcp.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}}));
        QCOMPARE(asleep.value(QStringLiteral("state")).toString(), QStringLiteral("stopped"));
        QVERIFY2(asleep.value(QStringLiteral("sleep_note")).toString().contains(QLatin1String("while chat2sbx was not running")),
                 qPrintable(McpTestClient::describe(asleep)));
        QVERIFY(asleep.contains(QStringLiteral("slept_at")));

        const QString reason = QStringLiteral("the sandbox stopped while chat2sbx was not running; processes ended, files are kept");
        const QJsonObject listResult = mcp.callToolResult(QStringLiteral("bash_list"), {{QStringLiteral("sandbox_id"), id}});
        const QJsonObject lost = sessionIn(structured(listResult), sessionId);
        QCOMPARE(lost.value(QStringLiteral("status")).toString(), QStringLiteral("lost"));
        QCOMPARE(lost.value(QStringLiteral("lost_reason")).toString(), reason);
        QVERIFY(lost.value(QStringLiteral("exit_code")).isNull());
        QCOMPARE(structured(listResult).value(QStringLiteral("woke_from_sleep")).toBool(), true);

        // Usable again: the files are there and a new command runs.
        const QJsonObject fresh = structured(mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                                  {QStringLiteral("command"), QStringLiteral("cat keep.txt")}}));
        QCOMPARE(fresh.value(QStringLiteral("output")).toString(), QStringLiteral("data\n"));
        QCOMPARE(fresh.value(QStringLiteral("status")).toString(), QStringLiteral("exited"));
        const QJsonObject polled = structured(mcp.callToolResult(QStringLiteral("bash_poll"), {{QStringLiteral("sandbox_id"), id},
                                                                                        {QStringLiteral("session_id"), sessionId},
                                                                                        {QStringLiteral("yield_time_ms"), 0}}));
        QCOMPARE(polled.value(QStringLiteral("status")).toString(), QStringLiteral("lost"));
        QCOMPARE(polled.value(QStringLiteral("lost_reason")).toString(), reason);
        QCOMPARE(structured(mcp.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}}))
                     .value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        QCOMPARE(fakeSandboxStatus(f.env, runtime), QStringLiteral("running"));
        QCOMPARE(observer.countCalls(QStringLiteral("create")), 1);
        QCOMPARE(again.terminate(), 0);
    }

    void stoppedUnderARunningServe()
    {
        Fixture f;
        f.env.set(QStringLiteral("FAKE_SBX_IDLE_STOP_MS"), QStringLiteral("600000"));
        SandboxHarness observer(f.env);
        ServerProcess server(f.env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(f.env.mcpUrl());
        QVERIFY(mcp.open());
        const QString id = structured(mcp.callToolResult(QStringLiteral("sandbox_create"), {})).value(QStringLiteral("sandbox_id")).toString();
        QVERIFY(id.startsWith(QLatin1String("sbx_")));
        const QString runtime = observer.records.find(id)->runtimeName;
        const QJsonObject running = structured(mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                                    {QStringLiteral("command"), QStringLiteral("echo x > f.txt; sleep 300")},
                                                                                    {QStringLiteral("yield_time_ms"), 200}}));
        const QString sessionId = running.value(QStringLiteral("session_id")).toString();
        QCOMPARE(running.value(QStringLiteral("status")).toString(), QStringLiteral("running"));

        // The VM stops under the server (as `sbx stop` from a terminal, or sbx itself, would do it).
        QVERIFY(runFake(f.env, {QStringLiteral("stop"), runtime}));
        auto state = [&] {
            return structured(mcp.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}}))
                .value(QStringLiteral("state")).toString();
        };
        QVERIFY2(waitFor([&] { return state() == QLatin1String("stopped"); }, 15000), qPrintable(server.output()));
        // Not started again behind the agent's back.
        QTest::qWait(1000);
        QCOMPARE(fakeSandboxStatus(f.env, runtime), QStringLiteral("stopped"));
        QVERIFY2(server.output().contains(QLatin1String("stopped under chat2sbx")), qPrintable(server.output()));

        const QJsonObject lost = sessionIn(structured(mcp.callToolResult(QStringLiteral("bash_list"), {{QStringLiteral("sandbox_id"), id}})), sessionId);
        QCOMPARE(lost.value(QStringLiteral("status")).toString(), QStringLiteral("lost"));
        QCOMPARE(lost.value(QStringLiteral("lost_reason")).toString(),
                 QStringLiteral("the sandbox stopped; processes ended, files are kept"));
        const QJsonObject fresh = structured(mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                                  {QStringLiteral("command"), QStringLiteral("cat f.txt")}}));
        QCOMPARE(fresh.value(QStringLiteral("output")).toString(), QStringLiteral("x\n"));
        QCOMPARE(state(), QStringLiteral("running"));
        QCOMPARE(server.terminate(), 0);
    }
};

QTEST_MAIN(TestSandboxAutostop)
#include "tst_sandbox_autostop.moc"
