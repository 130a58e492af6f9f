// Secure MCP Tunnel, against the real `chat2sbx serve` and the fake tunnel-client
// (tests/fakes/tunnel-client): connected path, crash/restart with growing delays, missing key file, no child
// left behind after SIGTERM (also when the client ignores SIGTERM), status in both output modes with
// the tunnel on and off, and the key never on a command line or in the server's output.
#include "TestSupport.h"

#include "tunnel_fakelog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cerrno>
#include <csignal>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

const QString kTunnelId = QStringLiteral("tunnel_0123456789abcdef0123456789abcdef");
const QString kKey = QStringLiteral("sk-test-TOPSECRET-4f1c2a9e7b");

bool processGone(qint64 pid)
{
    return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

QJsonObject healthz(const TestEnvironment &env)
{
    const HttpResult r = httpRequest("GET", QStringLiteral("http://127.0.0.1:%1/healthz").arg(env.port()), {}, {}, 3000);
    return QJsonDocument::fromJson(r.body).object();
}

QString tunnelState(const TestEnvironment &env)
{
    return healthz(env).value("tunnel").toObject().value("state").toString();
}

} // namespace

class TestTunnel : public QObject {
    Q_OBJECT

    // A tunnel-enabled environment: the fake client, temporary secret dir with valid credentials.
    void enableTunnel(TestEnvironment &env, bool writeId = true, bool writeKey = true)
    {
        const QString secrets = env.root() + "/secrets";
        QDir().mkpath(secrets);
        if (writeId)
            QVERIFY(writeFile(secrets + "/tunnel-id", kTunnelId.toUtf8() + "\n"));
        if (writeKey)
            QVERIFY(writeFile(secrets + "/key", kKey.toUtf8() + "\n"));
        env.set("CHAT2SBX_ENABLE_TUNNEL", "1");
        env.set("CHAT2SBX_TUNNEL_CLIENT", fakeTunnelClientPath());
        env.set("CHAT2SBX_SECRET_DIR", secrets);
        env.set("FAKE_TUNNEL_LOG", logPath(env));
    }

    // A throwaway Secret Service (gnome-keyring on a private D-Bus session, run by `session`) that
    // `env`'s processes use as their keychain.
    void startKeychainSession(TestEnvironment &env, QProcess &session)
    {
        for (const char *tool : {"dbus-run-session", "gnome-keyring-daemon"})
            QVERIFY2(!QStandardPaths::findExecutable(tool).isEmpty(),
                     qPrintable(QStringLiteral("%1 is missing (installers/deps.sh --test installs it)").arg(tool)));
        const QString runtimeDir = env.root() + "/xdg-runtime";
        QVERIFY(QDir().mkpath(runtimeDir));
        QVERIFY(QFile::setPermissions(runtimeDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        env.set("XDG_RUNTIME_DIR", runtimeDir);
        session.setProcessEnvironment(env.processEnvironment());
        session.start(QStringLiteral("dbus-run-session"),
                      {QStringLiteral("--"), QStringLiteral("bash"), sourceDir() + "/tests/integration/tunnel_keychain_session.sh"});
        QByteArray line;
        QVERIFY(waitFor([&] {
            line += session.readAllStandardOutput();
            return line.contains('\n') || session.state() == QProcess::NotRunning;
        }, 15000));
        QVERIFY2(line.startsWith("DBUS_SESSION_BUS_ADDRESS="), (line + session.readAllStandardError()).constData());
        env.set("DBUS_SESSION_BUS_ADDRESS", QString::fromUtf8(line.trimmed().mid(25)));
    }
    static QString logPath(const TestEnvironment &env) { return env.root() + "/fake-tunnel.log"; }

    void noKeyAnywhere(const TestEnvironment &env, const ServerProcess &server)
    {
        for (const FakeTunnelEvent &e : readFakeTunnelLog(logPath(env)))
            QVERIFY2(!e.argv.join(' ').contains(kKey), "the key is on the tunnel-client command line");
        QVERIFY2(!server.output().contains(kKey), "the key is in the server's output");
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeTunnelClientPath().isEmpty() && QFileInfo(fakeTunnelClientPath()).isExecutable(),
                 "CHAT2SBX_FAKE_TUNNEL_CLIENT must point at the fake tunnel-client");
    }

    void readyPathAndStatusWithTunnelOn()
    {
        TestEnvironment env;
        enableTunnel(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 20000), qPrintable(server.output()));

        // The client got the real flags, the key only by reference.
        const QList<FakeTunnelEvent> events = readFakeTunnelLog(logPath(env));
        QVERIFY(!events.isEmpty());
        const QStringList argv = events.first().argv;
        QVERIFY2(argv.contains("run"), qPrintable(argv.join(' ')));
        QVERIFY2(argv.contains("--control-plane.tunnel-id=" + kTunnelId), qPrintable(argv.join(' ')));
        QVERIFY2(argv.contains("--control-plane.api-key=env:CHAT2SBX_TUNNEL_KEY"), qPrintable(argv.join(' ')));
        QVERIFY2(argv.contains(QStringLiteral("--mcp.server-url=http://127.0.0.1:%1/mcp").arg(env.port())), qPrintable(argv.join(' ')));
        QVERIFY2(argv.contains("--health.listen-addr=127.0.0.1:0"), qPrintable(argv.join(' ')));
        QVERIFY2(argv.filter(QRegularExpression("^--health\\.url-file=.+$")).size() == 1, qPrintable(argv.join(' ')));
        QVERIFY2(argv.filter(QRegularExpression("^--mcp\\.startup-wait-timeout=\\d+m?s$")).size() == 1, qPrintable(argv.join(' ')));
        bool configured = false;
        for (const FakeTunnelEvent &e : events)
            if (e.event == "configured") {
                configured = true;
                QCOMPARE(e.fields.value("api_key_source").toString(), QStringLiteral("flag:env"));
                QCOMPARE(e.fields.value("tunnel_id").toString(), kTunnelId);
            }
        QVERIFY(configured);

        const CliResult human = runCli(env, {"status"});
        QVERIFY2(human.exitCode == 0, human.out + human.err);
        QVERIFY2(human.out.contains("tunnel:     connected"), human.out.constData());
        QVERIFY2(human.out.contains("endpoint:   " + env.mcpUrl().toUtf8() + " (reachable)"), human.out.constData());
        QVERIFY(human.out.contains("approvals:  0 pending"));
        QVERIFY(human.out.contains("sandboxes:  0 active / limit unlimited"));
        QVERIFY(human.out.contains("data root:  " + env.dataRoot().toUtf8()));

        const CliResult json = runCli(env, {"status", "--json"});
        QVERIFY2(json.exitCode == 0, json.out + json.err);
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(o.value("healthy").toBool(), true);
        QCOMPARE(o.value("mcp").toObject().value("reachable").toBool(), true);
        const QJsonObject t = o.value("tunnel").toObject();
        QCOMPARE(t.value("enabled").toBool(), true);
        QCOMPARE(t.value("state").toString(), QStringLiteral("connected"));
        QCOMPARE(t.value("restarts").toInt(), 0);
        QVERIFY(t.value("health_url").toString().startsWith("http://127.0.0.1:"));
        QCOMPARE(t.value("pid").toInteger(), events.first().pid);
        QCOMPARE(o.value("pending_approvals").toInt(), 0);
        QCOMPARE(o.value("data_root").toString(), env.dataRoot());
        QVERIFY(!json.out.contains(kKey.toUtf8()));

        // The client's own health listener is the one status reports.
        const HttpResult clientHealth = httpRequest("GET", t.value("health_url").toString(), {}, {}, 3000);
        QCOMPARE(clientHealth.status, 200);

        QCOMPARE(server.terminate(), 0);
        noKeyAnywhere(env, server);
    }

    void localTokenReachesTheEndpointThroughTheClient()
    {
        TestEnvironment env;
        enableTunnel(env);
        env.set("CHAT2SBX_REQUIRE_LOCAL_TOKEN", "1");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        // Ready means the fake's initialize carried the right X-Local-Token: /mcp refuses it otherwise.
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 20000), qPrintable(server.output()));
        const QList<FakeTunnelEvent> events = readFakeTunnelLog(logPath(env));
        const QStringList argv = fakeTunnelStarts(events).first().argv;
        const int i = argv.indexOf("--mcp.extra-headers");
        QVERIFY2(i > 0 && i + 1 < argv.size(), qPrintable(argv.join(' ')));
        QCOMPARE(argv.at(i + 1), QStringLiteral("X-Local-Token: env:CHAT2SBX_LOCAL_TOKEN"));
        const QByteArray token = readFile(env.dataRoot() + "/state/mcp-local-token").trimmed();
        QVERIFY(token.size() >= 32);
        QVERIFY(!argv.join(' ').toUtf8().contains(token));
        QVERIFY(!server.output().toUtf8().contains(token));
        QCOMPARE(server.terminate(), 0);
        noKeyAnywhere(env, server);
    }

    void crashesRestartWithGrowingDelays()
    {
        TestEnvironment env;
        enableTunnel(env);
        env.set("FAKE_TUNNEL_EXIT_AFTER_S", "1");
        env.set("CHAT2SBX_TUNNEL_BACKOFF_MS", "500");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        // Three crashes, then the fourth client comes up.
        QVERIFY2(waitFor([&] { return fakeTunnelStarts(readFakeTunnelLog(logPath(env))).size() >= 4; }, 30000),
                 qPrintable(server.output()));
        const QList<FakeTunnelEvent> events = readFakeTunnelLog(logPath(env));
        const QList<FakeTunnelEvent> starts = fakeTunnelStarts(events);
        QList<double> gaps;   // from one client's exit to the next client's start
        for (int i = 0; i + 1 < 4; ++i) {
            const double exitAt = fakeTunnelExitTime(events, starts[i].pid);
            QVERIFY2(exitAt > 0, "no exit event for a crashed client");
            gaps << starts[i + 1].timeMs - exitAt;
        }
        qInfo("restart gaps (ms): %.0f, %.0f, %.0f (backoff 500/1000/2000)", gaps[0], gaps[1], gaps[2]);
        QVERIFY2(gaps[0] >= 500 && gaps[1] >= 1000 && gaps[2] >= 2000, "a restart came before its backoff delay");
        QVERIFY2(gaps[1] > gaps[0] && gaps[2] > gaps[1], "restart delays do not grow");
        const QString out = server.output();
        for (const char *delay : {"restarting in 500 ms", "restarting in 1000 ms", "restarting in 2000 ms"})
            QVERIFY2(out.contains(delay), qPrintable(out));
        QVERIFY2(waitFor([&] { return healthz(env).value("tunnel").toObject().value("restarts").toInt() >= 3; }, 5000),
                 qPrintable(server.output()));

        QCOMPARE(server.terminate(), 0);
        for (const FakeTunnelEvent &s : starts)
            QVERIFY(waitFor([&] { return processGone(s.pid); }, 3000));
        noKeyAnywhere(env, server);
    }

    void missingKeyFileIsAClearError()
    {
        TestEnvironment env;
        enableTunnel(env, true, false);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));   // still serves locally
        const QString keyFile = env.root() + "/secrets/key";
        QVERIFY2(waitFor([&] { return tunnelState(env) == "failed"; }, 10000), qPrintable(server.output()));
        const QString expected = "tunnel key file " + keyFile + " not found";

        const CliResult human = runCli(env, {"status"});
        QCOMPARE(human.exitCode, 1);
        QVERIFY2(human.out.contains("tunnel:     failed"), human.out.constData());
        QVERIFY2(human.err.contains(expected.toUtf8()), human.err.constData());
        QCOMPARE(human.err.count('\n'), 1);
        const CliResult json = runCli(env, {"status", "--json"});
        QCOMPARE(json.exitCode, 1);
        const QJsonObject t = QJsonDocument::fromJson(json.out).object().value("tunnel").toObject();
        QCOMPARE(t.value("state").toString(), QStringLiteral("failed"));
        QVERIFY2(t.value("last_error").toString().contains(expected), qPrintable(t.value("last_error").toString()));
        QVERIFY(server.output().contains(expected));
        QVERIFY2(!QFileInfo::exists(logPath(env)), "tunnel-client was started without credentials");
        QCOMPARE(server.terminate(), 0);
    }

    // Without a keychain (no D-Bus session bus) `tunnel import` is one clear error and the files stay
    // exactly as they were; bad files are named before the keychain is tried; the key never shows.
    void tunnelImportWithoutKeychainKeepsTheFiles()
    {
        TestEnvironment env;
        enableTunnel(env);
        env.set("DBUS_SESSION_BUS_ADDRESS", "");
        env.set("XDG_RUNTIME_DIR", env.root() + "/no-runtime-dir");
        const QString secrets = env.root() + "/secrets";
        CliResult r = runCli(env, {"tunnel", "import"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cannot store the tunnel credentials in the OS keychain: no OS keychain is available"), r.err.constData());
        QVERIFY2(r.err.contains("unchanged"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(!r.err.contains(kKey.toUtf8()) && !r.out.contains(kKey.toUtf8()));
        QCOMPARE(readFile(secrets + "/key"), kKey.toUtf8() + "\n");
        QCOMPARE(readFile(secrets + "/tunnel-id"), kTunnelId.toUtf8() + "\n");

        QVERIFY(QFile::remove(secrets + "/key"));
        r = runCli(env, {"tunnel", "import"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(("tunnel key file " + secrets + "/key not found").toUtf8()), r.err.constData());
        QCOMPARE(runCli(env, {"tunnel", "import", "extra"}).exitCode, 2);
    }

    // With a Secret Service (a throwaway gnome-keyring on a private D-Bus session) `tunnel import` moves
    // the id and key into the keychain and removes the files; serve then takes them from there and the
    // tunnel becomes ready, the key on no command line and in no output.
    void tunnelImportMovesIntoTheKeychainAndServeUsesIt()
    {
        TestEnvironment env;
        enableTunnel(env);
        const QString secrets = env.root() + "/secrets";
        QProcess session;
        startKeychainSession(env, session);
        if (QTest::currentTestFailed())
            return;

        const CliResult imported = runCli(env, {"tunnel", "import"});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());
        QVERIFY(imported.out.contains("Moved tunnel id " + kTunnelId.toUtf8()));
        QVERIFY(!imported.out.contains(kKey.toUtf8()) && !imported.err.contains(kKey.toUtf8()));
        QVERIFY(!QFileInfo::exists(secrets + "/key"));
        QVERIFY(!QFileInfo::exists(secrets + "/tunnel-id"));

        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 20000), qPrintable(server.output()));
        noKeyAnywhere(env, server);
        QCOMPARE(server.terminate(), 0);
        session.closeWriteChannel();
        QVERIFY(session.waitForFinished(10000));
    }

    // One owner: with serve running, `tunnel import` goes to it over the control channel; the server
    // stores the credentials and connects its tunnel with them at once, no restart of serve.
    void tunnelImportWhileServeRunsConnectsAtOnce()
    {
        TestEnvironment env;
        enableTunnel(env, false, false);   // nothing set up yet: the tunnel waits for credentials
        const QString secrets = env.root() + "/secrets";
        QProcess session;
        startKeychainSession(env, session);
        if (QTest::currentTestFailed())
            return;

        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "failed"; }, 10000), qPrintable(server.output()));
        QVERIFY(writeFile(secrets + "/tunnel-id", kTunnelId.toUtf8() + "\n"));
        QVERIFY(writeFile(secrets + "/key", kKey.toUtf8() + "\n"));

        const CliResult imported = runCli(env, {"tunnel", "import", "--json"});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());
        const QJsonObject out = QJsonDocument::fromJson(imported.out).object();
        QVERIFY2(out.value("imported").toBool() && out.value("server_reconnecting").toBool(), imported.out.constData());
        QVERIFY(!QFileInfo::exists(secrets + "/key") && !QFileInfo::exists(secrets + "/tunnel-id"));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 20000), qPrintable(server.output()));
        noKeyAnywhere(env, server);
        QCOMPARE(server.terminate(), 0);
        session.closeWriteChannel();
        QVERIFY(session.waitForFinished(10000));
    }

    void malformedTunnelIdIsAClearError()
    {
        TestEnvironment env;
        enableTunnel(env);
        QVERIFY(writeFile(env.root() + "/secrets/tunnel-id", "tunnel_ABC\n"));
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "failed"; }, 10000), qPrintable(server.output()));
        const CliResult human = runCli(env, {"status"});
        QCOMPARE(human.exitCode, 1);
        QVERIFY2(human.err.contains((env.root() + "/secrets/tunnel-id").toUtf8()) && human.err.contains("malformed"),
                 human.err.constData());
        QVERIFY(!QFileInfo::exists(logPath(env)));
        QCOMPARE(server.terminate(), 0);
    }

    void shutdownLeavesNoChild_data()
    {
        QTest::addColumn<bool>("ignoreSigterm");
        QTest::newRow("client exits on SIGTERM") << false;
        QTest::newRow("client ignores SIGTERM: SIGKILL") << true;
    }
    void shutdownLeavesNoChild()
    {
        QFETCH(bool, ignoreSigterm);
        TestEnvironment env;
        enableTunnel(env);
        env.set("CHAT2SBX_TUNNEL_STOP_GRACE_MS", "1500");
        if (ignoreSigterm)
            env.set("FAKE_TUNNEL_IGNORE_SIGTERM", "1");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 20000), qPrintable(server.output()));
        const QList<FakeTunnelEvent> starts = fakeTunnelStarts(readFakeTunnelLog(logPath(env)));
        QCOMPARE(starts.size(), 1);
        const qint64 childPid = starts.first().pid;
        QVERIFY(childPid > 0 && !processGone(childPid));
        QCOMPARE(healthz(env).value("tunnel").toObject().value("pid").toInteger(), childPid);

        QElapsedTimer stopTime;
        stopTime.start();
        QCOMPARE(server.terminate(), 0);
        const qint64 stopMs = stopTime.elapsed();
        QVERIFY2(waitFor([&] { return processGone(childPid); }, 2000), "tunnel-client survived serve's shutdown");
        const QString out = server.output();
        if (ignoreSigterm) {
            QVERIFY2(out.contains("sending SIGKILL"), qPrintable(out));
            QVERIFY2(stopMs >= 1500, "SIGKILL came before the grace period");
        } else {
            QVERIFY2(!out.contains("sending SIGKILL"), qPrintable(out));
        }
        qInfo("serve stopped in %lld ms", stopMs);
        noKeyAnywhere(env, server);
    }

    void exitAtOnceIsReportedAndRetried()
    {
        TestEnvironment env;
        enableTunnel(env);
        env.set("FAKE_TUNNEL_EXIT_AT_ONCE", "7");
        env.set("CHAT2SBX_TUNNEL_BACKOFF_MS", "200");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return healthz(env).value("tunnel").toObject().value("restarts").toInt() >= 2; }, 15000),
                 qPrintable(server.output()));
        const QJsonObject t = healthz(env).value("tunnel").toObject();
        QVERIFY2(t.value("lastError").toString().contains("tunnel-client exited with code 7"),
                 qPrintable(t.value("lastError").toString()));
        const CliResult human = runCli(env, {"status"});
        QCOMPARE(human.exitCode, 1);
        QVERIFY2(human.err.contains("exited with code 7"), human.err.constData());
        QCOMPARE(server.terminate(), 0);
        noKeyAnywhere(env, server);
    }

    void serverKilledHardStillLeavesNoChild()
    {
        TestEnvironment env;
        enableTunnel(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY(waitFor([&] { return !fakeTunnelStarts(readFakeTunnelLog(logPath(env))).isEmpty(); }, 10000));
        const qint64 childPid = fakeTunnelStarts(readFakeTunnelLog(logPath(env))).first().pid;
        QVERIFY(waitFor([&] { return healthz(env).value("tunnel").toObject().value("pid").toInteger() == childPid; }, 5000));
        server.kill9();
        // PR_SET_PDEATHSIG: the kernel sends the orphaned client SIGTERM.
        QVERIFY2(waitFor([&] { return processGone(childPid); }, 5000), "tunnel-client outlived a kill -9 of serve");
    }

    void statusWithTunnelOff()
    {
        TestEnvironment env;   // CHAT2SBX_ENABLE_TUNNEL=0 by default
        env.set("CHAT2SBX_TUNNEL_CLIENT", fakeTunnelClientPath());
        env.set("FAKE_TUNNEL_LOG", logPath(env));
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        const CliResult human = runCli(env, {"status"});
        QVERIFY2(human.exitCode == 0, human.out + human.err);
        QVERIFY2(human.out.contains("tunnel:     disabled (local-only)"), human.out.constData());
        QVERIFY(human.out.contains("(reachable)"));
        const CliResult json = runCli(env, {"status", "--json"});
        QVERIFY2(json.exitCode == 0, json.out + json.err);
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(o.value("healthy").toBool(), true);
        QCOMPARE(o.value("tunnel").toObject().value("enabled").toBool(), false);
        QCOMPARE(o.value("tunnel").toObject().value("state").toString(), QStringLiteral("disabled"));
        QVERIFY2(!QFileInfo::exists(logPath(env)), "tunnel-client started in local-only mode");
        QCOMPARE(server.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestTunnel)
#include "tst_tunnel.moc"
