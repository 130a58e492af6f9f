// One owner for the sandboxes: while a server runs, the CLI's verbs that change state are requests
// on its control channel (runtime/ControlChannel, app/OwnedVerb) and the server acts; with no server
// the CLI holds the server's lock and acts itself. Against the fake sbx:
// - a CLI approve is seen by the server at once (its own ApprovalService decided it; no poll);
// - a CLI destroy of a sandbox held for a checkpoint does not race the job: it waits for the hold
//   or is refused with the reason, and the sandbox is destroyed only after the hold ends;
// - with no server the CLI acts, and a server started meanwhile waits for it;
// - kill -9 of `chat2sbx serve` while a CLI destroy is in flight: the CLI says so, and the server
//   started again leaves nothing half-done;
// - the socket is the user's alone (0600), and another user cannot use it.
#include "ControllerSupport.h"
#include "SandboxHarness.h"
#include "McpTestClient.h"

#include "runtime/Controller.h"
#include "runtime/PidFile.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "workspace/ApprovalService.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QtTest>

#include <unistd.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

// A sandbox made through MCP on the server at `url`; its id.
QString createSandbox(const QString &url)
{
    McpTestClient mcp(url);
    if (!mcp.open())
        return {};
    const QJsonObject r = mcp.callToolResult(QStringLiteral("sandbox_create"), {}, 60000);
    return r.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
}

QString stateOf(const TestEnvironment &env, const QString &id)
{
    const CliResult listed = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("list"), QStringLiteral("--json")});
    for (const QJsonValue &v : QJsonDocument::fromJson(listed.out).object().value(QStringLiteral("sandboxes")).toArray())
        if (v.toObject().value(QStringLiteral("sandbox_id")).toString() == id)
            return v.toObject().value(QStringLiteral("state")).toString();
    return QStringLiteral("absent");
}

} // namespace

class TestControlChannel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set");
    }

    void aCliApproveIsTheServersOwnDecision()
    {
        TestEnvironment env;
        const QString roots = env.root() + QStringLiteral("/repos");
        QVERIFY(QDir().mkpath(roots + QStringLiteral("/thesis")));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        pointFakeSbxAt(env);
        Controller controller(env.config());
        QString error;
        QVERIFY2(startController(controller, error), qPrintable(error));
        // 0600, in the state directory.
        const QFileInfo socket(env.config().controlSocketPath());
        QVERIFY(socket.exists());
        QCOMPARE(socket.permissions() & (QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ReadOther | QFileDevice::WriteOther),
                 QFileDevice::Permissions());
        McpTestClient mcp(env.mcpUrl());
        QVERIFY(mcp.open());
        const QJsonObject asked = mcp.callToolResult(QStringLiteral("workspace_request"),
                                                     {{QStringLiteral("host_path"), roots + QStringLiteral("/thesis")},
                                                      {QStringLiteral("mode"), QStringLiteral("direct")}});
        const QString id = asked.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        QVERIFY(id.startsWith(QLatin1String("apr_")));

        QSignalSpy changed(&controller.approvals(), &ApprovalService::approvalsChanged);
        const CliResult approved = runCli(env, {QStringLiteral("approval"), QStringLiteral("approve"), id, QStringLiteral("--json")});
        QVERIFY2(approved.exitCode == 0, approved.err.constData());
        QVERIFY(QJsonDocument::fromJson(approved.out).object().value(QStringLiteral("workspace_id")).toString().startsWith(QLatin1String("ws_")));
        // At once: the server's own service decided it (no data_version poll in between).
        QVERIFY(changed.count() > 0);
        QCOMPARE(controller.approvals().find(id)->state, ApprovalState::Approved);
        // The same text and exit code as without a server: an unknown id.
        const CliResult unknown = runCli(env, {QStringLiteral("approval"), QStringLiteral("approve"), QStringLiteral("apr_000000000000000000000000")});
        QCOMPARE(unknown.exitCode, 1);
        QCOMPARE(unknown.err, QByteArray("chat2sbx: no approval with id apr_000000000000000000000000\n"));
        const CliResult usage = runCli(env, {QStringLiteral("approval"), QStringLiteral("approve")});
        QCOMPARE(usage.exitCode, 2);
        stopController(controller);
        QVERIFY(!QFileInfo::exists(env.config().controlSocketPath()));
    }

    // `chat2sbx sandbox pause`, through the server and with none: a running command is named and
    // the pause refused until --end-running-commands; the next tool call wakes the sandbox.
    void aPauseNamesRunningCommandsAndTheNextCallWakes()
    {
        TestEnvironment env;
        pointFakeSbxAt(env);
        Controller controller(env.config());
        QString error;
        QVERIFY2(startController(controller, error), qPrintable(error));
        const QString id = createSandbox(env.mcpUrl());
        QVERIFY(id.startsWith(QLatin1String("sbx_")));
        McpTestClient mcp(env.mcpUrl());
        QVERIFY(mcp.open());
        const QJsonObject started = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                               {QStringLiteral("command"), QStringLiteral("sleep 300")},
                                                                               {QStringLiteral("yield_time_ms"), 200}}, 30000);
        QCOMPARE(started.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("running"));

        const CliResult refused = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("pause"), id});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("sleep 300") && refused.err.contains("--end-running-commands"), refused.err.constData());
        QCOMPARE(stateOf(env, id), QStringLiteral("running"));

        const CliResult paused = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("pause"), id, QStringLiteral("--end-running-commands"),
                                              QStringLiteral("--json")});
        QVERIFY2(paused.exitCode == 0, paused.err.constData());
        const QJsonObject out = QJsonDocument::fromJson(paused.out).object();
        QVERIFY(out.value(QStringLiteral("paused")).toBool());
        QCOMPARE(out.value(QStringLiteral("commands_ended")).toInt(), 1);
        QCOMPARE(stateOf(env, id), QStringLiteral("stopped"));
        const CliResult again = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("pause"), id});
        QVERIFY2(again.exitCode == 0 && again.out.contains("paused already"), again.out.constData());

        // The next tool call wakes it.
        const QJsonObject woke = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                            {QStringLiteral("command"), QStringLiteral("echo awake")}}, 60000);
        QVERIFY2(!woke.value(QStringLiteral("isError")).toBool(), QJsonDocument(woke).toJson().constData());
        QCOMPARE(stateOf(env, id), QStringLiteral("running"));

        // No server: the CLI pauses it itself.
        stopController(controller);
        const CliResult alone = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("pause"), id});
        QVERIFY2(alone.exitCode == 0, alone.err.constData());
        QCOMPARE(stateOf(env, id), QStringLiteral("stopped"));
        const CliResult unknown = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("pause"), QStringLiteral("sbx_000000000000000000000000")});
        QCOMPARE(unknown.exitCode, 1);
    }

    void aCliDestroyDoesNotRaceACheckpoint()
    {
        TestEnvironment env;
        pointFakeSbxAt(env);
        Controller controller(env.config());
        QString error;
        QVERIFY2(startController(controller, error), qPrintable(error));
        const QString id = createSandbox(env.mcpUrl());
        QVERIFY(id.startsWith(QLatin1String("sbx_")));
        // A checkpoint job's hold, as CheckpointService takes it.
        bool held = false;
        controller.sandboxes().holdStopped(id, QStringLiteral("being checkpointed"), [&](bool ok, const QString &, const QString &) { held = ok; });
        QVERIFY(waitFor([&] { return held; }, 30000));

        QProcess cli;
        cli.setProcessEnvironment(env.processEnvironment());
        cli.start(chat2sbxBinary(), {QStringLiteral("sandbox"), QStringLiteral("destroy"), id});
        QVERIFY(cli.waitForStarted());
        const bool ended = waitFor([&] { return cli.state() == QProcess::NotRunning; }, 3000);
        if (ended) {
            // Refused, with the reason, and nothing done.
            QCOMPARE(cli.exitCode(), 1);
            QVERIFY2(cli.readAllStandardError().contains("checkpoint"), "the refusal does not say why");
            QCOMPARE(stateOf(env, id), QStringLiteral("stopped"));
            controller.sandboxes().release(id);
        } else {
            // Waiting for the hold: nothing destroyed under the job.
            QCOMPARE(controller.sandboxes().heldFor(id), QStringLiteral("being checkpointed"));
            controller.sandboxes().release(id);
            QVERIFY(waitFor([&] { return cli.state() == QProcess::NotRunning; }, 60000));
            QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
            QCOMPARE(stateOf(env, id), QStringLiteral("absent"));
        }
        stopController(controller);
    }

    // The checkpoint verbs go to the server too: its CheckpointService made it, and holds it.
    void aCliCheckpointIsMadeByTheServer()
    {
        TestEnvironment env;
        pointFakeSbxAt(env);
        Controller controller(env.config());
        QString error;
        QVERIFY2(startController(controller, error), qPrintable(error));
        const QString id = createSandbox(env.mcpUrl());
        QVERIFY(id.startsWith(QLatin1String("sbx_")));
        const CliResult made = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("checkpoint"), id, QStringLiteral("--label"),
                                            QStringLiteral("from the terminal"), QStringLiteral("--json")}, 120000);
        QVERIFY2(made.exitCode == 0, made.err.constData());
        const QString ckp = QJsonDocument::fromJson(made.out).object().value(QStringLiteral("checkpoint_id")).toString();
        QVERIFY2(ckp.startsWith(QLatin1String("ckp_")), made.out.constData());
        QVERIFY(controller.checkpoints().find(ckp).has_value());
        const CliResult gone = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("uncheckpoint"), ckp}, 60000);
        QVERIFY2(gone.exitCode == 0, gone.err.constData());
        QVERIFY(!controller.checkpoints().find(ckp).has_value());
        stopController(controller);
    }

    void withNoServerTheCliActsAndAStartingServerWaits()
    {
        TestEnvironment env;
        pointFakeSbxAt(env);
        QString id;
        {
            Controller controller(env.config());
            QString error;
        QVERIFY2(startController(controller, error), qPrintable(error));
            id = createSandbox(env.mcpUrl());
            QVERIFY(id.startsWith(QLatin1String("sbx_")));
            stopController(controller);
        }
        env.setSbxFaults({QStringLiteral("FAKE_SBX_SLOW_RM=2500")});
        QProcess cli;
        cli.setProcessEnvironment(env.processEnvironment());
        cli.start(chat2sbxBinary(), {QStringLiteral("sandbox"), QStringLiteral("destroy"), id});
        QVERIFY(cli.waitForStarted());
        QVERIFY(waitFor([&] { return PidFile::runningPid(env.config().pidFilePath()) == cli.processId(); }, 10000));
        // A server started now waits for the command to let go of the lock, then starts.
        Controller controller(env.config());
        QSignalSpy started(&controller, &Controller::started);
        QSignalSpy failed(&controller, &Controller::failed);
        bool startedWhileTheCliActed = false;
        QObject::connect(&controller, &Controller::started, [&] { startedWhileTheCliActed = cli.state() != QProcess::NotRunning; });
        controller.start();
        QVERIFY(waitFor([&] { return cli.state() == QProcess::NotRunning; }, 30000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        QVERIFY(!startedWhileTheCliActed);
        QVERIFY(waitFor([&] { return started.count() > 0 || failed.count() > 0; }, 30000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(stateOf(env, id), QStringLiteral("absent"));
        stopController(controller);
    }

    void killingTheServerMidRequestLeavesNothingHalfDone()
    {
        TestEnvironment env;
        pointFakeSbxAt(env);
        ServerProcess serve(env);
        QVERIFY(serve.start());
        const QString id = createSandbox(env.mcpUrl());
        QVERIFY(id.startsWith(QLatin1String("sbx_")));
        env.setSbxFaults({QStringLiteral("FAKE_SBX_SLOW_RM=3000")});
        QProcess cli;
        cli.setProcessEnvironment(env.processEnvironment());
        cli.start(chat2sbxBinary(), {QStringLiteral("sandbox"), QStringLiteral("destroy"), id});
        QVERIFY(cli.waitForStarted());
        // The server is at it (its `sbx rm` runs) when it dies.
        QVERIFY(waitFor([&] { return stateOf(env, id) == QLatin1String("destroying"); }, 15000));
        serve.kill9();
        QVERIFY(waitFor([&] { return cli.state() == QProcess::NotRunning; }, 15000));
        QCOMPARE(cli.exitCode(), 1);
        const QByteArray said = cli.readAllStandardError();
        QVERIFY2(said.contains("stopped before it answered"), said.constData());
        // Started again, the server finishes what it had begun: destroyed, not left destroying.
        env.setSbxFaults({});
        ServerProcess again(env);
        QVERIFY(again.start());
        QVERIFY(waitFor([&] { return stateOf(env, id) == QLatin1String("absent"); }, 30000));
        again.terminate();
    }

    void anotherUserCannotUseTheChannel()
    {
        if (::geteuid() != 0)
            QSKIP("needs root to act as another user; the 0600 mode is checked in aCliApproveIsTheServersOwnDecision");
        TestEnvironment env;
        pointFakeSbxAt(env);
        Controller controller(env.config());
        QString error;
        QVERIFY2(startController(controller, error), qPrintable(error));
        // nobody (65534) connects to the socket: refused by the file's mode before any byte.
        const QString script = QStringLiteral("import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1])\n"
                                              " s.sendall(b'{\"verb\":\"approval approve\",\"args\":[\"x\"]}\\n')\n print(s.recv(4096).decode())\n"
                                              "except OSError as e:\n print('refused', e.errno)\n");
        const CliResult r = runProcess(QStringLiteral("setpriv"), {QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                                                                 QStringLiteral("--clear-groups"), QStringLiteral("/usr/bin/python3"), QStringLiteral("-c"),
                                                                 script, env.config().controlSocketPath()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.startsWith("refused") || r.out.contains("answers only the user"), r.out.constData());
        stopController(controller);
    }
};

QTEST_GUILESS_MAIN(TestControlChannel)
#include "tst_control_channel.moc"
