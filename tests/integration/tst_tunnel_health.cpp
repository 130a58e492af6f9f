// "Ready" means ChatGPT can reach us. The real `chat2sbx serve` against the fake tunnel-client
// (which models reference/tunnel-client.md): a failed first probe recovers (startup wait, or a restart)
// within a bounded time; a refused key is `unauthorized` within seconds with no restart storm; the user's
// shell variables that tunnel-client would read do not reach it, nor do chat2sbx's own secrets; stop is
// graceful within the grace period and hard after it; `setup` runs `tunnel-client doctor`.
#include "TestSupport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <csignal>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

const QString kTunnelId = QStringLiteral("tunnel_0123456789abcdef0123456789abcdef");
const QString kKey = QStringLiteral("sk-test-TOPSECRET-17c0ffee");

QJsonObject tunnelJson(const TestEnvironment &env)
{
    const HttpResult r = httpRequest("GET", QStringLiteral("http://127.0.0.1:%1/healthz").arg(env.port()), {}, {}, 3000);
    return QJsonDocument::fromJson(r.body).object().value("tunnel").toObject();
}

QString tunnelState(const TestEnvironment &env) { return tunnelJson(env).value("state").toString(); }

// The fake's FAKE_TUNNEL_LOG lines.
QList<QJsonObject> fakeEvents(const QString &path)
{
    QList<QJsonObject> out;
    for (const QByteArray &line : readFile(path).split('\n'))
        if (!line.trimmed().isEmpty())
            out << QJsonDocument::fromJson(line).object();
    return out;
}

QList<QJsonObject> eventsNamed(const QList<QJsonObject> &events, const QString &name)
{
    QList<QJsonObject> out;
    for (const QJsonObject &e : events)
        if (e.value("event").toString() == name)
            out << e;
    return out;
}

} // namespace

class TestTunnelHealth : public QObject {
    Q_OBJECT

    static QString logPath(const TestEnvironment &env) { return env.root() + "/fake-tunnel.log"; }

    void enableTunnel(TestEnvironment &env)
    {
        const QString secrets = env.root() + "/secrets";
        QVERIFY(writeFile(secrets + "/tunnel-id", kTunnelId.toUtf8() + "\n"));
        QVERIFY(writeFile(secrets + "/key", kKey.toUtf8() + "\n"));
        env.set("CHAT2SBX_ENABLE_TUNNEL", "1");
        env.set("CHAT2SBX_TUNNEL_CLIENT", fakeTunnelClientPath());
        env.set("CHAT2SBX_SECRET_DIR", secrets);
        env.set("FAKE_TUNNEL_LOG", logPath(env));
        env.set("FAKE_TUNNEL_POLL_MS", "300");
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeTunnelClientPath().isEmpty(), "CHAT2SBX_FAKE_TUNNEL_CLIENT must point at the fake tunnel-client");
    }

    // A refused first probe: --mcp.startup-wait-timeout retries it inside the same client.
    void refusedFirstProbeConnectsThroughTheStartupWait()
    {
        TestEnvironment env;
        enableTunnel(env);
        QVERIFY(writeFile(env.root() + "/probe-failures", "2\n"));
        env.set("FAKE_TUNNEL_PROBE_FAILURES_FILE", env.root() + "/probe-failures");
        env.set("CHAT2SBX_TUNNEL_READY_TIMEOUT_MS", "8000");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 10000), qPrintable(server.output()));
        qInfo("connected %lld ms after serve was healthy", clock.elapsed());
        const QList<QJsonObject> events = fakeEvents(logPath(env));
        QCOMPARE(eventsNamed(events, "start").size(), 1);
        QCOMPARE(eventsNamed(events, "probe").size(), 3);
        QCOMPARE(eventsNamed(events, "configured").first().value("startup_wait_ms").toInteger(), 4000);
        QCOMPARE(tunnelJson(env).value("restarts").toInt(), 0);
        QCOMPARE(runCli(env, {"status"}).exitCode, 0);
        QCOMPARE(server.terminate(), 0);
    }

    // A first probe answered with an HTTP error is final for that client process: chat2sbx sees
    // "mcp probe failed" on /readyz, stops it and starts a new one (back-off), which connects.
    void failedFirstProbeConnectsAfterOneRestart()
    {
        TestEnvironment env;
        enableTunnel(env);
        QVERIFY(writeFile(env.root() + "/probe-failures", "1\n"));
        env.set("FAKE_TUNNEL_PROBE_FAILURES_FILE", env.root() + "/probe-failures");
        env.set("FAKE_TUNNEL_PROBE_FAILURE", "http");
        env.set("CHAT2SBX_TUNNEL_BACKOFF_MS", "300");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 10000), qPrintable(server.output()));
        qInfo("connected %lld ms after serve was healthy, through one restart", clock.elapsed());
        const QList<QJsonObject> starts = eventsNamed(fakeEvents(logPath(env)), "start");
        QCOMPARE(starts.size(), 2);
        QCOMPARE(tunnelJson(env).value("restarts").toInt(), 1);
        QVERIFY2(server.output().contains("tunnel-client cannot become ready: mcp probe failed: POST initialize: HTTP 503"),
                 qPrintable(server.output()));
        // the first client was stopped gracefully (SIGTERM, exit 0), not left behind
        const QList<QJsonObject> exits = eventsNamed(fakeEvents(logPath(env)), "exit");
        QVERIFY(!exits.isEmpty());
        QCOMPARE(exits.first().value("pid").toInteger(), starts.first().value("pid").toInteger());
        QCOMPARE(exits.first().value("signal").toString(), QStringLiteral("SIGTERM"));
        QCOMPARE(server.terminate(), 0);
    }

    // Readiness says nothing about the control plane: with a refused key the client is "ready" and polls
    // fail forever. chat2sbx says `unauthorized` with what to do, status exits 1, and restarts nothing.
    void refusedKeyIsUnauthorizedWithoutRestarts()
    {
        TestEnvironment env;
        enableTunnel(env);
        env.set("FAKE_TUNNEL_POLL_STATUS", "401");
        env.set("CHAT2SBX_TUNNEL_BACKOFF_MS", "200");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(waitFor([&] { return tunnelState(env) == "unauthorized"; }, 5000), qPrintable(server.output()));
        qInfo("unauthorized %lld ms after serve was healthy", clock.elapsed());

        const CliResult human = runCli(env, {"status"});
        QCOMPARE(human.exitCode, 1);
        QVERIFY2(human.out.contains("tunnel:     unauthorized"), human.out.constData());
        for (const char *part : {"tunnel is unauthorized", "HTTP 401", "Tunnels Read+Use", "chat2sbx tunnel import"})
            QVERIFY2(human.err.contains(part), human.err.constData());
        QCOMPARE(human.err.count('\n'), 1);
        const CliResult json = runCli(env, {"status", "--json"});
        QCOMPARE(json.exitCode, 1);
        const QJsonObject t = QJsonDocument::fromJson(json.out).object().value("tunnel").toObject();
        QCOMPARE(t.value("state").toString(), QStringLiteral("unauthorized"));
        QCOMPARE(t.value("healthy").toBool(), false);
        QVERIFY2(t.value("last_error").toString().contains("poll failed; backing off"), qPrintable(t.value("last_error").toString()));
        QVERIFY(!json.out.contains(kKey.toUtf8()) && !human.err.contains(kKey.toUtf8()));

        QTest::qWait(3000);   // the client keeps retrying by itself; chat2sbx must not restart it
        QCOMPARE(tunnelState(env), QStringLiteral("unauthorized"));
        QCOMPARE(tunnelJson(env).value("restarts").toInt(), 0);
        QCOMPARE(eventsNamed(fakeEvents(logPath(env)), "start").size(), 1);
        QCOMPARE(server.terminate(), 0);
        QVERIFY(!server.output().contains(kKey));
    }

    // A newer tunnel-client answers /health?details=true: a degraded response delivery (ChatGPT's calls
    // come in, the answers do not get back) is not "connected", though /readyz and the poll gauge say
    // all is well; an older one (404) is read from /readyz and /metrics as before; nothing restarts.
    void healthDetailsFeedTheTunnelState()
    {
        {
            TestEnvironment env;
            enableTunnel(env);
            env.set("FAKE_TUNNEL_HEALTH_DETAILS", "1");
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 10000), qPrintable(server.output()));
            QCOMPARE(tunnelJson(env).value("components").toObject().value("responseDelivery").toString(), QStringLiteral("ok"));
            QVERIFY2(server.output().contains("tunnel-client reports its components"), qPrintable(server.output()));
            QCOMPARE(server.terminate(), 0);
        }
        TestEnvironment env;
        enableTunnel(env);
        env.set("FAKE_TUNNEL_HEALTH_DETAILS", "1");
        env.set("FAKE_TUNNEL_DELIVERY_DEGRADED", "upload_rejected");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "failed"; }, 10000), qPrintable(server.output()));
        const QString detail = tunnelJson(env).value("detail").toString();
        QVERIFY2(detail.contains("delivery of answers to ChatGPT degraded (upload_rejected)"), qPrintable(detail));
        const CliResult status = runCli(env, {"status"});
        QCOMPARE(status.exitCode, 1);
        QVERIFY2(status.err.contains("upload_rejected"), status.err.constData());
        QTest::qWait(1500);
        QCOMPARE(tunnelJson(env).value("restarts").toInt(), 0);
        QCOMPARE(server.terminate(), 0);
    }

    void anOlderClientWithoutDetailsIsReadAsBefore()
    {
        TestEnvironment env;
        enableTunnel(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 10000), qPrintable(server.output()));
        QVERIFY2(server.output().contains("no /health details (v0.0.14 or older)"), qPrintable(server.output()));
        QVERIFY(!tunnelJson(env).contains("components"));
        QCOMPARE(server.terminate(), 0);
    }

    // The user's shell exports variables tunnel-client reads as its own settings (MCP_COMMAND would make
    // it exit 1, a profile that does not exist too, LOG_FILE would hide its log); chat2sbx's own secrets
    // and unrelated ones are also there. The child gets none of them and connects.
    void hostileShellEnvironmentStillConnects()
    {
        TestEnvironment env;
        enableTunnel(env);
        env.set("MCP_COMMAND", "npx -y some-stdio-mcp-server");
        env.set("TUNNEL_CLIENT_PROFILE", "does-not-exist");
        env.set("LOG_FILE", env.root() + "/client-log-moved-here.log");
        env.set("OPENAI_API_KEY", "sk-wrong-key-from-the-shell");
        env.set("CHAT2SBX_BEARER_TOKEN", "bearer-SECRET-should-stay-home");
        env.set("MY_UNRELATED_SECRET", "unrelated-SECRET");
        env.set("HTTPS_PROXY", "http://127.0.0.1:9");   // passed on purpose: Go's HTTP client reads it
        env.set("NO_PROXY", "127.0.0.1,localhost");
        env.set("CHAT2SBX_TUNNEL_ENV", "FAKE_TUNNEL_*,ASAN_OPTIONS,UBSAN_OPTIONS,MCP_COMMAND");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 10000), qPrintable(server.output()));
        const QList<QJsonObject> starts = eventsNamed(fakeEvents(logPath(env)), "start");
        QCOMPARE(starts.size(), 1);
        QStringList names;
        for (const QJsonValue &v : starts.first().value("env_names").toArray())
            names << v.toString();
        for (const char *absent : {"MCP_COMMAND", "TUNNEL_CLIENT_PROFILE", "LOG_FILE", "OPENAI_API_KEY", "CHAT2SBX_BEARER_TOKEN",
                                   "MY_UNRELATED_SECRET", "CHAT2SBX_SECRET_DIR", "CHAT2SBX_TUNNEL_ENV"})
            QVERIFY2(!names.contains(QLatin1String(absent)), absent);
        for (const char *present : {"PATH", "HOME", "CHAT2SBX_TUNNEL_KEY", "HTTPS_PROXY", "NO_PROXY", "FAKE_TUNNEL_LOG"})
            QVERIFY2(names.contains(QLatin1String(present)), present);
        QVERIFY(!QFileInfo::exists(env.root() + "/client-log-moved-here.log"));
        QVERIFY2(server.output().contains("not passed to tunnel-client (it would read them as its own settings): MCP_COMMAND"),
                 qPrintable(server.output()));
        QVERIFY(!server.output().contains("bearer-SECRET") && !server.output().contains(kKey));
        QCOMPARE(server.terminate(), 0);
    }

    // SIGTERM grace: a client that needs 2.5 s to stop gracefully gets them (the default grace is the
    // client's own 15 s); one that ignores SIGTERM is killed when the grace period ends.
    void gracefulStopWithinTheGracePeriod()
    {
        TestEnvironment env;
        enableTunnel(env);
        env.set("FAKE_TUNNEL_STOP_DELAY_MS", "2500");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 10000), qPrintable(server.output()));
        QElapsedTimer clock;
        clock.start();
        QCOMPARE(server.terminate(20000), 0);
        const qint64 ms = clock.elapsed();
        qInfo("serve stopped in %lld ms around a 2.5 s graceful client stop", ms);
        QVERIFY2(ms >= 2400 && ms < 15000, qPrintable(QString::number(ms)));
        QVERIFY2(server.output().contains("SIGKILL after 15000 ms"), qPrintable(server.output()));
        QVERIFY2(!server.output().contains("sending SIGKILL"), qPrintable(server.output()));
        const QList<QJsonObject> exits = eventsNamed(fakeEvents(logPath(env)), "exit");
        QCOMPARE(exits.size(), 1);
        QCOMPARE(exits.first().value("code").toInt(), 0);
        QCOMPARE(exits.first().value("signal").toString(), QStringLiteral("SIGTERM"));
    }

    void hardStopAfterTheGracePeriod()
    {
        TestEnvironment env;
        enableTunnel(env);
        env.set("FAKE_TUNNEL_IGNORE_SIGTERM", "1");
        env.set("CHAT2SBX_TUNNEL_STOP_GRACE_MS", "2000");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QVERIFY2(waitFor([&] { return tunnelState(env) == "connected"; }, 10000), qPrintable(server.output()));
        const qint64 pid = eventsNamed(fakeEvents(logPath(env)), "start").first().value("pid").toInteger();
        QElapsedTimer clock;
        clock.start();
        QCOMPARE(server.terminate(10000), 0);
        const qint64 ms = clock.elapsed();
        qInfo("serve stopped in %lld ms with a client ignoring SIGTERM (grace 2000 ms)", ms);
        QVERIFY2(ms >= 2000 && ms < 6000, qPrintable(QString::number(ms)));
        QVERIFY2(server.output().contains("sending SIGKILL"), qPrintable(server.output()));
        QVERIFY(eventsNamed(fakeEvents(logPath(env)), "exit").isEmpty());   // SIGKILL: no exit line
        QVERIFY(waitFor([&] { return ::kill(static_cast<pid_t>(pid), 0) != 0; }, 2000));
    }

    // `setup` with the tunnel enabled: client, credentials and `tunnel-client doctor --explain`.
    void setupRunsTheTunnelDoctor()
    {
        TestEnvironment env;
        enableTunnel(env);
        // no server yet: doctor cannot reach the endpoint, setup says to start chat2sbx first
        CliResult r = runCli(env, {"setup"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("[tunnel] Checking the Secure MCP Tunnel"), r.out.constData());
        QVERIFY2(r.out.contains("tunnel credentials readable"), r.out.constData());
        QVERIFY2(r.out.contains("| RESULT fail") && r.out.contains("mcp_server_reachable"), r.out.constData());
        QVERIFY2(r.err.contains("the tunnel is not") && r.err.contains("start chat2sbx"), r.err.constData());
        QVERIFY(!r.out.contains(kKey.toUtf8()) && !r.err.contains(kKey.toUtf8()));

        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        r = runCli(env, {"setup"});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY2(r.out.contains("| RESULT ok") && r.out.contains("tunnel checks passed"), r.out.constData());
        QVERIFY(r.out.contains("nothing to do"));   // the sandbox template part still runs

        env.set("FAKE_TUNNEL_NO_DOCTOR", "1");
        r = runCli(env, {"setup"});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY2(r.out.contains("no `doctor` command; skipped"), r.out.constData());
        QCOMPARE(server.terminate(), 0);

        env.set("CHAT2SBX_TUNNEL_CLIENT", env.root() + "/nowhere/tunnel-client");
        r = runCli(env, {"setup"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("tunnel-client not found at " + (env.root() + "/nowhere/tunnel-client").toUtf8()), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestTunnelHealth)
#include "tst_tunnel_health.moc"
