// The 2026-07-28 era of /mcp over real HTTP against an in-process Controller: ChatGPT's probe
// without and with a version header (no session made or named), a modern tools/list and tools/call
// whose conversation reaches the audit log, a legacy session served beside modern requests, a slow
// modern call that delays no other, closing the request cancelling the call, and the tool list
// ChatGPT fetched surviving a restart (the status says when it changed).
#include "McpTestClient.h"
#include "TestSupport.h"

#include "ManualClock.h"
#include "mcp/McpDispatcher.h"
#include "mcp/McpEndpoint.h"
#include "mcp/ToolCallRunner.h"
#include "runtime/ChatGptToolList.h"
#include "runtime/Controller.h"
#include "runtime/StatusReportBuilder.h"
#include "runtime/StatusReport.h"
#include "state/AuditLogRepository.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

const QJsonObject kChatGptCapabilities{
    {"extensions", QJsonObject{{"io.modelcontextprotocol/ui", QJsonObject{{"mimeTypes", QJsonArray{"text/html;profile=mcp-app"}}}}}}};

struct SlowProbe {
    int started = 0;
    int cancelled = 0;
};

ToolDefinition def(const QString &name, const QJsonObject &properties)
{
    ToolDefinition d;
    d.name = name;
    d.title = name;
    d.description = QStringLiteral("test tool %1").arg(name);
    d.inputSchema = {{"type", "object"}, {"properties", properties}, {"additionalProperties", false}};
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    return d;
}

void registerTestTools(ToolRegistry &tools, SlowProbe &probe, QObject *context)
{
    tools.add(def("test_fast", {{"text", QJsonObject{{"type", "string"}}}}), [](const ToolCall &call) {
        call.responder.ok({{"echo", call.arguments.value("text")}, {"conversation", call.conversation}});
    });
    tools.add(def("test_slow", {{"ms", QJsonObject{{"type", "integer"}, {"minimum", 0}, {"maximum", 60000}}}}),
              [&probe, context](const ToolCall &call) {
                  ++probe.started;
                  auto *timer = new QTimer(context);
                  timer->setSingleShot(true);
                  ToolResponder responder = call.responder;
                  QObject::connect(timer, &QTimer::timeout, timer, [timer, responder] {
                      responder.ok({{"slept", true}});
                      timer->deleteLater();
                  });
                  call.cancellation.onCancel([timer, &probe] {
                      ++probe.cancelled;
                      timer->stop();
                      timer->deleteLater();
                  });
                  timer->start(call.arguments.value("ms").toInt());
              });
}

QByteArray probeBody()
{
    return R"({"jsonrpc":"2.0","id":"openai-mcp-discover","method":"server/discover","params":{"_meta":{)"
           R"("io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"openai-mcp","version":"1.0.0"},)"
           R"("io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}}})";
}

} // namespace

class TestMcpModernHttp : public QObject {
    Q_OBJECT

    ManualClock m_clock;   // declared first: the Controller reads it until it is destroyed
    std::unique_ptr<TestEnvironment> m_env;
    std::unique_ptr<Controller> m_controller;
    SlowProbe m_probe;
    QString m_url;

    void startController(bool extraTool)
    {
        m_controller = std::make_unique<Controller>(m_env->config(), m_clock);
        registerTestTools(m_controller->tools(), m_probe, this);
        if (extraTool)
            m_controller->tools().add(def("test_new", {}), [](const ToolCall &call) { call.responder.ok({}); });
        QSignalSpy started(m_controller.get(), &Controller::started);
        m_controller->start();
        QVERIFY(started.wait(scaled(10000)));
        m_url = m_env->mcpUrl();
    }
    void stopController()
    {
        QSignalSpy stopped(m_controller.get(), &Controller::stopped);
        m_controller->stop();
        QVERIFY(stopped.wait(scaled(10000)));
        m_controller.reset();
    }

private slots:
    void initTestCase()
    {
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        m_env = std::make_unique<TestEnvironment>();
        startController(false);
    }

    void cleanupTestCase()
    {
        if (m_controller)
            stopController();
    }

    void chatGptProbeIsAnsweredWithAndWithoutTheVersionHeader_data()
    {
        QTest::addColumn<bool>("versionHeader");
        QTest::newRow("without MCP-Protocol-Version") << false;
        QTest::newRow("with MCP-Protocol-Version") << true;
    }
    void chatGptProbeIsAnsweredWithAndWithoutTheVersionHeader()
    {
        QFETCH(bool, versionHeader);
        McpTestClient c(m_url);
        RawHeaders headers;
        if (versionHeader)
            headers.append({QByteArrayLiteral("MCP-Protocol-Version"), QByteArrayLiteral("2026-07-28")});
        const McpHttpReply r = c.send("POST", probeBody(), headers);
        QVERIFY2(r.status == 200, r.body.constData());
        QCOMPARE(r.header("Content-Type"), QByteArray("application/json"));
        QVERIFY(r.header("Mcp-Session-Id").isEmpty());
        QCOMPARE(r.json.value("id").toString(), QStringLiteral("openai-mcp-discover"));
        const QJsonObject result = r.result();
        QCOMPARE(result.value("supportedVersions").toArray().first().toString(), QStringLiteral("2026-07-28"));
        QVERIFY(result.value("supportedVersions").toArray().contains(QJsonValue("2025-11-25")));
        QVERIFY(result.value("capabilities").toObject().contains("tools"));
        QVERIFY(!result.value("instructions").toString().isEmpty());
        QCOMPARE(result.value("_meta").toObject().value("io.modelcontextprotocol/serverInfo").toObject().value("name").toString(),
                 QStringLiteral("chat2sbx"));
        QCOMPARE(m_controller->mcpDispatcher()->sessions().count(), 0);
    }

    void modernListAndCallRecordTheConversation()
    {
        McpTestClient c(m_url, QStringLiteral("openai-mcp"));
        c.useModernEra(kChatGptCapabilities, QStringLiteral("v1/conv-0d6f3a2b77"));
        const McpHttpReply list = c.request("tools/list");
        QVERIFY2(list.status == 200, list.body.constData());
        QVERIFY(list.header("Mcp-Session-Id").isEmpty());
        QStringList names;
        for (const QJsonValue &t : list.result().value("tools").toArray())
            names << t.toObject().value("name").toString();
        QVERIFY2(names.contains("test_fast") && names.contains("test_slow"), qPrintable(names.join(',')));
        QCOMPARE(list.result().value("ttlMs").toInt(), 300000);

        const McpHttpReply call = c.callTool("test_fast", {{"text", "hi"}});
        QVERIFY2(call.status == 200, call.body.constData());
        QCOMPARE(call.result().value("structuredContent").toObject().value("conversation").toString(), QStringLiteral("v1/conv-0d6f3a2b77"));
        QCOMPARE(call.result().value("resultType").toString(), QStringLiteral("complete"));
        AuditLogRepository audit(m_controller->database());
        const AuditEntry row = audit.recent(1).value(0);
        QCOMPARE(row.tool, QStringLiteral("test_fast"));
        QCOMPARE(row.client, QStringLiteral("openai-mcp"));
        QCOMPARE(row.conversation, QStringLiteral("v1/conv-0d6f3a2b77"));
        QVERIFY(row.session.isEmpty());
        QCOMPARE(m_controller->mcpDispatcher()->sessions().count(), 0);
    }

    void legacySessionsWorkBesideModernRequests()
    {
        McpTestClient legacy(m_url);
        QString error;
        QVERIFY2(legacy.open(&error), qPrintable(error));
        McpTestClient modern(m_url);
        modern.useModernEra();
        QCOMPARE(modern.callTool("test_fast", {{"text", "m"}}).status, 200);
        const McpHttpReply r = legacy.callTool("test_fast", {{"text", "l"}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.result().value("structuredContent").toObject().value("echo").toString(), QStringLiteral("l"));
        QVERIFY(!r.result().contains("resultType"));   // legacy results stay as they were
    }

    void aSlowModernCallDelaysNoOther()
    {
        McpTestClient c(m_url);
        c.useModernEra();
        const auto slow = c.callToolAsync("test_slow", {{"ms", 20000}});
        QVERIFY(waitFor([&] { return m_probe.started > 0; }, 10000));
        for (int i = 0; i < 10; ++i)
            QCOMPARE(c.callTool("test_fast", {{"text", QString::number(i)}}).status, 200);
        QVERIFY(!slow->done);
        c.abort(slow);
    }

    void closingTheRequestCancelsTheCall()
    {
        McpTestClient c(m_url);
        c.useModernEra();
        const int startedBefore = m_probe.started;
        const int cancelledBefore = m_probe.cancelled;
        const auto slow = c.callToolAsync("test_slow", {{"ms", 30000}});
        QVERIFY(waitFor([&] { return m_probe.started > startedBefore; }, 10000));
        c.abort(slow);
        QVERIFY2(waitFor([&] { return m_probe.cancelled > cancelledBefore; }, 10000),
                 "the tool's work did not stop when its HTTP request closed");
        QVERIFY(waitFor([&] { return m_controller->toolCalls()->modernPendingCount() == 0; }, 10000));
        AuditLogRepository audit(m_controller->database());
        QVERIFY(waitFor([&] { return audit.recent(1).value(0).outcome == QLatin1String("cancelled"); }, 10000));
    }

    void theToolListChatGptFetchedSurvivesARestart()
    {
        // ChatGPT fetches the list (a modern tools/list from openai-mcp): current.
        McpTestClient chatgpt(m_url, QStringLiteral("openai-mcp"));
        chatgpt.useModernEra(kChatGptCapabilities);
        QCOMPARE(chatgpt.request("tools/list").status, 200);
        QCOMPARE(statusFromServer(*m_controller).chatGptToolList, QStringLiteral("current"));
        QVERIFY(statusFromServer(*m_controller).notices().isEmpty());

        // Restarted with the same tools: still current. With one more tool: changed, with the step to take.
        stopController();
        startController(false);
        QCOMPARE(statusFromServer(*m_controller).chatGptToolList, QStringLiteral("current"));
        stopController();
        startController(true);
        const StatusReport changed = statusFromServer(*m_controller);
        QCOMPARE(changed.chatGptToolList, QStringLiteral("changed"));
        QCOMPARE(changed.notices().size(), 1);
        QVERIFY2(changed.notices().first().contains("Refresh"), qPrintable(changed.notices().first()));
        QVERIFY(changed.toText().contains("chatgpt:"));
        QCOMPARE(changed.toCliJson().value("chatgpt").toObject().value("tool_list").toString(), QStringLiteral("changed"));

        // Another client's tools/list changes nothing; ChatGPT's refresh makes it current again.
        McpTestClient other(m_url, QStringLiteral("claude-ai"));
        other.useModernEra();
        QCOMPARE(other.request("tools/list").status, 200);
        QCOMPARE(statusFromServer(*m_controller).chatGptToolList, QStringLiteral("changed"));
        McpTestClient refreshed(m_url, QStringLiteral("openai-mcp"));
        refreshed.useModernEra(kChatGptCapabilities);
        QCOMPARE(refreshed.request("tools/list").status, 200);
        QCOMPARE(statusFromServer(*m_controller).chatGptToolList, QStringLiteral("current"));
    }
};

QTEST_GUILESS_MAIN(TestMcpModernHttp)
#include "tst_mcp_modern_http.moc"
