// Network egress as an agent and the user live it, against a real `chat2sbx serve` on the fake sbx
// (whose proxy answers a blocked request with the policy's 403 body): a blocked curl → the bash
// result carries network_blocked → network_request → approval_required → `chat2sbx network allow`
// (another process) runs `sbx policy allow network --sandbox <rt> HOST` → the same curl reaches a
// loopback server. Also: deny, the per-client cap, and the rules removed when the sandbox goes.
#include "McpTestClient.h"
#include "TestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QtTest>

using namespace chat2sbx::test;

namespace {

QJsonObject structured(const QJsonObject &callResult)
{
    return callResult.value("structuredContent").toObject();
}

QString firstText(const QJsonObject &callResult)
{
    return callResult.value("content").toArray().at(0).toObject().value("text").toString();
}

QList<QStringList> fakeCalls(const TestEnvironment &env)
{
    QList<QStringList> out;
    QFile f(env.sbxState() + "/calls.log");
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray &line : f.readAll().split('\n')) {
        QStringList args;
        for (const QJsonValue &v : QJsonDocument::fromJson(line).array())
            args << v.toString();
        if (!args.isEmpty())
            out << args;
    }
    return out;
}

QString runtimeName(const TestEnvironment &env)
{
    for (const QStringList &c : fakeCalls(env)) {
        const qsizetype i = c.indexOf("--name");
        if (c.first() == "create" && i > 0)
            return c.at(i + 1);
    }
    return {};
}

QJsonArray fakeRules(const TestEnvironment &env)
{
    QFile f(env.sbxState() + "/policy.json");
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object().value("rules").toArray();
}

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

} // namespace

class TestNetworkEgress : public QObject {
    Q_OBJECT

private slots:
    void blockedRequestAllowDenyCapCleanup()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "the fake sbx is not built (CHAT2SBX_FAKE_SBX unset)");
        if (QStandardPaths::findExecutable("curl").isEmpty() || QStandardPaths::findExecutable("python3").isEmpty())
            QSKIP("needs curl and python3");
        TestEnvironment env;
        env.set("FAKE_SBX_TEMPLATES", QStringLiteral("chat2sbx-shell:" CHAT2SBX_VERSION));
        env.set("FAKE_SBX_IDLE_STOP_MS", "off");

        // The host the sandbox wants: a loopback web server with one file.
        const QString site = env.root() + "/site";
        QVERIFY(QDir().mkpath(site));
        QFile page(site + "/hello.txt");
        QVERIFY(page.open(QIODevice::WriteOnly));
        page.write("hello from the allowed host\n");
        page.close();
        const quint16 port = freePort();
        QProcess web;
        web.setProgram(QStandardPaths::findExecutable("python3"));
        web.setArguments({"-m", "http.server", QString::number(port), "--bind", "127.0.0.1", "--directory", site});
        web.start();
        QVERIFY(web.waitForStarted());
        const auto stopWeb = qScopeGuard([&web] { web.kill(); web.waitForFinished(); });
        const QString host = QStringLiteral("127.0.0.1:%1").arg(port);
        const QString curl = QStringLiteral("curl -sS -m 10 http://%1/hello.txt").arg(host);

        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "egress-test");
        QVERIFY(mcp.open());
        QVERIFY(mcp.toolNames().contains("network_request"));

        const QJsonObject created = mcp.callToolResult("sandbox_create", {});
        const QString sandboxId = structured(created).value("sandbox_id").toString();
        QVERIFY2(!sandboxId.isEmpty(), qPrintable(QJsonDocument(created).toJson()));
        const QString runtime = runtimeName(env);
        QVERIFY(!runtime.isEmpty());

        // 1. The blocked curl: the proxy's 403 body, and the result says what to do.
        QElapsedTimer wait;
        wait.start();
        QJsonObject bash;
        do {   // the web server may take a moment to listen; the proxy answers 403 regardless
            bash = structured(mcp.callToolResult("bash", {{"sandbox_id", sandboxId}, {"command", curl}}));
        } while (bash.value("status").toString() == "running" && wait.elapsed() < 20000);
        QVERIFY2(bash.value("output").toString().contains("Blocked by network policy: domain " + host),
                 qPrintable(QJsonDocument(bash).toJson()));
        const QJsonObject blocked = bash.value("network_blocked").toObject();
        QCOMPARE(blocked.value("hosts").toArray(), QJsonArray{host});
        QVERIFY(blocked.value("hint").toString().contains("network_request"));

        // sandbox_get lists it from `sbx policy log <rt> --json`.
        const QJsonObject got = structured(mcp.callToolResult("sandbox_get", {{"sandbox_id", sandboxId}}));
        QVERIFY2(got.value("recent_blocked_hosts").toArray().contains(host), qPrintable(QJsonDocument(got).toJson()));
        // The same log in the shape of Docker's API (`domain` is "network", the host elsewhere).
        env.setSbxFaults({"FAKE_SBX_POLICY_LOG_SHAPE=api"});
        const QJsonObject gotApi = structured(mcp.callToolResult("sandbox_get", {{"sandbox_id", sandboxId}}));
        env.setSbxFaults({});
        QVERIFY2(gotApi.value("recent_blocked_hosts").toArray() == QJsonArray{host}, qPrintable(QJsonDocument(gotApi).toJson()));

        // 2. network_request → approval_required; the same arguments → the same request.
        const QJsonObject args{{"sandbox_id", sandboxId}, {"hosts", QJsonArray{host}}, {"reason", "fetch the test page"}};
        QJsonObject r = structured(mcp.callToolResult("network_request", args));
        QCOMPARE(r.value("status").toString(), "approval_required");
        const QString requestId = r.value("request_id").toString();
        QVERIFY(requestId.startsWith("net_"));
        QCOMPARE(structured(mcp.callToolResult("network_request", args)).value("request_id").toString(), requestId);

        CliResult list = runCli(env, {"network", "list", "--json"});
        QCOMPARE(list.exitCode, 0);
        const QJsonObject listed = QJsonDocument::fromJson(list.out).array().at(0).toObject();
        QCOMPARE(listed.value("request_id").toString(), requestId);
        QCOMPARE(listed.value("client_name").toString(), "egress-test");
        QCOMPARE(listed.value("reason").toString(), "fetch the test page");

        // 3. The user allows it from the CLI: the exact sbx command, then the agent learns it and retries.
        const CliResult allow = runCli(env, {"network", "allow", requestId});
        QVERIFY2(allow.exitCode == 0, allow.err.constData());
        QVERIFY(fakeCalls(env).contains(QStringList{"policy", "allow", "network", "--sandbox", runtime, host}));
        r = structured(mcp.callToolResult("network_request", args));
        QCOMPARE(r.value("status").toString(), "allowed");
        QCOMPARE(r.value("scope").toString(), "sandbox");
        bash = structured(mcp.callToolResult("bash", {{"sandbox_id", sandboxId}, {"command", curl}}));
        QVERIFY2(bash.value("output").toString().contains("hello from the allowed host"), qPrintable(QJsonDocument(bash).toJson()));
        QVERIFY(!bash.contains("network_blocked"));
        QCOMPARE(runCli(env, {"network", "allow", requestId}).exitCode, 1);   // a decision is final

        // 4. Deny: the agent is told, nothing is added to sbx.
        const QJsonObject denyArgs{{"sandbox_id", sandboxId}, {"hosts", QJsonArray{"*.example.org"}}};
        const QString deniedId = structured(mcp.callToolResult("network_request", denyArgs)).value("request_id").toString();
        QCOMPARE(runCli(env, {"network", "deny", deniedId}).exitCode, 0);
        r = structured(mcp.callToolResult("network_request", denyArgs));
        QCOMPARE(r.value("status").toString(), "denied");
        for (const QStringList &c : fakeCalls(env))
            QVERIFY(!c.contains("*.example.org"));

        // 5. Cap: five pending per client, the sixth is refused with a readable error.
        for (int i = 0; i < 5; ++i) {
            const QJsonObject a{{"sandbox_id", sandboxId}, {"hosts", QJsonArray{QStringLiteral("h%1.example.net").arg(i)}}};
            QCOMPARE(structured(mcp.callToolResult("network_request", a)).value("status").toString(), "approval_required");
        }
        const QJsonObject refused = mcp.callToolResult("network_request", {{"sandbox_id", sandboxId}, {"hosts", QJsonArray{"h9.example.net"}}});
        QVERIFY(refused.value("isError").toBool());
        QVERIFY2(firstText(refused).contains("already has 5 network requests"), qPrintable(firstText(refused)));
        // Eleven hosts break the schema.
        QJsonArray eleven;
        for (int i = 0; i < 11; ++i)
            eleven.append(QStringLiteral("x%1.example.net").arg(i));
        QVERIFY(mcp.callToolResult("network_request", {{"sandbox_id", sandboxId}, {"hosts", eleven}}).value("isError").toBool());

        // 6. Destroying the sandbox removes the rule chat2sbx added for it.
        QCOMPARE(fakeRules(env).size(), 1);
        QVERIFY(!mcp.callToolResult("sandbox_destroy", {{"sandbox_id", sandboxId}}).value("isError").toBool());
        QTRY_VERIFY_WITH_TIMEOUT(fakeRules(env).isEmpty(), 15000);
        QVERIFY(fakeCalls(env).contains(QStringList{"policy", "rm", "network", "--resource", host, "--sandbox", runtime}));
        QTRY_COMPARE_WITH_TIMEOUT(QJsonDocument::fromJson(runCli(env, {"network", "rules", "--json"}).out).array().size(), 0, 10000);

        // 7. The audit log holds the decisions.
        const CliResult audit = runCli(env, {"audit", "--json"});
        QVERIFY2(audit.out.contains("network allow") && audit.out.contains("network deny"), audit.out.left(2000).constData());
        QVERIFY(audit.out.contains("network_request"));
    }
};

QTEST_GUILESS_MAIN(TestNetworkEgress)
#include "tst_network_egress.moc"
