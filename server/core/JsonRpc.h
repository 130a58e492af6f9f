#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace chat2sbx::jsonrpc {

// JSON-RPC 2.0 codes (spec) plus the MCP request-cancelled code.
enum Code {
    ParseError = -32700,
    InvalidRequest = -32600,
    MethodNotFound = -32601,
    InvalidParams = -32602,
    InternalError = -32603,
    TransportError = -32000,     // SDK convention for HTTP-level refusals (bad session, 406, 415, ...)
    RequestCancelled = -32800,
    ResourceNotFound = -32002,   // MCP up to 2025-11-25: resources/read of an unknown uri (2026-07-28: InvalidParams)
    HeaderMismatch = -32020,     // MCP 2026-07-28: HTTP headers disagree with the body, or a required one is missing
    MissingRequiredClientCapability = -32021,   // MCP 2026-07-28
    UnsupportedProtocolVersion = -32022,        // MCP 2026-07-28: data {supported, requested}
};

QJsonObject result(const QJsonValue &id, const QJsonObject &result);
// `id` undefined/null is written as null (the id could not be read).
QJsonObject error(const QJsonValue &id, int code, const QString &message, const QJsonValue &data = {});
QByteArray serialize(const QJsonObject &message);
// A result message whose `result` is already serialized JSON (an object), e.g. the cached tools/list.
QByteArray serializeResult(const QJsonValue &id, const QByteArray &resultJson);

// The id of a request if `body` is a JSON object with a string or integer id; undefined otherwise.
// Used so that HTTP-level error bodies carry the id whenever it can be known.
QJsonValue peekId(const QByteArray &body);
bool isValidId(const QJsonValue &id);
// A stable map key for an id ("s:abc" / "n:5").
QString idKey(const QJsonValue &id);

} // namespace chat2sbx::jsonrpc
