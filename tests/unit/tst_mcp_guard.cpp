// The pure pieces of the MCP endpoint: Host/Origin/token rules, Accept and Content-Type parsing,
// JSON-RPC id handling, version negotiation and session expiry by the Clock.
#include "config/Config.h"
#include "core/JsonRpc.h"
#include "http/HttpAccessPolicy.h"
#include "ManualClock.h"
#include "mcp/McpDispatcher.h"
#include "mcp/McpSessions.h"

#include <QtTest>

using namespace chat2sbx;

namespace {
HttpRequestData requestWith(const QHash<QByteArray, QByteArray> &headers)
{
    HttpRequestData r;
    r.method = "POST";
    r.path = QStringLiteral("/mcp");
    for (auto it = headers.cbegin(); it != headers.cend(); ++it)
        r.headers.append({it.key(), it.value()});
    return r;
}
} // namespace

class TestMcpGuard : public QObject {
    Q_OBJECT
private slots:
    void hostAndOrigin()
    {
        Config c;
        c.allowedHosts = {QStringLiteral("mcp.internal:8443")};
        c.allowedOrigins = {QStringLiteral("https://chat.example")};
        HttpAccessPolicy g(c, QString());
        for (const char *host : {"127.0.0.1:18788", "localhost:1", "localhost", "[::1]:18788", "127.0.0.2", "mcp.internal:8443"})
            QVERIFY2(!g.checkAccess(requestWith({{"host", host}})), host);
        for (const char *host : {"evil.example.com", "evil.example.com:18788", "mcp.internal:9", "", "10.0.0.1", "127.0.0.1.evil.com"})
            QVERIFY2(g.checkAccess(requestWith({{"host", host}}))->status == 403, host);
        QVERIFY(g.checkAccess(requestWith({}))->status == 403);   // no Host at all

        for (const char *origin : {"http://127.0.0.1:18788", "http://localhost:5173", "https://[::1]", "https://chat.example"})
            QVERIFY2(!g.checkAccess(requestWith({{"host", "127.0.0.1"}, {"origin", origin}})), origin);
        for (const char *origin : {"http://evil.example.com", "null", "file://", "http://127.0.0.1.evil.com", "https://chat.example.evil"})
            QVERIFY2(g.checkAccess(requestWith({{"host", "127.0.0.1"}, {"origin", origin}}))->status == 403, origin);
    }

    void bearerAndLocalToken()
    {
        Config c;
        c.host = QStringLiteral("0.0.0.0");
        c.bearerToken = QStringLiteral("0123456789abcdef0123456789abcdef");
        c.requireLocalToken = true;
        c.localTokenHeader = QStringLiteral("X-Local-Token");
        HttpAccessPolicy g(c, QStringLiteral("secret-secret-secret-secret-secret"));
        auto r = g.checkAccess(requestWith({{"host", "0.0.0.0:1"}}));
        QCOMPARE(r->status, 401);
        QVERIFY(r->wwwAuthenticate.startsWith("Bearer"));
        r = g.checkAccess(requestWith({{"host", "127.0.0.1"}, {"authorization", "bearer 0123456789abcdef0123456789abcdef"}}));
        QCOMPARE(r->status, 401);
        QVERIFY(r->wwwAuthenticate.isEmpty());
        QVERIFY(r->message.contains("X-Local-Token"));
        QVERIFY(!g.checkAccess(requestWith({{"host", "127.0.0.1"},
                                            {"authorization", "Bearer 0123456789abcdef0123456789abcdef"},
                                            {"x-local-token", "secret-secret-secret-secret-secret"}})));
        QVERIFY(g.checkAccess(requestWith({{"host", "127.0.0.1"},
                                           {"authorization", "Bearer 0123456789abcdef0123456789abcdeX"},
                                           {"x-local-token", "secret-secret-secret-secret-secret"}})));
        // Loopback bind, token not required: nothing asked.
        HttpAccessPolicy open(Config{}, QStringLiteral("ignored"));
        QVERIFY(!open.checkAccess(requestWith({{"host", "127.0.0.1"}})));
        QVERIFY(!HttpAccessPolicy::constantTimeEquals("", ""));
    }

    void acceptAndContentType()
    {
        QVERIFY(HttpAccessPolicy::acceptsJsonAndSse("application/json, text/event-stream"));
        QVERIFY(HttpAccessPolicy::acceptsJsonAndSse("text/event-stream;q=0.9, application/json"));
        QVERIFY(HttpAccessPolicy::acceptsJsonAndSse("*/*"));
        QVERIFY(HttpAccessPolicy::acceptsJsonAndSse(""));
        QVERIFY(!HttpAccessPolicy::acceptsJsonAndSse("application/json"));
        QVERIFY(!HttpAccessPolicy::acceptsJsonAndSse("text/event-stream"));
        QVERIFY(!HttpAccessPolicy::acceptsJsonAndSse("text/html"));
        QVERIFY(HttpAccessPolicy::isJsonContentType("application/json"));
        QVERIFY(HttpAccessPolicy::isJsonContentType("Application/JSON; charset=utf-8"));
        QVERIFY(!HttpAccessPolicy::isJsonContentType(""));
        QVERIFY(!HttpAccessPolicy::isJsonContentType("text/plain"));
        QVERIFY(!HttpAccessPolicy::isJsonContentType("application/json-seq"));
    }

    void jsonRpcIds()
    {
        QCOMPARE(jsonrpc::peekId(R"({"id":7,"method":"x"})"), QJsonValue(7));
        QCOMPARE(jsonrpc::peekId(R"({"id":"a"})"), QJsonValue("a"));
        QVERIFY(jsonrpc::peekId(R"({"id":null})").isUndefined());
        QVERIFY(jsonrpc::peekId(R"({"id":1.5})").isUndefined());
        QVERIFY(jsonrpc::peekId("nonsense").isUndefined());
        QVERIFY(jsonrpc::error(QJsonValue(), -32600, "x").value("id").isNull());
        QVERIFY(jsonrpc::idKey(QJsonValue(5)) != jsonrpc::idKey(QJsonValue("5")));
    }

    void versionNegotiation()
    {
        QCOMPARE(McpDispatcher::negotiateProtocolVersion("2025-06-18"), QStringLiteral("2025-06-18"));
        QCOMPARE(McpDispatcher::negotiateProtocolVersion("2024-11-05"), QStringLiteral("2024-11-05"));
        QCOMPARE(McpDispatcher::negotiateProtocolVersion("2026-07-28"), QStringLiteral("2025-11-25"));
        QCOMPARE(McpDispatcher::negotiateProtocolVersion(""), QStringLiteral("2025-11-25"));
    }

    void sessionExpiry()
    {
        ManualClock clock(1000000);
        McpSessions sessions(clock, 60);
        QSet<QString> busy;
        sessions.setBusyCheck([&busy](const QString &id) { return busy.contains(id); });
        McpSession &a = sessions.create("2025-06-18");
        const QString idA = a.id;
        const QString idB = sessions.create("2025-06-18").id;
        QVERIFY(idA != idB);
        QCOMPARE(idA.size(), 32);
        clock.advance(59000);
        QVERIFY(sessions.find(idA));
        sessions.touch(*sessions.find(idA));
        clock.advance(2000);
        QVERIFY(sessions.find(idA));
        QVERIFY(!sessions.find(idB));       // 61 s idle
        busy.insert(idA);
        clock.advance(600000);
        QVERIFY(sessions.find(idA));        // busy sessions do not expire
        busy.remove(idA);
        QCOMPARE(sessions.sweep(), QStringList{idA});
        QCOMPARE(sessions.count(), 0);
        QVERIFY(!sessions.remove(idA));
    }
};

QTEST_GUILESS_MAIN(TestMcpGuard)
#include "tst_mcp_guard.moc"
