// How tunnel-client is started and read: the explicit child environment, the run/doctor
// argv, the client's output lines (poll failures, errors) and the Prometheus poll gauge.
#include "tunnel/TunnelClientLaunch.h"
#include "tunnel/TunnelClientOutput.h"
#include "tunnel/TunnelSupervisor.h"

#include <QtTest>

using namespace chat2sbx;

class TestTunnelLaunch : public QObject {
    Q_OBJECT
private slots:
    void environmentIsExplicit()
    {
        QProcessEnvironment parent;
        for (const char *kv : {"PATH=/usr/bin", "HOME=/home/u", "LANG=de_DE.UTF-8", "LC_TIME=C", "HTTPS_PROXY=http://proxy:3128",
                               "MCP_COMMAND=npx x", "TUNNEL_CLIENT_PROFILE=p", "LOG_FILE=/tmp/x", "OPENAI_API_KEY=sk-shell",
                               "CHAT2SBX_BEARER_TOKEN=b", "SECRET_THING=s", "FAKE_TUNNEL_LOG=/l", "FAKE_TUNNEL_POLL_MS=5",
                               "ASAN_OPTIONS=a", "CONTROL_PLANE_API_KEY=sk-other"}) {
            const QString s = QString::fromLatin1(kv);
            parent.insert(s.section(QLatin1Char('='), 0, 0), s.section(QLatin1Char('='), 1));
        }
        QStringList refused;
        const QProcessEnvironment env = TunnelClientLaunch::environment(
            parent, {QStringLiteral("FAKE_TUNNEL_*"), QStringLiteral("ASAN_OPTIONS"), QStringLiteral("MCP_*"),
                     QStringLiteral("*"), QStringLiteral("OPENAI_API_KEY")},
            QStringLiteral("sk-real"), QStringLiteral("tok"), &refused);
        QStringList keys = env.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{"ASAN_OPTIONS", "CHAT2SBX_LOCAL_TOKEN", "CHAT2SBX_TUNNEL_KEY", "FAKE_TUNNEL_LOG",
                                    "FAKE_TUNNEL_POLL_MS", "HOME", "HTTPS_PROXY", "LANG", "LC_TIME", "PATH"}));
        QCOMPARE(env.value("CHAT2SBX_TUNNEL_KEY"), QStringLiteral("sk-real"));
        refused.sort();
        QCOMPARE(refused, (QStringList{"MCP_COMMAND", "OPENAI_API_KEY"}));
        // no PATH at all still gives the child a usable one; no token, no token variable
        const QProcessEnvironment bare = TunnelClientLaunch::environment(QProcessEnvironment(), {}, QStringLiteral("k"), QString());
        QVERIFY(!bare.value("PATH").isEmpty());
        QVERIFY(!bare.contains("CHAT2SBX_LOCAL_TOKEN"));
    }

    void runAndDoctorArguments()
    {
        TunnelClientLaunch spec;
        spec.tunnelId = QStringLiteral("tunnel_0123456789abcdef0123456789abcdef");
        spec.mcpServerUrl = QStringLiteral("http://127.0.0.1:5/mcp");
        spec.healthUrlFile = QStringLiteral("/state/h.url");
        spec.startupWaitMs = 15000;
        spec.localTokenHeader = QStringLiteral("X-Local-Token");
        const QStringList run = spec.runArguments();
        QCOMPARE(run.first(), QStringLiteral("run"));
        for (const char *a : {"--control-plane.api-key=env:CHAT2SBX_TUNNEL_KEY", "--health.listen-addr=127.0.0.1:0",
                              "--health.url-file=/state/h.url", "--mcp.startup-wait-timeout=15s", "--log.format=json",
                              "--log.level=info", "X-Local-Token: env:CHAT2SBX_LOCAL_TOKEN"})
            QVERIFY2(run.contains(QLatin1String(a)), a);
        spec.startupWaitMs = 1500;
        QVERIFY(spec.runArguments().contains("--mcp.startup-wait-timeout=1500ms"));
        const QStringList doctor = spec.doctorArguments();
        QCOMPARE(doctor.mid(0, 2), (QStringList{"doctor", "--explain"}));
        QVERIFY(doctor.contains("--mcp.server-url=http://127.0.0.1:5/mcp"));
    }

    void clientLines()
    {
        TunnelClientLine l = TunnelClientLine::parse(QStringLiteral(
            R"({"time":"t","level":"WARN","msg":"poll failed; backing off","error":"unexpected status 401 Unauthorized","status_code":401,"retry_in_ms":200})"));
        QCOMPARE(l.kind, TunnelClientLine::Kind::PollFailed);
        QVERIFY(l.isAuthFailure());
        QCOMPARE(l.text, QStringLiteral("WARN poll failed; backing off: unexpected status 401 Unauthorized (HTTP 401)"));
        l = TunnelClientLine::parse(QStringLiteral(R"({"level":"WARN","msg":"poll failed; backing off","error":"dial tcp: i/o timeout"})"));
        QCOMPARE(l.kind, TunnelClientLine::Kind::PollFailed);
        QVERIFY(!l.isAuthFailure());
        l = TunnelClientLine::parse(QStringLiteral("2026/12/03 13:26:27 WARN poll failed; backing off error=x status_code=403 status=\"403 Forbidden\""));
        QVERIFY(l.isAuthFailure());
        QCOMPARE(TunnelClientLine::parse(QStringLiteral(R"({"level":"INFO","msg":"poller recovered; polling operational"})")).kind,
                 TunnelClientLine::Kind::PollRecovered);
        QCOMPARE(TunnelClientLine::parse(QStringLiteral(R"({"level":"ERROR","msg":"failed to connect to mcp","error":"HTTP 500"})")).text,
                 QStringLiteral("ERROR failed to connect to mcp: HTTP 500"));
        // main.go prints configuration errors plainly before logging starts
        QCOMPARE(TunnelClientLine::parse(QStringLiteral("mcp config: duplicate channel \"main\" from mcp.command")).kind,
                 TunnelClientLine::Kind::Error);
        QCOMPARE(TunnelClientLine::parse(QStringLiteral("2026/12/03 13:26:27 INFO poller started")).kind, TunnelClientLine::Kind::Info);
        QCOMPARE(TunnelClientLine::parse(QStringLiteral(R"({"level":"INFO","msg":"health server listening"})")).kind,
                 TunnelClientLine::Kind::Info);
    }

    void pollGauge()
    {
        const QByteArray text =
            "# HELP commands_poll_last_successful_timestamp_seconds Unix timestamp\n"
            "# TYPE commands_poll_last_successful_timestamp_seconds gauge\n"
            "commands_poll_last_successful_timestamp_seconds_extra{a=\"b\"} 5\n"
            "commands_poll_last_successful_timestamp_seconds{otel_scope_name=\"controlplane\",otel_scope_version=\"\"} 1.796304365e+09\n";
        const auto v = prometheusSample(text, "commands_poll_last_successful_timestamp_seconds");
        QVERIFY(v.has_value());
        QCOMPARE(*v, 1796304365.0);
        QCOMPARE(*prometheusSample("commands_poll_last_successful_timestamp_seconds 0\n", "commands_poll_last_successful_timestamp_seconds"), 0.0);
        QVERIFY(!prometheusSample("readiness 1\n", "commands_poll_last_successful_timestamp_seconds").has_value());
        QVERIFY(!prometheusSample("commands_poll_last_successful_timestamp_seconds{unclosed 3\n", "commands_poll_last_successful_timestamp_seconds").has_value());
    }

    void unauthorizedAdviceSaysWhatToDo()
    {
        const QString advice = TunnelSupervisor::unauthorizedAdvice(403);
        for (const char *part : {"HTTP 403", "key or id was refused", "Tunnels Read+Use", "chat2sbx tunnel import",
                                 "https://platform.openai.com/settings/organization/tunnels"})
            QVERIFY2(advice.contains(QLatin1String(part)), part);
    }
};

QTEST_GUILESS_MAIN(TestTunnelLaunch)
#include "tst_tunnel_launch.moc"
