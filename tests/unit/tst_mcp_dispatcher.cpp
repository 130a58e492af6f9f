// McpDispatcher without sockets: one row per message (request JSON -> HTTP status and the answer it
// must contain), then the asynchronous parts of tools/call (cancellation, session end, a dropped
// responder, the per-session cap, busy sessions and the audit rows), the tool card's resource and
// _meta, and the result text each kind of client gets (docs/TOOL_CARDS.md).
#include "TestSupport.h"
#include "core/JsonRpc.h"
#include "DispatcherFixture.h"
#include "mcp/McpDispatcher.h"
#include "mcp/ToolCallRunner.h"
#include "mcp/ToolCard.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <memory>

using namespace chat2sbx;

using namespace chat2sbx::test;
using Fixture = DispatcherFixture;

class TestMcpDispatcher : public QObject {
    Q_OBJECT

private slots:
    void message_data()
    {
        QTest::addColumn<int>("session");
        QTest::addColumn<QString>("protocolVersion");   // null: no header
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("expected");       // contained in the answer; empty: accepted, no body

        const int none = int(SessionHeader::None), open = int(SessionHeader::Initialized), unknown = int(SessionHeader::Unknown);
        const QString noHeader;

        // Not one JSON-RPC message.
        QTest::newRow("parse error") << open << noHeader << QByteArray(R"({"jsonrpc":)") << 400
                                     << QByteArray(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700}})");
        QTest::newRow("scalar body") << open << noHeader << QByteArray("42") << 400
                                     << QByteArray(R"({"id":null,"error":{"code":-32600,"message":"Invalid Request: the body must be one JSON-RPC message object"}})");
        QTest::newRow("batch") << open << noHeader << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])") << 400
                               << QByteArray(R"({"id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported; send one message per POST"}})");
        QTest::newRow("empty batch") << open << noHeader << QByteArray("[]") << 400
                                     << QByteArray(R"({"id":null,"error":{"code":-32600}})");
        QTest::newRow("jsonrpc 1.0") << open << noHeader << QByteArray(R"({"jsonrpc":"1.0","id":3,"method":"ping"})") << 400
                                     << QByteArray(R"({"id":3,"error":{"code":-32600,"message":"Invalid Request: \u0022jsonrpc\u0022 must be \u00222.0\u0022"}})");
        QTest::newRow("method not a string") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":5})") << 400
                                             << QByteArray(R"({"id":4,"error":{"code":-32600}})");
        QTest::newRow("fractional id") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})") << 400
                                       << QByteArray(R"({"id":null,"error":{"code":-32600,"message":"Invalid Request: \u0022id\u0022 must be a string or an integer"}})");
        QTest::newRow("object id") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":{},"method":"ping"})") << 400
                                   << QByteArray(R"({"id":null,"error":{"code":-32600}})");
        QTest::newRow("neither request nor response") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":6})") << 400
                                                      << QByteArray(R"({"id":6,"error":{"code":-32600}})");
        QTest::newRow("response with null id") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":null,"result":{}})") << 400
                                               << QByteArray(R"({"id":null,"error":{"code":-32600}})");
        QTest::newRow("request params array") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":7,"method":"ping","params":[]})") << 200
                                              << QByteArray(R"({"id":7,"error":{"code":-32602,"message":"Invalid params: \u0022params\u0022 must be an object"}})");
        QTest::newRow("notification params array") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized","params":[1]})") << 400
                                                   << QByteArray(R"({"id":null,"error":{"code":-32602}})");

        // Transport headers as the dispatcher sees them.
        // An unknown version is answered as the modern revision does (tst_mcp_modern has the rest).
        QTest::newRow("unsupported protocol header") << open << QStringLiteral("1999-01-01") << QByteArray(R"({"jsonrpc":"2.0","id":8,"method":"ping"})") << 400
                                                     << QByteArray(R"({"id":8,"error":{"code":-32022,"data":{"requested":"1999-01-01"}}})");
        QTest::newRow("supported protocol header") << open << QStringLiteral("2025-03-26") << QByteArray(R"({"jsonrpc":"2.0","id":8,"method":"ping"})") << 200
                                                   << QByteArray(R"({"jsonrpc":"2.0","id":8,"result":{}})");
        QTest::newRow("unknown session") << unknown << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":9,"method":"ping"})") << 404
                                         << QByteArray(R"({"id":9,"error":{"code":-32000,"message":"Session not found"}})");
        QTest::newRow("no session") << none << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":9,"method":"ping"})") << 400
                                    << QByteArray(R"j({"id":9,"error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required (send initialize first, or use protocol version 2026-07-28 with its params._meta)"}})j");
        QTest::newRow("notification without session") << none << noHeader << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})") << 400
                                                      << QByteArray(R"({"id":null,"error":{"code":-32000}})");

        // initialize.
        QTest::newRow("initialize") << none << noHeader
                                    << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})")
                                    << 200 << QByteArray(R"({"id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false},"logging":{},"resources":{"listChanged":false,"subscribe":false},"prompts":{"listChanged":false},"extensions":{"io.modelcontextprotocol/ui":{}}},"serverInfo":{"name":"chat2sbx"}}})");
        QTest::newRow("initialize future version") << none << noHeader
                                                   << QByteArray(R"({"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2099-01-01"}})")
                                                   << 200 << QByteArray(R"({"id":"i","result":{"protocolVersion":"2025-11-25"}})");
        QTest::newRow("initialize without version") << none << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}})") << 200
                                                    << QByteArray(R"({"id":2,"error":{"code":-32602,"message":"Invalid params: \u0022protocolVersion\u0022 must be a string"}})");
        QTest::newRow("initialize twice") << open << noHeader
                                          << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})")
                                          << 400 << QByteArray(R"({"id":3,"error":{"code":-32600,"message":"Invalid Request: Server already initialized"}})");

        // Requests of an initialized session.
        QTest::newRow("ping") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") << 200
                              << QByteArray(R"({"jsonrpc":"2.0","id":1,"result":{}})");
        QTest::newRow("ping string id") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":"a-1","method":"ping","params":{}})") << 200
                                        << QByteArray(R"({"id":"a-1","result":{}})");
        QTest::newRow("tools/list") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})") << 200
                                    << QByteArray(R"({"id":2,"result":{"tools":[{"name":"echo"},{"name":"slow"},{"name":"drop"},{"name":"run","_meta":{"openai/toolInvocation/invoking":"Running…","openai/toolInvocation/invoked":"Ran","openai/outputTemplate":")" "ui://widget/chat2sbx-tool-card.html" R"(","ui":{"resourceUri":")" "ui://widget/chat2sbx-tool-card.html" R"("}}}]}})");
        QTest::newRow("tools/list cursor") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}})") << 200
                                           << QByteArray(R"({"id":2,"error":{"code":-32602,"message":"Invalid params: unknown cursor"}})");
        QTest::newRow("setLevel") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}})") << 200
                                  << QByteArray(R"({"id":3,"result":{}})");
        QTest::newRow("setLevel unknown") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"loud"}})") << 200
                                          << QByteArray(R"({"id":3,"error":{"code":-32602}})");
        QTest::newRow("unknown method") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"completion/complete"})") << 200
                                        << QByteArray(R"({"id":4,"error":{"code":-32601,"message":"Method not found: completion/complete"}})");
        QTest::newRow("prompts/list") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"prompts/list"})") << 200
                                      << QByteArray(R"({"id":4,"result":{"prompts":[{"name":"work_on_folder"}]}})");
        QTest::newRow("prompts/get") << open << noHeader
                                     << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"work_on_folder","arguments":{"path":"~/src/app"}}})") << 200
                                     << QByteArray(R"({"id":4,"result":{"messages":[{"role":"user"}]}})");
        QTest::newRow("prompts/get without path") << open << noHeader
                                                  << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"work_on_folder"}})") << 200
                                                  << QByteArray(R"({"id":4,"error":{"code":-32602}})");
        QTest::newRow("prompts/get unknown") << open << noHeader
                                             << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"nope"}})") << 200
                                             << QByteArray(R"({"id":4,"error":{"code":-32602}})");

        // Resources: the tool card.
        QTest::newRow("resources/list") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"resources/list"})") << 200
                                        << QByteArray(R"({"id":4,"result":{"resources":[{"uri":")" "ui://widget/chat2sbx-tool-card.html" R"(","mimeType":"text/html;profile=mcp-app","name":"chat2sbx-tool-card","_meta":{"ui":{"csp":{"connectDomains":[],"resourceDomains":[]}},"openai/widgetCSP":{"connect_domains":[],"resource_domains":[]}}}]}})");
        QTest::newRow("resources/list cursor") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"resources/list","params":{"cursor":"2"}})") << 200
                                               << QByteArray(R"({"id":4,"error":{"code":-32602,"message":"Invalid params: unknown cursor"}})");
        QTest::newRow("resources/templates/list") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"resources/templates/list"})") << 200
                                                  << QByteArray(R"({"id":4,"result":{"resourceTemplates":[]}})");
        QTest::newRow("resources/read card") << open << noHeader
                                             << QByteArray(R"({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":")" "ui://widget/chat2sbx-tool-card.html" R"("}})") << 200
                                             << QByteArray(R"({"id":5,"result":{"contents":[{"uri":")" "ui://widget/chat2sbx-tool-card.html" R"(","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":[],"resourceDomains":[]}},"openai/widgetCSP":{"connect_domains":[],"resource_domains":[]}}}]}})");
        QTest::newRow("resources/read unknown") << open << noHeader
                                                << QByteArray(R"({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":")" "ui://widget/other.html" R"("}})") << 200
                                                << QByteArray(R"({"id":5,"error":{"code":-32002,"message":"Resource not found","data":{"uri":")" "ui://widget/other.html" R"("}}})");
        QTest::newRow("resources/read without uri") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{}})") << 200
                                                    << QByteArray(R"({"id":5,"error":{"code":-32602,"message":"Invalid params: \u0022uri\u0022 must be a string"}})");
        QTest::newRow("resources/read before initialize") << none << noHeader
                                                          << QByteArray(R"({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":")" "ui://widget/chat2sbx-tool-card.html" R"("}})") << 400
                                                          << QByteArray(R"({"id":5,"error":{"code":-32000}})");

        // Notifications and client responses: accepted, nothing to answer.
        QTest::newRow("initialized") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})") << 202 << QByteArray();
        QTest::newRow("cancel unknown request") << open << noHeader
                                                << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}})") << 202 << QByteArray();
        QTest::newRow("other notification") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})") << 202 << QByteArray();
        QTest::newRow("client response") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":5,"result":{}})") << 202 << QByteArray();

        // tools/call answered at once.
        QTest::newRow("call") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}})") << 200
                              << QByteArray(R"({"id":6,"result":{"isError":false,"structuredContent":{"text":"hi"},"content":[{"type":"text","text":"{\u0022text\u0022:\u0022hi\u0022}"}]}})");
        QTest::newRow("call without name") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}})") << 200
                                           << QByteArray(R"({"id":6,"error":{"code":-32602,"message":"Invalid params: \u0022name\u0022 must be a string"}})");
        QTest::newRow("call arguments array") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":[]}})") << 200
                                              << QByteArray(R"({"id":6,"error":{"code":-32602,"message":"Invalid params: \u0022arguments\u0022 must be an object"}})");
        QTest::newRow("call unknown tool") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}})") << 200
                                           << QByteArray(R"({"id":6,"error":{"code":-32602,"message":"Unknown tool: nope"}})");
        QTest::newRow("call schema violation") << open << noHeader << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}})") << 200
                                               << QByteArray(R"({"id":6,"result":{"isError":true}})");
    }

    void message()
    {
        QFETCH(int, session);
        QFETCH(QString, protocolVersion);
        QFETCH(QByteArray, request);
        QFETCH(int, status);
        QFETCH(QByteArray, expected);

        Fixture f;
        QString sessionId;
        if (SessionHeader(session) == SessionHeader::Initialized)
            QVERIFY(!(sessionId = f.initialize()).isEmpty());
        else if (SessionHeader(session) == SessionHeader::Unknown)
            sessionId = QStringLiteral("0123456789abcdef0123456789abcdef");
        const auto version = protocolVersion.isNull() ? std::nullopt : std::optional<QString>(protocolVersion);

        const QList<McpAnswer> answers = f.send(request, sessionId, version);
        QCOMPARE(answers.size(), 1);   // exactly one answer, given at once
        const McpAnswer &answer = answers.first();
        QCOMPARE(answer.status, status);
        if (expected.isEmpty()) {
            QVERIFY2(answer.isAccepted(), answer.json.constData());
            return;
        }
        QJsonParseError error;
        const QJsonDocument actual = QJsonDocument::fromJson(answer.json, &error);
        QVERIFY2(error.error == QJsonParseError::NoError && actual.isObject(), answer.json.constData());
        QCOMPARE(actual.object().value("jsonrpc"), QJsonValue("2.0"));
        QString where;
        QVERIFY2(contains(actual.object(), object(expected), where),
                 qPrintable(QStringLiteral("at %1 in %2").arg(where, QString::fromUtf8(answer.json))));
        // Only a successful initialize creates a session.
        const bool created = !answer.createdSessionId.isEmpty();
        QCOMPARE(created, request.contains("\"initialize\"") && actual.object().contains("result"));
        if (created)
            QVERIFY(f.dispatcher->sessions().find(answer.createdSessionId));
    }

    void cardPageIsTheCompiledResource()
    {
        const QString html = toolcard::html();
        QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY(html.contains(QStringLiteral("ui/notifications/tool-result")));
        // Self-contained: no external script, style or image.
        for (const char *external : {"src=\"http", "href=\"http", "@import", "fetch("})
            QVERIFY2(!html.contains(QLatin1String(external)), external);
    }

    // ChatGPT (clientInfo "openai-mcp") reads structuredContent, maybe content too: its text is a compact
    // summary. Everyone else may read only content: the payload follows the JSON raw, once.
    void resultTextFollowsTheClient_data()
    {
        QTest::addColumn<QString>("client");
        QTest::addColumn<bool>("cards");
        QTest::addColumn<QString>("text");
        const QString head = QStringLiteral(R"({"exit_code":0,"files":["a","b"],"session_id":"bash_1","status":"exited"})");
        const QString full = head + QStringLiteral("\n--- output ---\n") + runOutput();
        const QString compact = QStringLiteral(R"({"exit_code":0,"session_id":"bash_1","status":"exited"})")
                                + QStringLiteral("\n(files: 2 items; output: %1 characters; the full result is in structuredContent)").arg(runOutput().size());
        QTest::newRow("content-only client") << QStringLiteral("claude-ai") << true << full;
        QTest::newRow("chatgpt") << QStringLiteral("openai-mcp") << true << compact;
        QTest::newRow("chatgpt, cards off") << QStringLiteral("openai-mcp") << false << compact;
        QTest::newRow("unnamed client, cards off") << QString() << false << full;
    }
    void resultTextFollowsTheClient()
    {
        QFETCH(QString, client);
        QFETCH(bool, cards);
        QFETCH(QString, text);
        Fixture f;
        f.tools.setToolCardsEnabled(cards);
        const QString session = f.initialize(client);
        const QList<McpAnswer> answers = f.send(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run"}})", session);
        QCOMPARE(answers.size(), 1);
        const QJsonObject result = callResult(answers.first());
        QCOMPARE(result.value("isError").toBool(true), false);
        QCOMPARE(result.value("structuredContent").toObject(), runResult());   // the same for every client
        const QJsonArray content = result.value("content").toArray();
        QCOMPARE(content.size(), 1);
        QCOMPARE(content.at(0).toObject().value("text").toString(), text);
        const QJsonObject cardMeta{{"chat2sbx/tool", "run"}, {"chat2sbx/view", "terminal"}};
        QCOMPARE(result.value("_meta").toObject(), cards ? cardMeta : QJsonObject());

        const QJsonObject run = QJsonDocument::fromJson(f.send(R"({"jsonrpc":"2.0","id":8,"method":"tools/list"})", session).first().json)
                                    .object().value("result").toObject().value("tools").toArray().at(3).toObject();
        const QJsonObject meta = run.value("_meta").toObject();
        QCOMPARE(meta.value("openai/toolInvocation/invoking").toString(), QStringLiteral("Running…"));
        QCOMPARE(meta.value("openai/toolInvocation/invoked").toString(), QStringLiteral("Ran"));
        QCOMPARE(meta.contains("openai/outputTemplate"), cards);
        QCOMPARE(meta.value("ui").toObject().value("resourceUri").toString(), cards ? toolcard::uri() : QString());
    }

    void cancelledCallIsAnsweredAndItsTokenCancelled()
    {
        Fixture f;
        const QString session = f.initialize();
        const auto answers = f.sendAsync(callSlow(10), session);
        QVERIFY(answers->isEmpty());
        QCOMPARE(f.heldCalls.size(), 1);
        QCOMPARE(f.calls->pendingCount(session), 1);
        bool tokenFired = false;
        f.heldCalls.first().cancellation.onCancel([&tokenFired] { tokenFired = true; });

        const QList<McpAnswer> ack = f.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"user stop"}})", session);
        QCOMPARE(ack.size(), 1);
        QVERIFY(ack.first().isAccepted());
        QCOMPARE(answers->size(), 1);
        QCOMPARE(answers->first().status, 200);
        const QJsonObject cancelled = object(answers->first().json);
        QCOMPARE(cancelled.value("id"), QJsonValue(10));
        QCOMPARE(cancelled.value("error").toObject().value("code").toInt(), int(jsonrpc::RequestCancelled));
        QVERIFY(tokenFired);
        QVERIFY(f.heldCalls.first().cancellation.isCancelled());
        QCOMPARE(f.calls->pendingCount(session), 0);
        QCOMPARE(f.audit.rows.last().outcome, QStringLiteral("cancelled"));
        QCOMPARE(f.audit.rows.last().detail, QStringLiteral("user stop"));

        // The handler answering after all goes nowhere.
        f.heldCalls.first().responder.ok({});
        QCOMPARE(answers->size(), 1);
    }

    void idInUseWhilePending()
    {
        Fixture f;
        const QString session = f.initialize();
        const auto first = f.sendAsync(callSlow(11), session);
        const QList<McpAnswer> second = f.send(callSlow(11), session);
        QCOMPARE(second.size(), 1);
        QCOMPARE(object(second.first().json).value("error").toObject().value("code").toInt(), int(jsonrpc::InvalidRequest));
        // The same id in another session is another request.
        const QString other = f.initialize();
        QVERIFY(f.sendAsync(callSlow(11), other)->isEmpty());
        QCOMPARE(f.calls->pendingCount(session), 1);
        QCOMPARE(f.calls->pendingCount(other), 1);
        f.heldCalls.first().responder.ok(QJsonObject{{QStringLiteral("done"), true}});
        QCOMPARE(first->size(), 1);
        QCOMPARE(object(first->first().json).value("result").toObject().value("structuredContent").toObject().value("done"), QJsonValue(true));
    }

    void endingASessionCancelsItsCalls()
    {
        Fixture f;
        const QString session = f.initialize();
        const auto a = f.sendAsync(callSlow(1), session);
        const auto b = f.sendAsync(callSlow(2), session);
        QCOMPARE(f.calls->pendingCount(session), 2);
        QCOMPARE(f.dispatcher->endSession(session), McpDispatcher::EndResult::Ended);
        QCOMPARE(a->size(), 1);
        QCOMPARE(b->size(), 1);
        QCOMPARE(object(b->first().json).value("error").toObject().value("code").toInt(), int(jsonrpc::RequestCancelled));
        QVERIFY(f.heldCalls.at(0).cancellation.isCancelled());
        QVERIFY(f.heldCalls.at(1).cancellation.isCancelled());
        QCOMPARE(f.calls->pendingCount(session), 0);
        QCOMPARE(f.dispatcher->endSession(session), McpDispatcher::EndResult::NotFound);
        QCOMPARE(f.send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", session).first().status, 404);
    }

    void busySessionOutlivesItsIdleTimeAndIsTouchedWhenTheCallEnds()
    {
        Fixture f;
        const QString session = f.initialize();
        const auto answers = f.sendAsync(callSlow(1), session);
        f.clock.advance(600000);
        QCOMPARE(f.dispatcher->sessions().sweep(), QStringList());
        f.heldCalls.first().responder.ok({});
        QCOMPARE(answers->size(), 1);
        QCOMPARE(f.calls->pendingCount(session), 0);
        f.clock.advance(59000);   // the idle time counts from the end of the call
        QCOMPARE(f.send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", session).first().status, 200);
        f.clock.advance(61000);
        QCOMPARE(f.send(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", session).first().status, 404);
    }

    void droppedResponderGetsAnInternalError()
    {
        Fixture f;
        const QString session = f.initialize();
        const auto answers = f.sendAsync(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"drop"}})", session);
        QTRY_COMPARE_WITH_TIMEOUT(answers->size(), 1, chat2sbx::test::scaled(5000));
        QCOMPARE(object(answers->first().json).value("error").toObject().value("code").toInt(), int(jsonrpc::InternalError));
        QCOMPARE(f.calls->pendingCount(session), 0);
    }

    void pendingCallsPerSessionAreCapped()
    {
        Fixture f;
        const QString session = f.initialize();
        for (int i = 0; i < ToolCallRunner::kMaxPendingPerSession; ++i)
            QVERIFY(f.sendAsync(callSlow(i), session)->isEmpty());
        const QList<McpAnswer> refused = f.send(callSlow(1000), session);
        QCOMPARE(refused.size(), 1);
        const QJsonObject result = object(refused.first().json).value("result").toObject();
        QVERIFY(result.value("isError").toBool());
        QVERIFY(result.value("content").toArray().first().toObject().value("text").toString().contains("too many tool calls"));
        QCOMPARE(f.calls->pendingCount(session), ToolCallRunner::kMaxPendingPerSession);
        // Another session is not affected.
        QVERIFY(f.sendAsync(callSlow(1000), f.initialize())->isEmpty());
    }

    void everyCallWritesOneAuditRowThroughTheSink()
    {
        Fixture f;
        const QString session = f.initialize(QStringLiteral("audited-client"));
        QCOMPARE(f.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}})", session).size(), 1);
        QCOMPARE(f.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}})", session).size(), 1);
        QCOMPARE(f.send(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", session).size(), 1);
        QCOMPARE(f.audit.rows.size(), 2);
        QCOMPARE(f.audit.rows.at(0).tool, QStringLiteral("echo"));
        QCOMPARE(f.audit.rows.at(0).outcome, QStringLiteral("ok"));
        QCOMPARE(f.audit.rows.at(0).client, QStringLiteral("audited-client"));
        QVERIFY(session.startsWith(f.audit.rows.at(0).session));
        QCOMPARE(f.audit.rows.at(1).outcome, QStringLiteral("invalid"));
    }
};

QTEST_GUILESS_MAIN(TestMcpDispatcher)
#include "tst_mcp_dispatcher.moc"
