// sandbox_move (reference/sbx-cloud.md §6), through a real `chat2sbx serve` over MCP against the fake
// sbx, which models `sbx move` (a new sandbox made from the source's filesystem, a suffixed name in
// the cloud, mounts left behind, the source kept):
// - a scratch sandbox goes to the cloud and back under the same id: its workspace files (copied in
//   from this computer's folder) and its HOME intact, one runtime at each step, the old one removed
//   with the network rules added for it (the host is asked for again);
// - refusals before anything changes: a direct folder, an account that cannot stop, memory over the
//   largest cloud size, too little temporary disk, a platform the cloud sandbox does not match;
// - kill -9 of serve at each step: the next start finishes or undoes the move, and one sandbox
//   answers under the id.
#include "CloudSupport.h"
#include "McpTestClient.h"
#include "SandboxHarness.h"

#include "state/SandboxMoveRepository.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QStringList localNames(const TestEnvironment &env)
{
    const CliResult r = runFakeSbx(env, {QStringLiteral("ls"), QStringLiteral("--json")});
    QStringList names;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out);
    const QJsonArray rows = doc.isArray() ? doc.array() : doc.object().value(QStringLiteral("sandboxes")).toArray();
    for (const QJsonValue &v : rows)
        names << v.toObject().value(QStringLiteral("name")).toString();
    return names;
}

void enableCloud(TestEnvironment &env)
{
    env.set(QStringLiteral("FAKE_SBX_TEMPLATES"), pinnedTemplate());
    env.set(QStringLiteral("CHAT2SBX_CLOUD_SANDBOXES"), QStringLiteral("1"));
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
    env.set(QStringLiteral("CHAT2SBX_SBX_RECHECK_SECONDS"), QStringLiteral("1"));
    env.set(QStringLiteral("CHAT2SBX_MOVE_TEMP_SPACE_GIB"), QStringLiteral("1"));
}

QJsonObject moveTo(McpTestClient &mcp, const QString &id, const QString &to)
{
    return mcp.callToolResult(QStringLiteral("sandbox_move"), {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("to"), to}});
}

// A failed move's story for the log: the server's end and the fake's calls (QTest cuts a failure's
// message short).
void showWhatHappened(const TestEnvironment &env, ServerProcess &server)
{
    qWarning().noquote() << server.output().right(6000)
                         << QString::fromUtf8(readFile(env.sbxState() + QStringLiteral("/calls.log")).right(4000));
}

QString placementOf(McpTestClient &mcp, const QString &id)
{
    const QJsonObject r = mcp.callToolResult(QStringLiteral("sandbox_list"), {});
    for (const QJsonValue &v : structured(r).value(QStringLiteral("sandboxes")).toArray())
        if (v.toObject().value(QStringLiteral("sandbox_id")).toString() == id)
            return v.toObject().value(QStringLiteral("placement")).toString();
    return {};
}

QString createLocal(McpTestClient &mcp, const QJsonObject &args = {})
{
    const QJsonObject made = mcp.callToolResult(QStringLiteral("sandbox_create"), args);
    return structured(made).value(QStringLiteral("sandbox_id")).toString();
}

const QString kAgentWork = QStringLiteral("printf 'alpha\\nbeta\\n' > a.txt && git -c user.name=agent -c user.email=agent@example.com "
                                          "commit -qam 'agent: add beta' && echo draft > notes.txt && echo staged > s.txt && git add s.txt");
const QString kCloneState = QStringLiteral("git log --format=%s | head -2 | tr '\\n' ' '; git status --porcelain | tr '\\n' ' '; cat notes.txt");

} // namespace

class TestSandboxMove : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
    }

    void aScratchSandboxGoesToTheCloudAndBack()
    {
        TestEnvironment env;
        enableCloud(env);
        SandboxHarness observer(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "move-test");
        QVERIFY(mcp.open());

        const QString id = createLocal(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QCOMPARE(bashOutput(mcp, id, QStringLiteral("echo one > f.txt && echo pkg > ~/installed.txt && cat f.txt")), QStringLiteral("one\n"));
        QCOMPARE(localNames(env).size(), 1);
        // A host allowed for it here: the rule is of this runtime, and does not follow it.
        const QJsonObject hosts{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("hosts"), QJsonArray{QStringLiteral("api.example.com")}}};
        const QString request = structured(mcp.callToolResult(QStringLiteral("network_request"), hosts)).value(QStringLiteral("request_id")).toString();
        QVERIFY2(runCli(env, {QStringLiteral("network"), QStringLiteral("allow"), request}).exitCode == 0, qPrintable(request));
        QVERIFY(runFakeSbx(env, {QStringLiteral("policy"), QStringLiteral("ls")}).out.contains("api.example.com"));

        const QJsonObject up = moveTo(mcp, id, QStringLiteral("cloud"));
        QVERIFY2(!up.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(structured(up).value(QStringLiteral("sandbox_id")).toString(), id);
        QCOMPARE(structured(up).value(QStringLiteral("moved_to")).toString(), QStringLiteral("cloud"));
        QCOMPARE(structured(up).value(QStringLiteral("placement")).toString(), QStringLiteral("cloud"));
        QVERIFY2(!structured(up).value(QStringLiteral("left_behind")).toArray().isEmpty(), qPrintable(mcp.lastBody));
        observer.checkLeaks(mcp.lastBody);
        QCOMPARE(placementOf(mcp, id), QStringLiteral("cloud"));
        // One runtime: the cloud one; the local source is removed.
        QCOMPARE(cloudRows(env).size(), 1);
        QVERIFY2(waitFor([&] { return localNames(env).isEmpty(); }, 10000), qPrintable(localNames(env).join(',')));
        QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt ~/installed.txt"), QStringLiteral("one\npkg\n")));
        QCOMPARE(bashOutput(mcp, id, QStringLiteral("echo two > g.txt && basename \"$PWD\"")), QStringLiteral("workspace\n"));
        // The old runtime's rule is gone from this computer's policy, and the host is asked for again.
        QVERIFY(waitFor([&] { return !runFakeSbx(env, {QStringLiteral("policy"), QStringLiteral("ls")}).out.contains("api.example.com"); },
                        10000));
        QCOMPARE(structured(mcp.callToolResult(QStringLiteral("network_request"), hosts)).value(QStringLiteral("status")).toString(),
                 QStringLiteral("approval_required"));
        // In the cloud a checkpoint is a cloud template; once the sandbox is back here, restoring it is
        // refused with what to do instead.
        const QJsonObject cloudCheckpoint = mcp.callToolResult(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), id}});
        QVERIFY2(!cloudCheckpoint.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(structured(cloudCheckpoint).value(QStringLiteral("placement")).toString(), QStringLiteral("cloud"));
        const QString cloudCheckpointId = structured(cloudCheckpoint).value(QStringLiteral("checkpoint_id")).toString();

        const QJsonObject down = moveTo(mcp, id, QStringLiteral("local"));
        if (down.value(QStringLiteral("isError")).toBool(true))
            showWhatHappened(env, server);
        QVERIFY2(!down.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(structured(down).value(QStringLiteral("placement")).toString(), QStringLiteral("local"));
        QCOMPARE(structured(down).value(QStringLiteral("workspace_path")).toString(), QStringLiteral("~/workspace"));
        QVERIFY2(structured(down).value(QStringLiteral("work_lives")).toString().contains(QLatin1String("no folder of this computer")),
                 qPrintable(mcp.lastBody));
        QCOMPARE(placementOf(mcp, id), QStringLiteral("local"));
        QVERIFY2(waitFor([&] { return cloudRows(env).isEmpty(); }, 10000), qPrintable(QJsonDocument(cloudRows(env)).toJson()));
        QCOMPARE(localNames(env).size(), 1);
        QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt g.txt ~/installed.txt"), QStringLiteral("one\ntwo\npkg\n")));
        const QJsonObject refusedRestore = mcp.callToolResult(QStringLiteral("sandbox_restore"), {{QStringLiteral("sandbox_id"), id},
                                                                                                {QStringLiteral("checkpoint_id"), cloudCheckpointId}});
        QVERIFY(refusedRestore.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(refusedRestore).contains(QLatin1String("to: cloud")), qPrintable(text(refusedRestore)));
        // Back here its workspace is in the VM, and a checkpoint and a restore of it keep that workspace.
        const QJsonObject checkpoint = mcp.callToolResult(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), id}});
        QVERIFY2(!checkpoint.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        const QString checkpointId = structured(checkpoint).value(QStringLiteral("checkpoint_id")).toString();
        QVERIFY(bashSays(mcp, id, QStringLiteral("echo three > h.txt && cat h.txt"), QStringLiteral("three\n")));
        const QJsonObject restored = mcp.callToolResult(QStringLiteral("sandbox_restore"), {{QStringLiteral("sandbox_id"), id},
                                                                                          {QStringLiteral("checkpoint_id"), checkpointId}});
        QVERIFY2(!restored.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt g.txt"), QStringLiteral("one\ntwo\n")));
        QVERIFY(bashSays(mcp, id, QStringLiteral("test -e h.txt && echo present || echo gone"), QStringLiteral("gone\n")));
        // And up again from the command line (the running server moves it): a workspace that lives in
        // the VM goes along with its filesystem.
        const CliResult again = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("move"), id, QStringLiteral("--to"),
                                             QStringLiteral("cloud"), QStringLiteral("--ttl"), QStringLiteral("2h"), QStringLiteral("--json")});
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(QJsonDocument::fromJson(again.out).object().value(QStringLiteral("moved_to")).toString(), QStringLiteral("cloud"));
        QCOMPARE(placementOf(mcp, id), QStringLiteral("cloud"));
        QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt g.txt"), QStringLiteral("one\ntwo\n")));
        const CliResult refused = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("move"), id, QStringLiteral("--to"),
                                               QStringLiteral("cloud")});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("runs in Docker's cloud already"), refused.err.constData());
        QCOMPARE(server.terminate(), 0);
    }

    void aCloneSandboxGoesToTheCloudAndBackWithItsWork()
    {
        TestEnvironment env;
        enableCloud(env);
        const QString repo = env.root() + QStringLiteral("/repos/project");
        const QString workspaceId = cloneWorkspace(env, repo);
        QVERIFY(!workspaceId.isEmpty());
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "move-test");
        QVERIFY(mcp.open());
        const QString id = createLocal(mcp, {{QStringLiteral("workspace_id"), workspaceId}});
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QVERIFY2(!bashOutput(mcp, id, kAgentWork).startsWith(QLatin1String("ERROR")), qPrintable(mcp.lastBody));
        const QString expected = QStringLiteral("agent: add beta initial A  s.txt ?? notes.txt draft\n");
        QCOMPARE(bashOutput(mcp, id, kCloneState), expected);

        const QJsonObject up = moveTo(mcp, id, QStringLiteral("cloud"));
        QVERIFY2(!up.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody + server.output().right(3000)));
        QCOMPARE(placementOf(mcp, id), QStringLiteral("cloud"));
        QVERIFY2(bashSays(mcp, id, kCloneState, expected), qPrintable(bashOutput(mcp, id, kCloneState)));
        QVERIFY(waitFor([&] { return localNames(env).isEmpty(); }, 10000));

        const QJsonObject down = moveTo(mcp, id, QStringLiteral("local"));
        if (down.value(QStringLiteral("isError")).toBool(true))
            showWhatHappened(env, server);
        QVERIFY2(!down.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(placementOf(mcp, id), QStringLiteral("local"));
        QVERIFY2(bashSays(mcp, id, kCloneState, expected), qPrintable(bashOutput(mcp, id, kCloneState)));
        QVERIFY(waitFor([&] { return cloudRows(env).isEmpty(); }, 10000));

        // The work comes home as a branch of the user's repository, as a clone's always does.
        const QJsonObject exported = mcp.callToolResult(QStringLiteral("export_changes"), {{QStringLiteral("sandbox_id"), id}});
        QVERIFY2(!exported.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(gitLine(repo, {QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s"),
                                QStringLiteral("chat2sbx/") + id + QStringLiteral("~1")}),
                 QStringLiteral("agent: add beta"));
        QCOMPARE(server.terminate(), 0);
    }

    // sbx cannot remove the source after a clone moved: the move is done (it says what is left), the
    // sandbox is used in the cloud, and the next start removes the old copy and nothing else: the
    // work done since is not put back over nor the move undone.
    void aSourceLeftBehindGoesAtTheNextStartAndNothingElse()
    {
        TestEnvironment env;
        enableCloud(env);
        const QString repo = env.root() + QStringLiteral("/repos/project");
        const QString workspaceId = cloneWorkspace(env, repo);
        QVERIFY(!workspaceId.isEmpty());
        SandboxHarness observer(env);
        QString id;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "move-test");
            QVERIFY(mcp.open());
            id = createLocal(mcp, {{QStringLiteral("workspace_id"), workspaceId}});
            QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
            QVERIFY2(!bashOutput(mcp, id, kAgentWork).startsWith(QLatin1String("ERROR")), qPrintable(mcp.lastBody));
            env.setSbxFaults({QStringLiteral("FAKE_SBX_FAIL_RM=ERROR: the test refuses rm")});
            const QJsonObject up = moveTo(mcp, id, QStringLiteral("cloud"));
            QVERIFY2(!up.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
            QVERIFY2(QJsonDocument(structured(up).value(QStringLiteral("warnings")).toArray()).toJson().contains("could not be removed yet"),
                     qPrintable(mcp.lastBody));
            QCOMPARE(localNames(env).size(), 1);
            QVERIFY(bashSays(mcp, id, QStringLiteral("git -c user.name=agent -c user.email=agent@example.com commit -q --allow-empty "
                                                     "-m 'agent: after the move' && git log -1 --format=%s"),
                             QStringLiteral("agent: after the move\n")));
            QCOMPARE(server.terminate(), 0);
        }
        env.setSbxFaults({});
        ServerProcess again(env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        SandboxMoveRepository moves(observer.db);
        QVERIFY2(waitFor([&] { return !moves.find(id) && localNames(env).isEmpty(); }, 30000), qPrintable(again.output()));
        McpTestClient mcp(env.mcpUrl(), "move-test");
        QVERIFY(mcp.open());
        QCOMPARE(placementOf(mcp, id), QStringLiteral("cloud"));
        QCOMPARE(cloudRows(env).size(), 1);
        QVERIFY2(bashSays(mcp, id, QStringLiteral("git log -2 --format=%s | tr '\\n' ' '; cat notes.txt"),
                          QStringLiteral("agent: after the move agent: add beta draft\n")),
                 qPrintable(bashOutput(mcp, id, QStringLiteral("git log -3 --format=%s; cat notes.txt"))));
        QCOMPARE(again.terminate(), 0);
    }

    // While serve runs: once sbx can remove the old copy, it goes, and the sandbox moves again.
    void aSourceLeftBehindGoesOnceSbxCanRemoveIt()
    {
        TestEnvironment env;
        enableCloud(env);
        SandboxHarness observer(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "move-test");
        QVERIFY(mcp.open());
        const QString id = createLocal(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QCOMPARE(bashOutput(mcp, id, QStringLiteral("echo kept > f.txt && cat f.txt")), QStringLiteral("kept\n"));
        env.setSbxFaults({QStringLiteral("FAKE_SBX_FAIL_RM=ERROR: the test refuses rm")});
        const QJsonObject up = moveTo(mcp, id, QStringLiteral("cloud"));
        QVERIFY2(!up.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(localNames(env).size(), 1);
        const QJsonObject refused = moveTo(mcp, id, QStringLiteral("local"));
        QVERIFY(refused.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(refused).contains(QLatin1String("tries again")), qPrintable(text(refused)));
        env.setSbxFaults({});
        SandboxMoveRepository moves(observer.db);
        QVERIFY2(waitFor([&] { return !moves.find(id) && localNames(env).isEmpty(); }, 30000), qPrintable(server.output()));
        const QJsonObject down = moveTo(mcp, id, QStringLiteral("local"));
        QVERIFY2(!down.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt"), QStringLiteral("kept\n")));
        QCOMPARE(server.terminate(), 0);
    }

    void refusalsChangeNothing()
    {
        TestEnvironment env;
        enableCloud(env);
        const QString folder = env.home() + QStringLiteral("/project");
        QVERIFY(QDir().mkpath(folder));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), env.home());
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "move-test");
        QVERIFY(mcp.open());

        // Memory over the largest cloud size (xl, 32 GiB) is refused before anything is captured.
        const QString big = createLocal(mcp, {{QStringLiteral("memory"), QStringLiteral("32g")}});
        QVERIFY2(!big.isEmpty(), qPrintable(mcp.lastBody));
        const QString id = createLocal(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QJsonObject r = moveTo(mcp, id, QStringLiteral("local"));
        QVERIFY(r.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(r).contains(QLatin1String("on this computer already")), qPrintable(text(r)));

        // An account that cannot stop: a moved sandbox's end would delete its files.
        const QJsonObject cloud = mcp.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("placement"), QStringLiteral("cloud")}});
        const QString cloudId = structured(cloud).value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(!cloudId.isEmpty(), qPrintable(mcp.lastBody));

        // Too little temporary disk for a move to this computer.
        server.terminate();
        env.set(QStringLiteral("CHAT2SBX_MOVE_TEMP_SPACE_GIB"), QStringLiteral("1000000"));
        ServerProcess second(env);
        QVERIFY2(second.start(), qPrintable(second.output()));
        McpTestClient mcp2(env.mcpUrl(), "move-test");
        QVERIFY(mcp2.open());
        r = moveTo(mcp2, cloudId, QStringLiteral("local"));
        QVERIFY(r.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(r).contains(QLatin1String("1000000 GiB")), qPrintable(text(r)));
        QCOMPARE(placementOf(mcp2, cloudId), QStringLiteral("cloud"));

        // A cloud sandbox of another platform: sbx refuses, the sandbox stays where it is and answers.
        second.terminate();
        env.set(QStringLiteral("CHAT2SBX_MOVE_TEMP_SPACE_GIB"), QStringLiteral("1"));
        env.setSbxFaults({QStringLiteral("FAKE_SBX_MOVE_CLOUD_PLATFORM=linux/arm64")});
        ServerProcess third(env);
        QVERIFY2(third.start(), qPrintable(third.output()));
        McpTestClient mcp3(env.mcpUrl(), "move-test");
        QVERIFY(mcp3.open());
        r = moveTo(mcp3, cloudId, QStringLiteral("local"));
        QVERIFY(r.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(r).contains(QLatin1String("nothing was changed")) && text(r).contains(QLatin1String("platform")), qPrintable(text(r)));
        QCOMPARE(placementOf(mcp3, cloudId), QStringLiteral("cloud"));
        QCOMPARE(cloudRows(env).size(), 1);
        QVERIFY(bashSays(mcp3, cloudId, QStringLiteral("echo still"), QStringLiteral("still\n")));
        env.setSbxFaults({});

        r = moveTo(mcp3, big, QStringLiteral("cloud"));
        QVERIFY(r.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(r).contains(QLatin1String("cloudMaxSize")), qPrintable(text(r)));

        // A direct folder of this computer stays here.
        const QJsonObject ws = mcp3.callToolResult(QStringLiteral("workspace_request"),
                                                   {{QStringLiteral("path"), folder}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        Q_UNUSED(ws);
        third.terminate();

        env.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_NO_STOP=1")});
        env.set(QStringLiteral("CHAT2SBX_CLOUD_MAX_SANDBOXES"), QStringLiteral("5"));
        ServerProcess fourth(env);
        QVERIFY2(fourth.start(), qPrintable(fourth.output()));
        McpTestClient mcp4(env.mcpUrl(), "move-test");
        QVERIFY(mcp4.open());
        // The account learns it cannot stop from a create, as a user's would.
        const QJsonObject learnt = mcp4.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("placement"), QStringLiteral("cloud")}});
        QVERIFY2(!learnt.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp4.lastBody));
        r = moveTo(mcp4, id, QStringLiteral("cloud"));
        QVERIFY(r.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(r).contains(QLatin1String("cannot stop")), qPrintable(text(r)));
        QCOMPARE(placementOf(mcp4, id), QStringLiteral("local"));
        QCOMPARE(fourth.terminate(), 0);
    }

    // kill -9 of serve at each step of a move: the next start finishes or undoes it, and one sandbox
    // answers under the id with its files.
    void killAtEachStep_data()
    {
        QTest::addColumn<QString>("step");
        QTest::newRow("during sbx move") << QStringLiteral("moving");
        QTest::newRow("destination made") << QStringLiteral("created");
        QTest::newRow("record switched") << QStringLiteral("switched");
    }

    void killAtEachStep()
    {
        QFETCH(QString, step);
        TestEnvironment env;
        enableCloud(env);
        SandboxHarness observer(env);
        QString id;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "move-test");
            QVERIFY(mcp.open());
            id = createLocal(mcp);
            QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
            QCOMPARE(bashOutput(mcp, id, QStringLiteral("echo kept > f.txt && cat f.txt")), QStringLiteral("kept\n"));
            // Slow steps, so that the kill lands inside the one asked for.
            env.setSbxFaults({QStringLiteral("FAKE_SBX_MOVE_DELAY_MS=3000"), QStringLiteral("FAKE_SBX_CLOUD_DELAY_MS=1500")});
            const auto reply = mcp.callToolAsync(QStringLiteral("sandbox_move"), {{QStringLiteral("sandbox_id"), id},
                                                                                {QStringLiteral("to"), QStringLiteral("cloud")}});
            SandboxMoveRepository moves(observer.db);
            QVERIFY2(waitFor([&] {
                const std::optional<SandboxMove> m = moves.find(id);
                return m && m->step == step;
            }, 30000), qPrintable(server.output()));
            if (step == QLatin1String("moving")) {
                // sandbox_list shows the step: stopped, and why.
                McpTestClient lister(env.mcpUrl(), "move-test");
                QVERIFY(lister.open());
                const QJsonObject list = lister.callToolResult(QStringLiteral("sandbox_list"), {});
                QJsonObject row;
                for (const QJsonValue &v : structured(list).value(QStringLiteral("sandboxes")).toArray())
                    if (v.toObject().value(QStringLiteral("sandbox_id")).toString() == id)
                        row = v.toObject();
                QCOMPARE(row.value(QStringLiteral("state")).toString(), QStringLiteral("stopped"));
                QVERIFY2(row.value(QStringLiteral("sleep_note")).toString().contains(QLatin1String("being moved to Docker's cloud")),
                         qPrintable(QJsonDocument(row).toJson()));
            }
            server.kill9();
        }
        env.setSbxFaults({});
        ServerProcess again(env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        SandboxMoveRepository moves(observer.db);
        QVERIFY2(waitFor([&] { return !moves.find(id); }, 30000), qPrintable(again.output()));
        McpTestClient mcp(env.mcpUrl(), "move-test");
        QVERIFY(mcp.open());
        // One sandbox under the id, never none and never two.
        const int runtimes = int(cloudRows(env).size()) + int(localNames(env).size());
        QVERIFY2(waitFor([&] { return int(cloudRows(env).size()) + int(localNames(env).size()) == 1; }, 15000),
                 qPrintable(QStringLiteral("%1 runtimes: %2").arg(runtimes).arg(again.output())));
        const QString placement = placementOf(mcp, id);
        QCOMPARE(placement, step == QLatin1String("moving") ? placement : QStringLiteral("cloud"));
        QVERIFY2(bashSays(mcp, id, QStringLiteral("cat f.txt"), QStringLiteral("kept\n")), qPrintable(again.output()));
        QCOMPARE(again.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSandboxMove)
#include "tst_sandbox_move.moc"
