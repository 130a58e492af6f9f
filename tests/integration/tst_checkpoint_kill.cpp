// kill -9 of the real `chat2sbx serve` during each step of a checkpoint, a restore and a fork
// (the fake sbx made slow at that step) leaves, after a restart, a usable or absent checkpoint and
// no orphan sandbox: an interrupted save is failed with its reason and nothing of it stays; an
// interrupted restore is finished from its checkpoint; an interrupted fork is a failed record whose
// runtime is gone. The source sandbox answers tool calls after each.
#include "McpTestClient.h"
#include "SandboxHarness.h"

#include "state/CheckpointRepository.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestCheckpointKill : public QObject {
    Q_OBJECT

    // The server has started `sbx <words…>` (the fake logs a call as it starts, before a slow step).
    static bool started(const SandboxHarness &observer, const QStringList &words, int already)
    {
        int n = 0;
        for (const QStringList &c : observer.calls())
            n += c.mid(0, words.size()) == words ? 1 : 0;
        return n > already;
    }
    static int count(const SandboxHarness &observer, const QStringList &words)
    {
        int n = 0;
        for (const QStringList &c : observer.calls())
            n += c.mid(0, words.size()) == words ? 1 : 0;
        return n;
    }
    static QString structured(const QJsonObject &r, const char *key)
    {
        return r.value(QStringLiteral("structuredContent")).toObject().value(QLatin1String(key)).toString();
    }

    // Starts `tool` and kills the server with -9 once it runs `sbx create` (made slow for it).
    static bool killInSlowCreate(TestEnvironment &env, const SandboxHarness &observer, ServerProcess &server, McpTestClient &mcp,
                                 const QString &tool, const QJsonObject &args)
    {
        env.setSbxFaults({QStringLiteral("FAKE_SBX_SLOW_CREATE=60000")});
        const int creates = count(observer, {QStringLiteral("create")});
        auto pending = mcp.callToolAsync(tool, args);
        const bool seen = waitFor([&] { return started(observer, {QStringLiteral("create")}, creates); }, scaled(60000));
        server.kill9();
        env.setSbxFaults({});
        return seen;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
        QVERIFY(!chat2sbxBinary().isEmpty());
    }

    void killNineAtEachStepLeavesNothingHalfMade()
    {
        TestEnvironment env;
        env.set("FAKE_SBX_TEMPLATES", pinnedTemplate());
        env.set("FAKE_SBX_IDLE_STOP_MS", "600000");
        env.set("CHAT2SBX_WARM_SANDBOXES", "0");
        SandboxHarness observer(env);   // reads the fake's state, calls.log and the database only
        QVERIFY(observer.opened);
        CheckpointRepository repo(observer.db);

        QString id, workspace, ready;
        // 1. A save killed in `sbx template save`.
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "checkpoint-kill");
            QVERIFY2(mcp.open(), qPrintable(server.output()));
            const QJsonObject created = mcp.callToolResult(QStringLiteral("sandbox_create"));
            id = structured(created, "sandbox_id");
            QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(mcp.lastBody));
            workspace = observer.sandboxes->get(id)->workspace->hostPath;
            QVERIFY(writeFile(workspace + QStringLiteral("/state.txt"), "ready\n"));
            const QJsonObject first = mcp.callToolResult(QStringLiteral("sandbox_checkpoint"),
                                                         {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("label"), QStringLiteral("ready")}});
            ready = structured(first, "checkpoint_id");
            QVERIFY2(ready.startsWith(QLatin1String("ckp_")), qPrintable(mcp.lastBody));

            env.setSbxFaults({QStringLiteral("FAKE_SBX_SLOW_TEMPLATE_SAVE=60000")});
            const int saves = count(observer, {QStringLiteral("template"), QStringLiteral("save")});
            auto pending = mcp.callToolAsync(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), id}});
            QVERIFY(waitFor([&] { return started(observer, {QStringLiteral("template"), QStringLiteral("save")}, saves); }, scaled(30000)));
            server.kill9();
            env.setSbxFaults({});
        }
        QList<Checkpoint> all = repo.listFor(id);
        QCOMPARE(all.size(), 2);
        QCOMPARE(all.last().state, CheckpointState::Saving);   // what the crash left
        const QString interrupted = all.last().id;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "checkpoint-kill");
            QVERIFY2(mcp.open(), qPrintable(server.output()));
            const std::optional<Checkpoint> after = repo.find(interrupted);
            QVERIFY(after && after->state == CheckpointState::Failed && after->failure.contains(QStringLiteral("stopped")));
            QVERIFY(!QFileInfo::exists(observer.config.dataRoot + QStringLiteral("/checkpoints/") + interrupted));
            const QJsonObject listed = mcp.callToolResult(QStringLiteral("sandbox_checkpoints"), {{QStringLiteral("sandbox_id"), id}});
            QVERIFY2(QJsonDocument(listed).toJson().contains(ready.toUtf8()), qPrintable(mcp.lastBody));
            // The source sandbox is as it was and answers.
            const QJsonObject got = mcp.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}});
            QVERIFY2(!got.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
            QCOMPARE(readFile(workspace + QStringLiteral("/state.txt")), QByteArray("ready\n"));

            // 2. A restore killed in `sbx create` (after the VM was removed and the workspace put back).
            QVERIFY(writeFile(workspace + QStringLiteral("/state.txt"), "later\n"));
            QVERIFY(killInSlowCreate(env, observer, server, mcp, QStringLiteral("sandbox_restore"),
                                     {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("checkpoint_id"), ready}}));
        }
        QVERIFY(repo.pendingRestore(id));
        const QString runtime = observer.sandboxes->get(id)->record.runtimeName;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "checkpoint-kill");
            QVERIFY2(mcp.open(), qPrintable(server.output()));
            QVERIFY2(waitFor([&] { return !repo.pendingRestore(id); }, scaled(60000)), qPrintable(server.output()));
            QCOMPARE(readFile(workspace + QStringLiteral("/state.txt")), QByteArray("ready\n"));
            QCOMPARE(observer.sandboxes->get(id)->record.state, SandboxState::Stopped);
            QCOMPARE(observer.runtimes().count(runtime), 1);
            const QJsonObject meta = QJsonDocument::fromJson(readFile(env.sbxState() + QStringLiteral("/sandboxes/") + runtime
                                                                      + QStringLiteral("/meta.json"))).object();
            QCOMPARE(meta.value(QStringLiteral("template")).toString(), Checkpoint::templateRefFor(ready));
            const QJsonObject got = mcp.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}});
            QCOMPARE(structured(got, "state"), QStringLiteral("stopped"));

            // 3. A fork killed in `sbx create`.
            QVERIFY(killInSlowCreate(env, observer, server, mcp, QStringLiteral("sandbox_fork"), {{QStringLiteral("checkpoint_id"), ready}}));
        }
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "checkpoint-kill");
            QVERIFY2(mcp.open(), qPrintable(server.output()));
            const QJsonObject list = mcp.callToolResult(QStringLiteral("sandbox_list"));
            const QJsonArray sandboxes = list.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandboxes")).toArray();
            QString forkState;
            for (const QJsonValue &v : sandboxes)
                if (v.toObject().value(QStringLiteral("sandbox_id")).toString() != id)
                    forkState = v.toObject().value(QStringLiteral("state")).toString();
            QCOMPARE(forkState, QStringLiteral("failed"));   // listed as failed, its runtime removed
            QTRY_COMPARE_WITH_TIMEOUT(observer.runtimes(), QStringList{runtime}, scaled(30000));
            const std::optional<Checkpoint> still = repo.find(ready);
            QVERIFY(still && still->isReady());
            QVERIFY(server.terminate() == 0);
        }
    }

    // A clone sandbox: a restore killed in `sbx create` is finished at the next start with the clone's
    // work put back; a fork killed in `sbx create` is failed, its runtime and its host remote gone.
    void killNineDuringACloneRestoreOrForkLeavesTheWorkWhole()
    {
        TestEnvironment env;
        env.set("FAKE_SBX_IDLE_STOP_MS", "600000");
        env.set("CHAT2SBX_WARM_SANDBOXES", "0");
        const QString root = QDir(env.root()).canonicalPath() + QStringLiteral("/repos");
        const QString repo = root + QStringLiteral("/project");
        QVERIFY(QDir().mkpath(repo));
        const auto git = [&repo](const QStringList &args) { return runProcess(QStringLiteral("git"), args, {}, repo).out; };
        git({"init", "-q", "-b", "main"});
        QVERIFY(writeFile(repo + QStringLiteral("/a.txt"), "a1\n"));
        git({"add", "."});
        git({"-c", "user.name=user", "-c", "user.email=user@example.com", "commit", "-qm", "initial"});
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), root);
        SandboxHarness observer(env);
        QVERIFY(observer.opened);
        CheckpointRepository repo_(observer.db);
        const QString identity = QStringLiteral("export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=a "
                                                "GIT_COMMITTER_EMAIL=a@example.com; ");
        const auto sh = [&identity](McpTestClient &mcp, const QString &sandbox, const QString &command) {
            const QJsonObject r = mcp.callToolResult(QStringLiteral("bash"), {{"sandbox_id", sandbox}, {"command", identity + command}});
            return r.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("output")).toString();
        };
        const QString describe = QStringLiteral("git log --format=%s; git status --porcelain");
        QString id, ready, expected, runtime;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "checkpoint-kill");
            QVERIFY2(mcp.open(), qPrintable(server.output()));
            const QJsonObject request{{"host_path", repo}, {"mode", "clone"}};
            const QString approval = structured(mcp.callToolResult(QStringLiteral("workspace_request"), request), "approval_id");
            QCOMPARE(runCli(env, {"approval", "approve", approval}).exitCode, 0);
            const QString workspaceId = structured(mcp.callToolResult(QStringLiteral("workspace_request"), request), "workspace_id");
            id = structured(mcp.callToolResult(QStringLiteral("sandbox_create"), {{"workspace_id", workspaceId}}), "sandbox_id");
            QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(mcp.lastBody));
            runtime = observer.sandboxes->get(id)->record.runtimeName;
            sh(mcp, id, "echo a2 > a.txt && git commit -qam 'agent: a2' && echo wip > wip.txt");
            expected = sh(mcp, id, describe);
            QCOMPARE(expected, QStringLiteral("agent: a2\ninitial\n?? wip.txt\n"));
            ready = structured(mcp.callToolResult(QStringLiteral("sandbox_checkpoint"), {{"sandbox_id", id}}), "checkpoint_id");
            QVERIFY2(ready.startsWith(QLatin1String("ckp_")), qPrintable(mcp.lastBody));
            sh(mcp, id, "git reset -q --hard HEAD~1 && rm wip.txt && echo later > a.txt && git commit -qam later");

            QVERIFY(killInSlowCreate(env, observer, server, mcp, QStringLiteral("sandbox_restore"),
                                     {{"sandbox_id", id}, {"checkpoint_id", ready}}));
        }
        QVERIFY(repo_.pendingRestore(id));
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "checkpoint-kill");
            QVERIFY2(mcp.open(), qPrintable(server.output()));
            QVERIFY2(waitFor([&] { return !repo_.pendingRestore(id); }, scaled(60000)), qPrintable(server.output()));
            QCOMPARE(observer.runtimes().count(runtime), 1);
            QCOMPARE(sh(mcp, id, describe), expected);   // the clone's work as checkpointed, put back after the restart

            QVERIFY(killInSlowCreate(env, observer, server, mcp, QStringLiteral("sandbox_fork"), {{"checkpoint_id", ready}}));
        }
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "checkpoint-kill");
            QVERIFY2(mcp.open(), qPrintable(server.output()));
            QTRY_COMPARE_WITH_TIMEOUT(observer.runtimes(), QStringList{runtime}, scaled(30000));
            // Only the parent's remote is left in the host repository; the parent's work is whole.
            QCOMPARE(QString::fromUtf8(git({"remote"})).trimmed(), QStringLiteral("sandbox-") + runtime);
            QCOMPARE(sh(mcp, id, describe), expected);
            QVERIFY(server.terminate() == 0);
        }
    }
};

QTEST_MAIN(TestCheckpointKill)
#include "tst_checkpoint_kill.moc"
