// Checkpoints of cloud sandboxes (reference/sbx-cloud.md §2.11, §7), through a real `chat2sbx serve`
// over MCP against the fake sbx, whose cloud templates keep a sandbox's processes across
// `--capture-mode all` (started again in a sandbox made from the template):
// - a memory checkpoint restored and forked with a process still running, a disk-only one without it,
//   the files of each moment back, the sandbox running on while it was saved;
// - kill -9 of serve during a cloud save (failed, its template gone) and a restore (finished at the
//   next start: the checkpoint's files, one cloud sandbox under the id);
// - cloud checkpoints counted against their own budget, apart from this computer's;
// - refusals: keep_memory for a sandbox on this computer, docker_images in the cloud, a sandbox whose
//   memory the cloud cannot capture (the reason, and that a disk checkpoint works), a fork asked for
//   on the other side of its checkpoint (only through a move).
#include "CloudSupport.h"
#include "McpTestClient.h"
#include "SandboxHarness.h"

#include "state/Checkpoint.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

void enableCloud(TestEnvironment &env)
{
    env.set(QStringLiteral("FAKE_SBX_TEMPLATES"), pinnedTemplate());
    env.set(QStringLiteral("CHAT2SBX_CLOUD_SANDBOXES"), QStringLiteral("1"));
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
}

// A marker process left running in the sandbox: it adds a line to ~/ticks five times a second.
const QString kStartMarker = QStringLiteral(
    "printf 'echo $$ > \"$HOME/marker.pid\"; while true; do date +%%s%%N >> \"$HOME/ticks\"; sleep 0.2; done\\n' > ~/marker.sh && "
    "(setsid sh ~/marker.sh </dev/null >/dev/null 2>&1 &); echo started");
const QString kMarkerRuns = QStringLiteral(
    "a=$(cat ~/ticks 2>/dev/null | wc -l); sleep 1.2; b=$(cat ~/ticks 2>/dev/null | wc -l); "
    "if [ \"$b\" -gt \"$a\" ]; then echo runs; else echo stopped; fi");

QJsonObject checkpoint(McpTestClient &mcp, const QString &id, bool keepMemory, const QString &label = {})
{
    QJsonObject args{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("keep_memory"), keepMemory}};
    if (!label.isEmpty())
        args.insert(QStringLiteral("label"), label);
    return mcp.callToolResult(QStringLiteral("sandbox_checkpoint"), args, 120000);
}

QStringList cloudTemplateNames(const TestEnvironment &env)
{
    const CliResult r = runFakeSbx(env, {QStringLiteral("--cloud"), QStringLiteral("template"), QStringLiteral("ls"), QStringLiteral("--json")});
    QStringList names;
    for (const QJsonValue &v : QJsonDocument::fromJson(r.out).object().value(QStringLiteral("templates")).toArray())
        names << v.toObject().value(QStringLiteral("name")).toString();
    return names;
}

// How many `sbx <words…>` the server has started (the fake logs a call as it starts).
int started(const SandboxHarness &observer, const QStringList &words)
{
    int n = 0;
    for (const QStringList &c : observer.calls())
        n += c.mid(0, words.size()) == words ? 1 : 0;
    return n;
}

QStringList checkpointIds(McpTestClient &mcp, const QString &id)
{
    const QJsonObject r = mcp.callToolResult(QStringLiteral("sandbox_checkpoints"), {{QStringLiteral("sandbox_id"), id}});
    QStringList ids;
    for (const QJsonValue &v : structured(r).value(QStringLiteral("checkpoints")).toArray())
        ids << v.toObject().value(QStringLiteral("checkpoint_id")).toString();
    return ids;
}

} // namespace

class TestCloudCheckpoints : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
    }

    void aMemoryCheckpointComesBackWithItsProcessAndADiskOneWithout()
    {
        TestEnvironment env;
        enableCloud(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-checkpoint-test");
        QVERIFY(mcp.open());
        const QString id = createInCloud(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QCOMPARE(bashOutput(mcp, id, QStringLiteral("echo one > f.txt && ") + kStartMarker), QStringLiteral("started\n"));
        QVERIFY(bashSays(mcp, id, kMarkerRuns, QStringLiteral("runs\n")));

        const QJsonObject withMemory = checkpoint(mcp, id, true, QStringLiteral("marker running"));
        QVERIFY2(!withMemory.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        const QJsonObject saved = structured(withMemory);
        QCOMPARE(saved.value(QStringLiteral("state")).toString(), QStringLiteral("ready"));
        QCOMPARE(saved.value(QStringLiteral("placement")).toString(), QStringLiteral("cloud"));
        QVERIFY(saved.value(QStringLiteral("keeps_memory")).toBool());
        QVERIFY2(saved.value(QStringLiteral("size_bytes")).toDouble() > double(1 << 30), qPrintable(mcp.lastBody));
        QVERIFY(saved.contains(QStringLiteral("took_ms")));
        QVERIFY2(QJsonDocument(saved.value(QStringLiteral("kept")).toArray()).toJson().contains("memory and running processes"),
                 qPrintable(mcp.lastBody));
        const QString memoryId = saved.value(QStringLiteral("checkpoint_id")).toString();
        // The save left it running: the marker goes on, nothing had to be woken.
        QCOMPARE(bashOutput(mcp, id, kMarkerRuns), QStringLiteral("runs\n"));

        const QJsonObject diskOnly = checkpoint(mcp, id, false);
        QVERIFY2(!diskOnly.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY(!structured(diskOnly).value(QStringLiteral("keeps_memory")).toBool(true));
        QVERIFY2(QJsonDocument(structured(diskOnly).value(QStringLiteral("not_kept")).toArray()).toJson().contains("keep_memory"),
                 qPrintable(mcp.lastBody));
        const QString diskId = structured(diskOnly).value(QStringLiteral("checkpoint_id")).toString();
        QCOMPARE(cloudTemplateNames(env).size(), 2);
        // The command line lists where each is.
        const CliResult listed = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("checkpoints"), id});
        QVERIFY2(listed.exitCode == 0 && listed.out.contains(memoryId.toUtf8() + "  ready ") && listed.out.contains("[cloud, with memory]")
                     && listed.out.contains("[cloud]\n"),
                 listed.out.constData());

        // Now the marker ends and the file changes.
        QCOMPARE(bashOutput(mcp, id, QStringLiteral("kill $(cat ~/marker.pid); echo two > f.txt; cat f.txt")), QStringLiteral("two\n"));
        QVERIFY(bashSays(mcp, id, kMarkerRuns, QStringLiteral("stopped\n")));

        const QJsonObject restored = mcp.callToolResult(QStringLiteral("sandbox_restore"), {{QStringLiteral("sandbox_id"), id},
                                                                                          {QStringLiteral("checkpoint_id"), memoryId},
                                                                                          {QStringLiteral("end_running_commands"), true}},
                                                        120000);
        QVERIFY2(!restored.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY2(mcp.lastBody.contains("processes that ran at the checkpoint"), qPrintable(mcp.lastBody));
        QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt"), QStringLiteral("one\n")));
        QVERIFY(bashSays(mcp, id, kMarkerRuns, QStringLiteral("runs\n")));
        QCOMPARE(cloudRows(env).size(), 1);   // one cloud sandbox answers under the id

        const QJsonObject restoredDisk = mcp.callToolResult(QStringLiteral("sandbox_restore"), {{QStringLiteral("sandbox_id"), id},
                                                                                              {QStringLiteral("checkpoint_id"), diskId},
                                                                                              {QStringLiteral("end_running_commands"), true}},
                                                            120000);
        QVERIFY2(!restoredDisk.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt"), QStringLiteral("one\n")));
        QVERIFY(bashSays(mcp, id, kMarkerRuns, QStringLiteral("stopped\n")));
        QCOMPARE(cloudRows(env).size(), 1);

        // A fork of the memory checkpoint: a second cloud sandbox with the process running there too.
        const QJsonObject fork = mcp.callToolResult(QStringLiteral("sandbox_fork"), {{QStringLiteral("checkpoint_id"), memoryId}}, 120000);
        QVERIFY2(!fork.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        const QString forkId = structured(fork).value(QStringLiteral("sandbox_id")).toString();
        QVERIFY(!forkId.isEmpty() && forkId != id);
        QCOMPARE(structured(fork).value(QStringLiteral("placement")).toString(), QStringLiteral("cloud"));
        QVERIFY(bashSays(mcp, forkId, QStringLiteral("cat f.txt"), QStringLiteral("one\n")));
        QVERIFY(bashSays(mcp, forkId, kMarkerRuns, QStringLiteral("runs\n")));
        QCOMPARE(cloudRows(env).size(), 2);

        // Deleting a cloud checkpoint removes its cloud template.
        const QString diskTemplate = Checkpoint::cloudTemplateNameFor(diskId);
        QVERIFY(cloudTemplateNames(env).contains(diskTemplate));
        const QJsonObject deleted = mcp.callToolResult(QStringLiteral("sandbox_checkpoint_delete"), {{QStringLiteral("checkpoint_id"), diskId}});
        QVERIFY2(!deleted.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY(!cloudTemplateNames(env).contains(diskTemplate));
        QVERIFY(!checkpointIds(mcp, id).contains(diskId));
        QCOMPARE(server.terminate(), 0);
    }

    void cloudCheckpointsHaveABudgetOfTheirOwn()
    {
        TestEnvironment env;
        enableCloud(env);
        env.set(QStringLiteral("CHAT2SBX_CHECKPOINT_MAX_COUNT"), QStringLiteral("1"));
        env.set(QStringLiteral("CHAT2SBX_CLOUD_CHECKPOINT_MAX_COUNT"), QStringLiteral("2"));
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-checkpoint-test");
        QVERIFY(mcp.open());
        const QJsonObject local = mcp.callToolResult(QStringLiteral("sandbox_create"), {});
        const QString localId = structured(local).value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(!localId.isEmpty(), qPrintable(mcp.lastBody));
        const QJsonObject localCheckpoint = checkpoint(mcp, localId, false);
        QVERIFY2(!localCheckpoint.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        const QString localCheckpointId = structured(localCheckpoint).value(QStringLiteral("checkpoint_id")).toString();

        const QString id = createInCloud(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QStringList made;
        for (int i = 0; i < 3; ++i) {
            const QJsonObject c = checkpoint(mcp, id, false);
            QVERIFY2(!c.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
            made << structured(c).value(QStringLiteral("checkpoint_id")).toString();
            // Two cloud ones fit beside the local one; the third evicts the oldest cloud one only.
            QCOMPARE(structured(c).value(QStringLiteral("evicted")).toArray().size(), i < 2 ? 0 : 1);
            if (i == 2) {
                QCOMPARE(structured(c).value(QStringLiteral("evicted")).toArray().first().toObject().value(QStringLiteral("checkpoint_id")).toString(),
                         made.first());
                QVERIFY2(text(c).contains(QLatin1String("cloudCheckpointMaxCount")), qPrintable(text(c)));
            }
        }
        QVERIFY(waitFor([&] { return !cloudTemplateNames(env).contains(Checkpoint::cloudTemplateNameFor(made.first())); }, 10000));
        QCOMPARE(checkpointIds(mcp, localId), QStringList{localCheckpointId});
        QCOMPARE(checkpointIds(mcp, id), (QStringList{made.at(1), made.at(2)}));
        QCOMPARE(server.terminate(), 0);
    }

    // kill -9 of serve in the middle of a cloud save and of a cloud restore (the fake made slow there).
    void killNineDuringASaveAndARestore()
    {
        TestEnvironment env;
        enableCloud(env);
        SandboxHarness observer(env);
        QVERIFY(observer.opened);
        QString id, ready;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "cloud-checkpoint-kill");
            QVERIFY(mcp.open());
            id = createInCloud(mcp);
            QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
            QCOMPARE(bashOutput(mcp, id, QStringLiteral("echo one > f.txt && cat f.txt")), QStringLiteral("one\n"));
            const QJsonObject made = checkpoint(mcp, id, true);
            QVERIFY2(!made.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
            ready = structured(made).value(QStringLiteral("checkpoint_id")).toString();
            QCOMPARE(bashOutput(mcp, id, QStringLiteral("echo two > f.txt && cat f.txt")), QStringLiteral("two\n"));
            // A save killed while the cloud snapshots.
            env.setSbxFaults({QStringLiteral("FAKE_SBX_SLOW_CLOUD_TEMPLATE_SAVE=60000")});
            const QStringList save{QStringLiteral("--cloud"), QStringLiteral("template"), QStringLiteral("save")};
            const int saves = started(observer, save);
            auto pending = mcp.callToolAsync(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), id}});
            QVERIFY(waitFor([&] { return started(observer, save) > saves; }, scaled(30000)));
            server.kill9();
            env.setSbxFaults({});
        }
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "cloud-checkpoint-kill");
            QVERIFY(mcp.open());
            const QJsonObject listed = mcp.callToolResult(QStringLiteral("sandbox_checkpoints"), {{QStringLiteral("sandbox_id"), id}});
            const QJsonArray rows = structured(listed).value(QStringLiteral("checkpoints")).toArray();
            QCOMPARE(rows.size(), 2);
            for (const QJsonValue &v : rows)
                QCOMPARE(v.toObject().value(QStringLiteral("state")).toString(),
                         v.toObject().value(QStringLiteral("checkpoint_id")).toString() == ready ? QStringLiteral("ready")
                                                                                                 : QStringLiteral("failed"));
            QCOMPARE(cloudTemplateNames(env), QStringList{Checkpoint::cloudTemplateNameFor(ready)});   // nothing of the killed save
            QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt"), QStringLiteral("two\n")));
            // A restore killed while the cloud makes its sandbox from the template.
            env.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_CREATE_DELAY_MS=60000")});
            const QStringList create{QStringLiteral("--cloud"), QStringLiteral("create")};
            const int creates = started(observer, create);
            auto pending = mcp.callToolAsync(QStringLiteral("sandbox_restore"), {{QStringLiteral("sandbox_id"), id},
                                                                                {QStringLiteral("checkpoint_id"), ready}});
            QVERIFY(waitFor([&] { return started(observer, create) > creates; }, scaled(60000)));
            server.kill9();
            env.setSbxFaults({});
        }
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-checkpoint-kill");
        QVERIFY(mcp.open());
        // The restore is finished at the start: the checkpoint's file, one cloud sandbox under the id.
        QVERIFY(bashSays(mcp, id, QStringLiteral("cat f.txt"), QStringLiteral("one\n")));
        QVERIFY2(waitFor([&] { return cloudRows(env).size() == 1; }, 10000), qPrintable(QJsonDocument(cloudRows(env)).toJson()));
        QCOMPARE(server.terminate(), 0);
    }

    void whatIsRefusedAndWhy()
    {
        TestEnvironment env;
        enableCloud(env);
        env.set(QStringLiteral("FAKE_SBX_CLOUD_NO_MEMORY_CAPTURE"), QStringLiteral("1"));
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-checkpoint-test");
        QVERIFY(mcp.open());
        const QString localId = structured(mcp.callToolResult(QStringLiteral("sandbox_create"), {})).value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(!localId.isEmpty(), qPrintable(mcp.lastBody));
        const QJsonObject localMemory = checkpoint(mcp, localId, true);
        QVERIFY(localMemory.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(localMemory).contains(QLatin1String("keep_memory needs a sandbox in Docker's cloud")), qPrintable(text(localMemory)));

        const QString id = createInCloud(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        const QJsonObject images = mcp.callToolResult(QStringLiteral("sandbox_checkpoint"),
                                                      {{QStringLiteral("sandbox_id"), id},
                                                       {QStringLiteral("docker_images"), QJsonArray{QStringLiteral("postgres:16")}}});
        QVERIFY(images.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(images).contains(QLatin1String("without docker_images")), qPrintable(text(images)));

        const QJsonObject memory = checkpoint(mcp, id, true);
        QVERIFY(memory.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(memory).contains(QLatin1String("without keep_memory")), qPrintable(text(memory)));
        QVERIFY(cloudTemplateNames(env).isEmpty());   // nothing of the failed save stays
        const QJsonObject disk = checkpoint(mcp, id, false);
        QVERIFY2(!disk.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        // A fork runs where its checkpoint is: across, only through a move (said so, nothing made).
        const QString cloudCheckpointId = structured(disk).value(QStringLiteral("checkpoint_id")).toString();
        const QJsonObject forkHere = mcp.callToolResult(QStringLiteral("sandbox_fork"), {{QStringLiteral("checkpoint_id"), cloudCheckpointId},
                                                                                       {QStringLiteral("placement"), QStringLiteral("local")}});
        QVERIFY(forkHere.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(forkHere).contains(QLatin1String("sandbox_move (to: local)")), qPrintable(text(forkHere)));
        const QJsonObject forkUp = mcp.callToolResult(QStringLiteral("sandbox_fork"), {{QStringLiteral("sandbox_id"), localId},
                                                                                     {QStringLiteral("placement"), QStringLiteral("cloud")}});
        QVERIFY(forkUp.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(forkUp).contains(QLatin1String("only through a move")), qPrintable(text(forkUp)));
        QCOMPARE(cloudRows(env).size(), 1);
        QCOMPARE(server.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestCloudCheckpoints)
#include "tst_cloud_checkpoints.moc"
