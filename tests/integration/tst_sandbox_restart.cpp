// kill -9 of the real `chat2sbx serve` loses no sandbox: three sandboxes created over MCP are still
// running with the same ids after a restart, re-attached (no second create, no rm), nothing
// duplicated in `sbx ls` or the database, and a bash session running at the kill is still pollable
// with its output continuing exactly where the last poll left off. Also `serve` on a machine without sbx still listens.
#include "McpTestClient.h"
#include "SandboxHarness.h"
#include "SandboxProcesses.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <algorithm>
#include <csignal>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QJsonObject sandboxListViaCli(const TestEnvironment &env)
{
    const CliResult r = runCli(env, {"sandbox", "list", "--json"});
    return QJsonDocument::fromJson(r.out).object();
}

// The server's sbx children: every fake sbx process but the "daemon"'s (its idle watchers, policy
// proxies and port forwarders, `sbx __<name>`), which outlive any client.
QStringList sbxClientsOf(const TestEnvironment &env)
{
    QStringList found;
    for (const ProcessInfo &p : processesWithEnvironment("FAKE_SBX_STATE=" + QFile::encodeName(env.sbxState())))
        if (p.argv.size() < 2 || !p.argv.at(1).startsWith(QStringLiteral("__")))
            found << p.argv.join(' ');
    return found;
}

} // namespace

class TestSandboxRestart : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
        QVERIFY(!chat2sbxBinary().isEmpty());
    }

    void killNineKeepsSandboxes()
    {
        TestEnvironment env;
        env.set("FAKE_SBX_TEMPLATES", pinnedTemplate());
        // A restart faster than sbx's idle stop: the VMs (and the session in one) keep running while
        // no channel is attached. (A VM that stopped meanwhile is another case.)
        env.set("FAKE_SBX_IDLE_STOP_MS", "600000");
        SandboxHarness observer(env);   // reads the fake's state and calls.log only

        QStringList ids;
        QString sessionSandbox;
        QString sessionId;
        QString sessionOutput;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "restart-test");
            QVERIFY2(mcp.open(), qPrintable(server.output()));
            for (int i = 0; i < 3; ++i) {
                const QJsonObject r = mcp.callToolResult("sandbox_create");
                QVERIFY2(!r.value("isError").toBool(true), qPrintable(mcp.lastBody));
                const QJsonObject s = r.value("structuredContent").toObject();
                QCOMPARE(s.value("state").toString(), QStringLiteral("running"));
                ids << s.value("sandbox_id").toString();
                observer.checkLeaks(mcp.lastBody);
            }
            // A running bash session whose output must survive the kill: part is read now, the rest after.
            sessionSandbox = ids.at(1);
            const QJsonObject b = mcp.callToolResult("bash", {{"sandbox_id", sessionSandbox},
                                                    {"command", "for i in $(seq 1 40); do echo line$i; sleep 0.05; done"},
                                                    {"yield_time_ms", 400}});
            QVERIFY2(!b.value("isError").toBool(true), qPrintable(mcp.lastBody));
            const QJsonObject bs = b.value("structuredContent").toObject();
            QCOMPARE(bs.value("status").toString(), QStringLiteral("running"));
            sessionId = bs.value("session_id").toString();
            QVERIFY(sessionId.startsWith("bash_"));
            sessionOutput = bs.value("output").toString();
            QVERIFY2(sessionOutput.startsWith("line1\n"), qPrintable(sessionOutput));
            server.kill9();
        }
        QCOMPARE(observer.runtimes().size(), 3);

        QElapsedTimer t;
        t.start();
        ServerProcess again(env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        const qint64 restartMs = t.elapsed();
        QVERIFY2(again.output().contains("3 re-attached, 0 unreachable"), qPrintable(again.output()));
        McpTestClient mcp(env.mcpUrl(), "restart-test");
        QVERIFY(mcp.open());
        const QJsonObject list = mcp.callToolResult("sandbox_list").value("structuredContent").toObject();
        observer.checkLeaks(mcp.lastBody);
        QStringList listed;
        for (const QJsonValue &v : list.value("sandboxes").toArray()) {
            QCOMPARE(v.toObject().value("state").toString(), QStringLiteral("running"));
            listed << v.toObject().value("sandbox_id").toString();
        }
        std::sort(listed.begin(), listed.end());
        std::sort(ids.begin(), ids.end());
        QCOMPARE(listed, ids);
        for (const QString &id : ids) {
            const QJsonObject g = mcp.callToolResult("sandbox_get", {{"sandbox_id", id}});
            QVERIFY2(!g.value("isError").toBool(true), qPrintable(mcp.lastBody));
            QCOMPARE(g.value("structuredContent").toObject().value("state").toString(), QStringLiteral("running"));
        }
        // The session is still there and pollable: the rest of its output, in order, nothing repeated.
        const QJsonObject sessions = mcp.callToolResult("bash_list", {{"sandbox_id", sessionSandbox}}).value("structuredContent").toObject();
        QVERIFY2(QJsonDocument(sessions).toJson().contains(sessionId.toUtf8()), qPrintable(mcp.lastBody));
        QString status;
        for (int polls = 0; polls < 50 && status != QLatin1String("exited"); ++polls) {
            const QJsonObject p = mcp.callToolResult("bash_poll", {{"sandbox_id", sessionSandbox}, {"session_id", sessionId},
                                                         {"yield_time_ms", 2000}});
            QVERIFY2(!p.value("isError").toBool(true), qPrintable(mcp.lastBody));
            const QJsonObject ps = p.value("structuredContent").toObject();
            sessionOutput += ps.value("output").toString();
            status = ps.value("status").toString();
            if (status == QLatin1String("exited"))
                QCOMPARE(ps.value("exit_code").toInt(-1), 0);
        }
        QCOMPARE(status, QStringLiteral("exited"));
        QString expected;
        for (int i = 1; i <= 40; ++i)
            expected += QStringLiteral("line%1\n").arg(i);
        QCOMPARE(sessionOutput, expected);

        // nothing duplicated: three runtimes, three records, three creates, no rm
        QCOMPARE(observer.runtimes().size(), 3);
        QCOMPARE(observer.countCalls("create"), 3);
        QCOMPARE(observer.countCalls("rm"), 0);
        const QJsonArray rows = sandboxListViaCli(env).value("sandboxes").toArray();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(observer.records.list(true).size(), 3);

        // and it keeps working: reuse after restart, destroy after restart
        const QString ws = rows.at(0).toObject().value("workspace_id").toString();
        const QJsonObject reuse = mcp.callToolResult("sandbox_create", {{"workspace_id", ws}});
        QVERIFY2(reuse.value("structuredContent").toObject().value("reused").toBool(), qPrintable(mcp.lastBody));
        QVERIFY(!mcp.callToolResult("sandbox_destroy", {{"sandbox_id", ids.at(0)}}).value("isError").toBool(true));
        QCOMPARE(observer.runtimes().size(), 2);
        QVERIFY2(observer.leaks.isEmpty(), qPrintable(observer.leaks.join('\n')));
        QCOMPARE(again.terminate(), 0);
        qInfo("restart to healthy with 3 sandboxes to re-attach: %lld ms", restartMs);
    }

    // kill -9 with a helper stuck in a handler (a read of a FIFO nobody writes) in one sandbox and a
    // stopped helper in another: no `sbx` child of the server goes on without it, the restarted
    // server's helpers replace the old ones and their handlers (a bash session survives), and once
    // the sandboxes are destroyed and the server stopped no process of them is left.
    void killNineLeavesNoHelperOrSbxBehind()
    {
        TestEnvironment env;
        env.set("FAKE_SBX_TEMPLATES", pinnedTemplate());
        env.set("FAKE_SBX_IDLE_STOP_MS", "600000");
        SandboxHarness observer(env);
        const QByteArray fakeEnv = "FAKE_SBX_STATE=" + QFile::encodeName(env.sbxState());
        auto sandboxProcesses = [&](const QString &runtime) {
            return processesWithEnvironment("FAKE_SBX_SANDBOX=" + runtime.toUtf8()).size();
        };
        auto homeOf = [&](const QString &runtime) { return env.sbxState() + "/sandboxes/" + runtime + "/home"; };

        QString stuck, stopped;   // sandbox ids
        QString stuckRt, stoppedRt;
        QString sessionId;
        QStringList oldHelpers;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "restart-test");
            QVERIFY(mcp.open());
            for (QString *id : {&stuck, &stopped}) {
                const QJsonObject r = mcp.callToolResult("sandbox_create");
                QVERIFY2(!r.value("isError").toBool(true), qPrintable(mcp.lastBody));
                *id = r.value("structuredContent").toObject().value("sandbox_id").toString();
            }
            stuckRt = observer.records.find(stuck)->runtimeName;
            stoppedRt = observer.records.find(stopped)->runtimeName;

            // In `stuck`: a session that must survive, and a read that blocks opening a FIFO.
            const QJsonObject b = mcp.callToolResult("bash", {{"sandbox_id", stuck}, {"command", "sleep 300"}, {"yield_time_ms", 0}});
            QVERIFY2(!b.value("isError").toBool(true), qPrintable(mcp.lastBody));
            sessionId = b.value("structuredContent").toObject().value("session_id").toString();
            QVERIFY(!mcp.callToolResult("bash", {{"sandbox_id", stuck}, {"command", "mkfifo nobody-writes"}}).value("isError").toBool(true));
            const int before = helperProcesses(stuckRt).size();
            mcp.callToolResult("read", {{"sandbox_id", stuck}, {"path", "nobody-writes"}}, 1000);   // gives up; the handler stays
            QVERIFY(waitFor([&] { return helperProcesses(stuckRt).size() > before; }, 5000));

            // In `stopped`: a helper that answered, then SIGSTOP (it cannot notice its stdin closing).
            QVERIFY(!mcp.callToolResult("bash", {{"sandbox_id", stopped}, {"command", "true"}}).value("isError").toBool(true));
            QFile pidFile(homeOf(stoppedRt) + "/.chat2sbx/helper.pid");
            QVERIFY(pidFile.open(QIODevice::ReadOnly));
            const qint64 stoppedHelper = pidFile.readAll().trimmed().toLongLong();
            QVERIFY(stoppedHelper > 1);
            QCOMPARE(::kill(pid_t(stoppedHelper), SIGSTOP), 0);

            oldHelpers = helperProcesses(stuckRt) + helperProcesses(stoppedRt);
            QVERIFY2(oldHelpers.contains(QString::number(stoppedHelper)), qPrintable(oldHelpers.join(' ')));
            server.kill9();
        }
        QVERIFY2(waitFor([&] { return sbxClientsOf(env).isEmpty(); }, 5000),
                 qPrintable("sbx children outlived the server: " + sbxClientsOf(env).join(", ")));

        ServerProcess again(env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        QVERIFY2(again.output().contains("2 re-attached, 0 unreachable"), qPrintable(again.output()));
        McpTestClient mcp(env.mcpUrl(), "restart-test");
        QVERIFY(mcp.open());
        for (const QString &id : {stuck, stopped}) {
            const QJsonObject r = mcp.callToolResult("bash", {{"sandbox_id", id}, {"command", "echo here"}});
            QVERIFY2(!r.value("isError").toBool(true), qPrintable(mcp.lastBody));
        }
        // Every process of the old helpers is gone (the new helpers reaped them), one helper runs per sandbox.
        auto leftOver = [&] {
            QStringList left;
            for (const QString &pid : oldHelpers)
                if (!isGone(pid))
                    left << pid + ": " + QString::fromUtf8(procFile(pid, "cmdline")).replace(QChar('\0'), QChar(' '));
            return left;
        };
        QVERIFY2(waitFor([&] { return leftOver().isEmpty(); }, 10000), qPrintable("old helper processes: " + leftOver().join("; ")));
        for (const QString &rt : {stuckRt, stoppedRt})
            QCOMPARE(QDir(homeOf(rt) + "/.chat2sbx/run").entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 1);
        // The session begun before the kill still runs.
        const QJsonObject poll = mcp.callToolResult("bash_poll", {{"sandbox_id", stuck}, {"session_id", sessionId}, {"yield_time_ms", 0}});
        QCOMPARE(poll.value("structuredContent").toObject().value("status").toString(), QStringLiteral("running"));

        for (const QString &id : {stuck, stopped})
            QVERIFY2(!mcp.callToolResult("sandbox_destroy", {{"sandbox_id", id}}).value("isError").toBool(true), qPrintable(mcp.lastBody));
        QVERIFY2(waitFor([&] { return sandboxProcesses(stuckRt) + sandboxProcesses(stoppedRt) == 0; }, 5000),
                 "a process of a destroyed sandbox is left");
        QCOMPARE(again.terminate(), 0);
        QVERIFY2(waitFor([&] { return processesWithEnvironment(fakeEnv).isEmpty(); }, 5000),
                 qPrintable("fake sbx processes left after the server stopped: " + sbxClientsOf(env).join(", ")));
    }

    // A stop (SIGTERM) kills no helper and leaves them no input: serve exits at once (the kernel
    // ends the channels' input with the process), and each helper ends by itself after it, removing
    // its own run folder (a killed one leaves it), its `sbx exec` with it.
    void aStopLetsEachHelperEndByItself()
    {
        TestEnvironment env;
        env.set("FAKE_SBX_TEMPLATES", pinnedTemplate());
        env.set("FAKE_SBX_IDLE_STOP_MS", "600000");
        SandboxHarness observer(env);
        auto runFolders = [&](const QString &runtime) {
            return QDir(env.sbxState() + "/sandboxes/" + runtime + "/home/.chat2sbx/run").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        };
        QStringList runtimes;
        QStringList helpers;
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "restart-test");
        QVERIFY(mcp.open());
        for (int i = 0; i < 2; ++i) {
            const QJsonObject r = mcp.callToolResult("sandbox_create");
            QVERIFY2(!r.value("isError").toBool(true), qPrintable(mcp.lastBody));
            const QString id = r.value("structuredContent").toObject().value("sandbox_id").toString();
            QVERIFY(!mcp.callToolResult("bash", {{"sandbox_id", id}, {"command", "true"}}).value("isError").toBool(true));
            runtimes << observer.records.find(id)->runtimeName;
            helpers << helperProcesses(runtimes.constLast());
            QCOMPARE(runFolders(runtimes.constLast()).size(), 1);
        }
        QVERIFY(!helpers.isEmpty());
        QCOMPARE(server.terminate(), 0);
        auto running = [&] {
            QStringList left;
            for (const QString &pid : helpers)
                if (!isGone(pid))
                    left << pid;
            return left + sbxClientsOf(env);
        };
        QVERIFY2(waitFor([&] { return running().isEmpty(); }, 15000), qPrintable("still running: " + running().join("; ")));
        for (const QString &rt : runtimes)
            QVERIFY2(runFolders(rt).isEmpty(), qPrintable(rt + ": a helper was killed, its run folder is left: " + runFolders(rt).join(' ')));
    }

    void serveWithoutSbx()
    {
        TestEnvironment env;
        env.set("CHAT2SBX_SBX", env.root() + "/not-installed/sbx");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(server.output().contains("sbx is not available"), qPrintable(server.output()));
        QCOMPARE(server.output().count("sbx is not available"), 1);
        McpTestClient mcp(env.mcpUrl(), "restart-test");
        QVERIFY(mcp.open());
        const QJsonObject r = mcp.callToolResult("sandbox_create");
        QVERIFY(r.value("isError").toBool());
        QVERIFY2(r.value("content").toArray().at(0).toObject().value("text").toString().startsWith("sbx is not available: "),
                 qPrintable(mcp.lastBody));
        QCOMPARE(server.terminate(), 0);
    }

    // kill -9 while `sbx create` runs (slowed, or hung after leaving a half-made runtime): the create
    // dies with the server, so no runtime appears behind the restart's back; the restart cleans up
    // the create it had persisted (the record fails, a half-made runtime is removed) and no fake sbx
    // process of that create is left.
    void killNineDuringCreateConverges_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<bool>("halfMade");
        QTest::newRow("slow create") << QStringLiteral("FAKE_SBX_SLOW_CREATE=4000") << false;
        QTest::newRow("create hangs after making the runtime") << QStringLiteral("FAKE_SBX_CRASH_MID_CREATE=hang") << true;
    }
    void killNineDuringCreateConverges()
    {
        QFETCH(QString, fault);
        QFETCH(bool, halfMade);
        TestEnvironment env;
        env.set("FAKE_SBX_TEMPLATES", pinnedTemplate());
        SandboxHarness observer(env);
        const QByteArray fakeEnv = "FAKE_SBX_STATE=" + QFile::encodeName(env.sbxState());
        auto creates = [&] {
            int n = 0;
            for (const ProcessInfo &p : processesWithEnvironment(fakeEnv))
                n += p.argv.contains(QStringLiteral("create")) ? 1 : 0;
            return n;
        };
        env.setSbxFaults({fault});
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "restart-test");
            QVERIFY(mcp.open());
            mcp.callToolResult("sandbox_create", {}, 1000);   // gives up waiting; the create goes on
            QVERIFY(waitFor([&] { return observer.countCalls("create") == 1 && creates() == 1; }, 10000));
            if (halfMade)
                QVERIFY(waitFor([&] { return observer.runtimes().size() == 1; }, 10000));
            server.kill9();
        }
        QVERIFY2(waitFor([&] { return creates() == 0; }, 5000), "the `sbx create` child outlived the server");
        env.setSbxFaults({});
        {
            ServerProcess again(env);
            QVERIFY2(again.start(), qPrintable(again.output()));
            QVERIFY2(again.output().contains("1 interrupted creates cleaned up"), qPrintable(again.output()));
            QVERIFY2(waitFor([&] { return observer.runtimes().isEmpty(); }, 20000), qPrintable(again.output()));
            const QList<SandboxRecord> records = observer.records.list(true);
            QCOMPARE(records.size(), 1);
            QCOMPARE(records.first().state, SandboxState::Failed);
            QCOMPARE(again.terminate(), 0);
        }
        QCOMPARE(observer.countCalls("create"), 1);
        QVERIFY(observer.runtimes().isEmpty());
        QCOMPARE(creates(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSandboxRestart)
#include "tst_sandbox_restart.moc"
