// One POST body through the protocol (McpDispatcher): envelope checks, session lookup, initialize,
// ping, tools/list, logging/setLevel, tools/call with schema validation, notifications. Whatever
// the bytes, exactly one answer comes back at once (the one tool answers at once too), with a
// status the transport can send and, unless accepted, a JSON-RPC 2.0 object.
#include "mcp/AuditSink.h"
#include "mcp/McpDispatcher.h"
#include "mcp/ToolCallRunner.h"
#include "mcp/ToolRegistry.h"
#include "core/Clock.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace chat2sbx;

namespace {

class NullAuditSink : public AuditSink {
public:
    bool record(const AuditEntry &, QString &) override { return true; }
};

struct Protocol {
    ToolRegistry tools;
    NullAuditSink audit;
    ToolCallRunner calls{tools, audit, Clock::system()};
    McpDispatcher dispatcher{tools, calls, Clock::system(), 60};
    QString session;

    Protocol()
    {
        const QJsonObject schema{{"type", "object"},
                                 {"properties", QJsonObject{{"text", QJsonObject{{"type", "string"}, {"maxLength", 50}}},
                                                            {"n", QJsonObject{{"type", "integer"}, {"minimum", 0}}}}},
                                 {"required", QJsonArray{"text"}},
                                 {"additionalProperties", false}};
        tools.add(ToolDefinition{"echo", "Echo", "Echo", schema, {}, {}},
                  [](const ToolCall &call) { call.responder.ok({{"text", call.arguments.value("text")}}); });
        dispatcher.dispatchBody(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})",
                                {}, [this](const McpAnswer &a) { session = a.createdSessionId; });
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int argc = 1;
    static char name[] = "fuzz_mcp_dispatcher";
    static char *argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);
    static Protocol protocol;
    if (protocol.session.isEmpty())
        std::abort();

    // The first byte picks the context (with or without the session and a version header) and,
    // so that the fuzzer reaches past the envelope sooner, may wrap the rest in a request.
    const uint8_t mode = size ? data[0] : 0;
    QByteArray body(reinterpret_cast<const char *>(data) + (size ? 1 : 0), static_cast<qsizetype>(size ? size - 1 : 0));
    // Bit 16: a modern (2026-07-28, sessionless) request with its headers and _meta.
    if ((mode & 4) && (mode & 16))
        body = R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"arguments":)" + body + "}}";
    else if (mode & 4)
        body = R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":)" + body + "}}";
    else if (mode & 8)
        body = R"({"jsonrpc":"2.0","id":"x","method":)" + body + "}";
    McpMessageContext context;
    if (mode & 1)
        context.sessionId = protocol.session;
    if (mode & 2)
        context.protocolVersion = QStringLiteral("2025-06-18");
    if (mode & 16) {
        context.protocolVersion = QStringLiteral("2026-07-28");
        context.method = QByteArrayLiteral("tools/call");
        context.name = (mode & 32) ? QByteArrayLiteral("=?base64?ZWNobw==?=") : QByteArrayLiteral(" echo ");
    }
    int answers = 0;
    protocol.dispatcher.dispatchBody(body, context, [&answers](const McpAnswer &a) {
        ++answers;
        if (a.status != 200 && a.status != 202 && a.status != 400 && a.status != 404)
            std::abort();
        if (a.isAccepted() != (a.status == 202))
            std::abort();
        if (!a.isAccepted()) {
            const QJsonDocument doc = QJsonDocument::fromJson(a.json);
            if (!doc.isObject() || doc.object().value("jsonrpc") != QLatin1String("2.0"))
                std::abort();
        }
    });
    if (answers != 1)
        std::abort();
    // Sessions made by fuzzed initialize requests must not pile up past the cap.
    if (protocol.dispatcher.sessions().count() > McpSessions::kMaxSessions)
        std::abort();
    return 0;
}
