#include "mcp/StandardHeaders.h"

#include "core/LogText.h"

namespace chat2sbx::standardheaders {

namespace {

const QByteArray kSentinelStart = QByteArrayLiteral("=?base64?");
const QByteArray kSentinelEnd = QByteArrayLiteral("?=");

bool isFieldByte(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u == '\t' || (u >= 0x20 && u <= 0x7e);
}

// The body value a method's Mcp-Name mirrors; empty optional when the method has none.
std::optional<QString> nameSourceField(const QString &method)
{
    if (method == QLatin1String("tools/call") || method == QLatin1String("prompts/get"))
        return QStringLiteral("name");
    if (method == QLatin1String("resources/read"))
        return QStringLiteral("uri");
    return std::nullopt;
}

QString quoted(const QString &s)
{
    return QLatin1Char('\'') + logSafe(s, 80) + QLatin1Char('\'');
}

} // namespace

std::optional<QString> decodeValue(const QByteArray &raw)
{
    for (const char c : raw)
        if (!isFieldByte(c))
            return std::nullopt;
    const QByteArray value = raw.trimmed();
    if (!value.startsWith(kSentinelStart) || !value.endsWith(kSentinelEnd)
        || value.size() < kSentinelStart.size() + kSentinelEnd.size())
        return QString::fromLatin1(value);
    const QByteArray encoded = value.mid(kSentinelStart.size(), value.size() - kSentinelStart.size() - kSentinelEnd.size());
    const auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    const QString text = QString::fromUtf8(*decoded);
    if (text.toUtf8() != *decoded)   // not valid UTF-8
        return std::nullopt;
    return text;
}

std::optional<QString> mismatch(const QString &method, const QJsonObject &params, const Values &headers)
{
    if (!headers.method) {
        if (method != QLatin1String("server/discover"))
            return QStringLiteral("Header mismatch: the Mcp-Method header is required (it must be %1)").arg(quoted(method));
    } else {
        const auto value = decodeValue(*headers.method);
        if (!value || headers.method->trimmed().startsWith(kSentinelStart))
            return QStringLiteral("Header mismatch: the Mcp-Method header has invalid characters");
        if (*value != method)
            return QStringLiteral("Header mismatch: Mcp-Method header value %1 does not match body value %2")
                .arg(quoted(*value), quoted(method));
    }

    const auto field = nameSourceField(method);
    const QJsonValue bodyValue = field ? params.value(*field) : QJsonValue();
    if (!bodyValue.isString()) {
        // Nothing in the body to mirror (the method has no name, or the body lacks it: the method
        // itself answers that); a stray Mcp-Name is ignored like any unknown header.
        return std::nullopt;
    }
    if (!headers.name)
        return QStringLiteral("Header mismatch: the Mcp-Name header is required for %1 (it must be %2)")
            .arg(method, quoted(bodyValue.toString()));
    const auto name = decodeValue(*headers.name);
    if (!name)
        return QStringLiteral("Header mismatch: the Mcp-Name header has invalid characters or a bad =?base64?...?= value");
    if (*name != bodyValue.toString())
        return QStringLiteral("Header mismatch: Mcp-Name header value %1 does not match body value %2")
            .arg(quoted(*name), quoted(bodyValue.toString()));
    return std::nullopt;
}

} // namespace chat2sbx::standardheaders
