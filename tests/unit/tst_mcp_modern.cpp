// McpDispatcher's modern era (MCP 2026-07-28) without sockets: one row per request (its MCP headers
// and body -> HTTP status and the answer it must contain), ChatGPT's opening probe among them; then
// what a sessionless tools/call does: no session made, the client of each request's _meta, the
// ChatGPT conversation in the audit row, cancellation by the transport, ids that repeat across
// conversations, and the cap on calls in flight.
#include "DispatcherFixture.h"
#include "TestSupport.h"
#include "core/JsonRpc.h"
#include "mcp/ProtocolVersions.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

const QByteArray kMeta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"row-client","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}})";
// ChatGPT's captured probe (reference/mcp.md §5).
const QByteArray kChatGptMeta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"openai-mcp","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}})";
const QByteArray kCard = "ui://widget/chat2sbx-tool-card.html";

QByteArray message(const QByteArray &id, const QByteArray &method, const QByteArray &params)
{
    return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":{)" + params + "}}";
}

// The headers of a modern request for `method` (and `name` for Mcp-Name, when given).
McpMessageContext modernContext(const QByteArray &method, const QByteArray &name = {})
{
    McpMessageContext context;
    context.protocolVersion = QStringLiteral("2026-07-28");
    context.method = method;
    if (!name.isEmpty())
        context.name = name;
    return context;
}

std::optional<QByteArray> header(const QString &value)
{
    return value.isNull() ? std::nullopt : std::optional<QByteArray>(value.toUtf8());
}

} // namespace

class TestMcpModern : public QObject {
    Q_OBJECT

private slots:
    void request_data()
    {
        QTest::addColumn<QString>("versionHeader");   // null: not sent
        QTest::addColumn<QString>("methodHeader");
        QTest::addColumn<QString>("nameHeader");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("expected");     // contained in the answer; empty: accepted (202)

        const QString none;
        const QString modern = QStringLiteral("2026-07-28");
        const QByteArray discovered = R"({"id":"openai-mcp-discover","result":{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],)"
                                      R"("resultType":"complete","ttlMs":300000,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"chat2sbx"}},)"
                                      R"("capabilities":{"tools":{"listChanged":false},"prompts":{"listChanged":false},"extensions":{"io.modelcontextprotocol/ui":{}}}}})";

        // ChatGPT's probe: answered whatever version header it carries.
        QTest::newRow("chatgpt probe, no headers") << none << none << none
                                                   << message(R"("openai-mcp-discover")", "server/discover", kChatGptMeta) << 200 << discovered;
        QTest::newRow("chatgpt probe, version header") << modern << none << none
                                                       << message(R"("openai-mcp-discover")", "server/discover", kChatGptMeta) << 200 << discovered;
        QTest::newRow("chatgpt probe, all headers") << modern << QStringLiteral("server/discover") << none
                                                    << message(R"("openai-mcp-discover")", "server/discover", kChatGptMeta) << 200 << discovered;
        QTest::newRow("chatgpt probe, legacy header") << QStringLiteral("2025-06-18") << none << none
                                                      << message(R"("openai-mcp-discover")", "server/discover", kChatGptMeta) << 200 << discovered;
        QTest::newRow("discover, clientInfo omitted") << modern << QStringLiteral("server/discover") << none
                                                      << message("5", "server/discover", R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})")
                                                      << 200 << QByteArray(R"({"id":5,"result":{"resultType":"complete"}})");

        // Versions.
        QTest::newRow("header and _meta disagree") << modern << QStringLiteral("server/discover") << none
                                                   << message("302", "server/discover", R"("_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}})")
                                                   << 400 << QByteArray(R"({"id":302,"error":{"code":-32020}})");
        QTest::newRow("unsupported version") << QStringLiteral("v999.0.0") << QStringLiteral("server/discover") << none
                                             << message("301", "server/discover", R"("_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}})")
                                             << 400 << QByteArray(R"({"id":301,"error":{"code":-32022,"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"v999.0.0"}}})");
        QTest::newRow("unsupported version, header only") << QStringLiteral("2031-01-01") << QStringLiteral("tools/list") << none
                                                          << message("9", "tools/list", "") << 400
                                                          << QByteArray(R"({"id":9,"error":{"code":-32022,"data":{"requested":"2031-01-01"}}})");

        // The envelope.
        QTest::newRow("no _meta") << modern << QStringLiteral("server/discover") << none << message("101", "server/discover", "") << 400
                                  << QByteArray(R"({"id":101,"error":{"code":-32602}})");
        QTest::newRow("_meta without version") << modern << QStringLiteral("server/discover") << none
                                               << message("102", "server/discover", R"("_meta":{"io.modelcontextprotocol/clientCapabilities":{}})") << 400
                                               << QByteArray(R"({"id":102,"error":{"code":-32602}})");
        QTest::newRow("_meta without capabilities") << modern << QStringLiteral("server/discover") << none
                                                    << message("104", "server/discover", R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"})") << 400
                                                    << QByteArray(R"({"id":104,"error":{"code":-32602}})");
        QTest::newRow("capabilities not an object") << modern << QStringLiteral("tools/list") << none
                                                    << message("104", "tools/list", R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]})") << 400
                                                    << QByteArray(R"({"id":104,"error":{"code":-32602}})");

        // Standard headers (SEP-2243).
        QTest::newRow("tools/list") << modern << QStringLiteral("tools/list") << none << message("2", "tools/list", kMeta) << 200
                                    << QByteArray(R"({"id":2,"result":{"tools":[{"name":"echo"},{"name":"slow"},{"name":"drop"},{"name":"run"}],"resultType":"complete","ttlMs":300000,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"chat2sbx"}}}})");
        QTest::newRow("method header with spaces") << modern << QStringLiteral("  tools/list\t") << none << message("2", "tools/list", kMeta) << 200
                                                   << QByteArray(R"({"id":2,"result":{"resultType":"complete"}})");
        QTest::newRow("method header missing") << modern << none << none << message("2", "tools/list", kMeta) << 400
                                               << QByteArray(R"({"id":2,"error":{"code":-32020}})");
        QTest::newRow("method header differs") << modern << QStringLiteral("prompts/list") << none << message("2", "tools/list", kMeta) << 400
                                               << QByteArray(R"({"id":2,"error":{"code":-32020}})");
        QTest::newRow("method header case") << modern << QStringLiteral("TOOLS/LIST") << none << message("2", "tools/list", kMeta) << 400
                                            << QByteArray(R"({"id":2,"error":{"code":-32020}})");
        QTest::newRow("call") << modern << QStringLiteral("tools/call") << QStringLiteral("echo")
                              << message("6", "tools/call", R"("name":"echo","arguments":{"text":"hi"},)" + kMeta) << 200
                              << QByteArray(R"({"id":6,"result":{"isError":false,"resultType":"complete","structuredContent":{"text":"hi"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"chat2sbx"}}}})");
        QTest::newRow("call, name in base64") << modern << QStringLiteral("tools/call") << QStringLiteral("=?base64?ZWNobw==?=")
                                              << message("6", "tools/call", R"("name":"echo","arguments":{"text":"hi"},)" + kMeta) << 200
                                              << QByteArray(R"({"id":6,"result":{"isError":false}})");
        QTest::newRow("call, name padded") << modern << QStringLiteral("tools/call") << QStringLiteral("  echo  ")
                                           << message("6", "tools/call", R"("name":"echo","arguments":{"text":"hi"},)" + kMeta) << 200
                                           << QByteArray(R"({"id":6,"result":{"isError":false}})");
        QTest::newRow("call, name header missing") << modern << QStringLiteral("tools/call") << none
                                                   << message("6", "tools/call", R"("name":"echo","arguments":{"text":"hi"},)" + kMeta) << 400
                                                   << QByteArray(R"({"id":6,"error":{"code":-32020}})");
        QTest::newRow("call, name header differs") << modern << QStringLiteral("tools/call") << QStringLiteral("wrong_tool_name")
                                                   << message("6", "tools/call", R"("name":"echo","arguments":{"text":"hi"},)" + kMeta) << 400
                                                   << QByteArray(R"({"id":6,"error":{"code":-32020}})");
        QTest::newRow("call, bad base64") << modern << QStringLiteral("tools/call") << QStringLiteral("=?base64?!!!?=")
                                          << message("6", "tools/call", R"("name":"echo","arguments":{"text":"hi"},)" + kMeta) << 400
                                          << QByteArray(R"({"id":6,"error":{"code":-32020}})");
        QTest::newRow("call, error result") << modern << QStringLiteral("tools/call") << QStringLiteral("echo")
                                            << message("6", "tools/call", R"("name":"echo","arguments":{"text":5},)" + kMeta) << 200
                                            << QByteArray(R"({"id":6,"result":{"isError":true,"resultType":"complete"}})");
        QTest::newRow("read card") << modern << QStringLiteral("resources/read") << QString::fromLatin1(kCard)
                                   << message("7", "resources/read", R"("uri":")" + kCard + R"(",)" + kMeta) << 200
                                   << QByteArray(R"({"id":7,"result":{"resultType":"complete","ttlMs":300000,"cacheScope":"private"}})");
        QTest::newRow("read unknown resource") << modern << QStringLiteral("resources/read") << QStringLiteral("urn:chat2sbx:nonexistent")
                                               << message("7", "resources/read", R"("uri":"urn:chat2sbx:nonexistent",)" + kMeta) << 200
                                               << QByteArray(R"({"id":7,"error":{"code":-32602,"data":{"uri":"urn:chat2sbx:nonexistent"}}})");
        QTest::newRow("prompts/list") << modern << QStringLiteral("prompts/list") << none << message("8", "prompts/list", kMeta) << 200
                                      << QByteArray(R"({"id":8,"result":{"prompts":[{"name":"work_on_folder"}],"ttlMs":300000}})");
        QTest::newRow("templates") << modern << QStringLiteral("resources/templates/list") << none << message("8", "resources/templates/list", kMeta) << 200
                                   << QByteArray(R"({"id":8,"result":{"resourceTemplates":[],"ttlMs":300000,"cacheScope":"private"}})");

        // Methods this revision removed, and unknown ones: 404.
        for (const char *method : {"initialize", "ping", "logging/setLevel", "resources/subscribe", "unknown/method"})
            QTest::newRow(method) << modern << QString::fromLatin1(method) << none << message("500", method, kMeta) << 404
                                  << QByteArray(R"({"id":500,"error":{"code":-32601}})");

        // A notification needs no answer; a legacy version in _meta means a legacy request.
        QTest::newRow("notification") << modern << QStringLiteral("notifications/cancelled") << none
                                      << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,)" + kMeta + "}}") << 202 << QByteArray();
        QTest::newRow("legacy version in _meta") << none << QStringLiteral("tools/list") << none
                                                 << message("3", "tools/list", R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}})")
                                                 << 400 << QByteArray(R"({"id":3,"error":{"code":-32000}})");
    }

    void request()
    {
        QFETCH(QString, versionHeader);
        QFETCH(QString, methodHeader);
        QFETCH(QString, nameHeader);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QByteArray, expected);

        DispatcherFixture f;
        McpMessageContext context;
        // A stray Mcp-Session-Id on a modern request is ignored (and none is made).
        context.sessionId = QStringLiteral("0123456789abcdef0123456789abcdef");
        if (!versionHeader.isNull())
            context.protocolVersion = versionHeader;
        context.method = header(methodHeader);
        context.name = header(nameHeader);
        if (body.contains("2025-11-25"))
            context.sessionId.clear();   // that row is about a legacy request without a session
        const QList<McpAnswer> answers = f.sendWith(body, context);
        QCOMPARE(answers.size(), 1);
        const McpAnswer &answer = answers.first();
        QVERIFY2(answer.status == status, qPrintable(QStringLiteral("HTTP %1: %2").arg(answer.status).arg(QString::fromUtf8(answer.json))));
        QVERIFY(answer.createdSessionId.isEmpty());
        QCOMPARE(f.dispatcher->sessions().count(), 0);
        if (expected.isEmpty()) {
            QVERIFY2(answer.isAccepted(), answer.json.constData());
            return;
        }
        QString where;
        QVERIFY2(contains(object(answer.json), object(expected), where),
                 qPrintable(QStringLiteral("at %1 in %2").arg(where, QString::fromUtf8(answer.json))));
    }

    void eachRequestSaysWhoItIsAndWhichConversation()
    {
        DispatcherFixture f;
        McpMessageContext context = modernContext("tools/call", "run");
        const QByteArray meta = R"("_meta":{"openai/session":"v1/conv-4f2a9c7d1e","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"openai-mcp","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}})";
        const QList<McpAnswer> answers = f.sendWith(message("1", "tools/call", R"("name":"run",)" + meta), context);
        QCOMPARE(answers.size(), 1);
        QCOMPARE(f.audit.rows.size(), 1);
        QCOMPARE(f.audit.rows.last().client, QStringLiteral("openai-mcp"));
        QCOMPARE(f.audit.rows.last().conversation, QStringLiteral("v1/conv-4f2a9c7d1e"));
        QCOMPARE(f.audit.rows.last().shortConversation(), QStringLiteral("conv-4f2"));
        QVERIFY(f.audit.rows.last().session.isEmpty());
        // ChatGPT declared the ui extension: the compact text (the card and structuredContent have the rest).
        const QString text = callResult(answers.first()).value("content").toArray().at(0).toObject().value("text").toString();
        QVERIFY2(text.contains("the full result is in structuredContent"), qPrintable(text));

        // The same client without the ui extension gets the full text: nothing undeclared is relied on.
        QByteArray bare = meta;
        bare.replace(R"({"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}})", "{}");
        const QList<McpAnswer> full = f.sendWith(message("2", "tools/call", R"("name":"run",)" + bare), context);
        const QString fullText = callResult(full.first()).value("content").toArray().at(0).toObject().value("text").toString();
        QVERIFY2(fullText.contains("--- output ---"), qPrintable(fullText));
        QCOMPARE(f.dispatcher->sessions().count(), 0);
    }

    void legacyCallsRecordTheConversationToo()
    {
        DispatcherFixture f;
        const QString session = f.initialize(QStringLiteral("openai-mcp"));
        f.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"openai/session":"v1/abc"}}})", session);
        QCOMPARE(f.audit.rows.last().conversation, QStringLiteral("v1/abc"));
        QCOMPARE(f.audit.rows.last().session, session.left(8));
        // Junk is not recorded.
        f.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"openai/session":"a b\nc"}}})", session);
        QVERIFY(f.audit.rows.last().conversation.isEmpty());
    }

    void closingTheRequestCancelsTheCall()
    {
        DispatcherFixture f;
        std::function<void()> cancel;
        McpMessageContext context = modernContext("tools/call", "slow");
        context.onCancellable = [&cancel](std::function<void()> c) { cancel = std::move(c); };
        const auto answers = f.sendAsyncWith(message("10", "tools/call", R"("name":"slow",)" + kMeta), context);
        QVERIFY(answers->isEmpty());
        QCOMPARE(f.heldCalls.size(), 1);
        QCOMPARE(f.calls->modernPendingCount(), 1);
        QVERIFY(cancel);
        cancel();
        QVERIFY(f.heldCalls.first().cancellation.isCancelled());
        QCOMPARE(f.calls->modernPendingCount(), 0);
        QCOMPARE(f.audit.rows.last().outcome, QStringLiteral("cancelled"));
        QCOMPARE(f.audit.rows.last().detail, QStringLiteral("the client closed the request"));
        cancel();   // twice: nothing more
        QCOMPARE(f.audit.rows.size(), 1);
    }

    void anAnsweredCallWatchesNoConnection()
    {
        DispatcherFixture f;
        int watches = 0;
        McpMessageContext context = modernContext("tools/call", "echo");
        context.onCancellable = [&watches](std::function<void()>) { ++watches; };
        const auto answers = f.sendAsyncWith(message("11", "tools/call", R"("name":"echo","arguments":{"text":"a"},)" + kMeta), context);
        QCOMPARE(answers->size(), 1);
        QCOMPARE(watches, 0);
        QCOMPARE(f.calls->modernPendingCount(), 0);
    }

    void sameIdInTwoConversationsRunsTwice()
    {
        DispatcherFixture f;
        McpMessageContext context = modernContext("tools/call", "slow");
        const auto first = f.sendAsyncWith(message("1", "tools/call", R"("name":"slow",)" + kMeta), context);
        const auto second = f.sendAsyncWith(message("1", "tools/call", R"("name":"slow",)" + kMeta), context);
        QCOMPARE(f.heldCalls.size(), 2);
        f.heldCalls.at(1).responder.ok({{"n", 2}});
        QCOMPARE(second->size(), 1);
        QVERIFY(first->isEmpty());
        f.heldCalls.at(0).responder.ok({{"n", 1}});
        QCOMPARE(callResult(first->first()).value("structuredContent").toObject().value("n").toInt(), 1);
        QCOMPARE(callResult(second->first()).value("structuredContent").toObject().value("n").toInt(), 2);
    }

    void callsInFlightAreCapped()
    {
        DispatcherFixture f;
        McpMessageContext context = modernContext("tools/call", "slow");
        for (int i = 0; i < ToolCallRunner::kMaxPendingModern; ++i)
            QVERIFY(f.sendAsyncWith(message(QByteArray::number(i), "tools/call", R"("name":"slow",)" + kMeta), context)->isEmpty());
        const QList<McpAnswer> over = f.sendWith(message("999", "tools/call", R"("name":"slow",)" + kMeta), context);
        QCOMPARE(over.size(), 1);
        QCOMPARE(callResult(over.first()).value("isError").toBool(), true);
        QVERIFY(f.calls->modernPendingCount() == ToolCallRunner::kMaxPendingModern);
        f.heldCalls.first().responder.ok({});
        QCOMPARE(f.calls->modernPendingCount(), ToolCallRunner::kMaxPendingModern - 1);
    }

    void toolListsServedToChatGptAreReported()
    {
        DispatcherFixture f;
        QSignalSpy served(f.dispatcher.get(), &McpDispatcher::toolListServedToChatGpt);
        McpMessageContext context = modernContext("tools/list");
        f.sendWith(message("1", "tools/list", kMeta), context);
        QCOMPARE(served.count(), 0);
        f.sendWith(message("2", "tools/list", kChatGptMeta), context);
        QCOMPARE(served.count(), 1);
        const QString session = f.initialize(QStringLiteral("openai-mcp"));
        f.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})", session);
        QCOMPARE(served.count(), 2);
    }

    void supportedVersionsAreModernFirst()
    {
        QCOMPARE(protocolversions::all().first(), QStringLiteral("2026-07-28"));
        QCOMPARE(protocolversions::all().size(), 5);
        QCOMPARE(McpDispatcher::negotiateProtocolVersion(QStringLiteral("2026-07-28")), QStringLiteral("2025-11-25"));
        QCOMPARE(McpDispatcher::negotiateProtocolVersion(QStringLiteral("2025-03-26")), QStringLiteral("2025-03-26"));
    }
};

QTEST_GUILESS_MAIN(TestMcpModern)
#include "tst_mcp_modern.moc"
