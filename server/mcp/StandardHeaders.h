#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace chat2sbx {

// The request headers of the 2026-07-28 Streamable HTTP binding that mirror the body (SEP-2243,
// basic/transports/streamable-http.mdx "Standard Request Headers"): Mcp-Method on every request,
// Mcp-Name on tools/call (params.name), resources/read (params.uri) and prompts/get (params.name).
// Names are matched case-insensitively by the HTTP layer; values are case-sensitive and compared
// after trimming optional whitespace; Mcp-Name may use the sentinel form =?base64?...?=.
namespace standardheaders {

struct Values {
    std::optional<QByteArray> method;   // Mcp-Method as received
    std::optional<QByteArray> name;     // Mcp-Name as received
};

// Empty when the headers agree with the body; otherwise why not (a HeaderMismatch, -32020).
// server/discover may come without Mcp-Method (ChatGPT's opening probe is answered whatever it
// sends), but a present one must match.
std::optional<QString> mismatch(const QString &method, const QJsonObject &params, const Values &headers);

// A header value trimmed of spaces and tabs and, in the sentinel form, Base64-decoded as UTF-8.
// Empty optional for a value with a byte outside visible ASCII, space and tab, or a bad sentinel.
std::optional<QString> decodeValue(const QByteArray &raw);

} // namespace standardheaders
} // namespace chat2sbx
