#include "tools/ToolArgs.h"

#include <QJsonArray>

#include <cmath>

namespace chat2sbx {

bool ToolArgs::fail(const QString &message)
{
    m_error = message;
    return false;
}

bool ToolArgs::string(const QString &name, QString &out, int maxBytes, Presence presence)
{
    const QJsonValue v = m_args.value(name);
    if (v.isUndefined() || v.isNull()) {
        if (presence != Presence::Optional)
            return fail(QStringLiteral("%1 is required").arg(name));
        out.clear();
        return true;
    }
    if (!v.isString())
        return fail(QStringLiteral("%1 must be a string").arg(name));
    out = v.toString();
    if (presence == Presence::Required && out.isEmpty())
        return fail(QStringLiteral("%1 must not be empty").arg(name));
    if (out.toUtf8().size() > maxBytes)
        return fail(QStringLiteral("%1 is too long (at most %2 bytes)").arg(name).arg(maxBytes));
    if (out.contains(QChar(0)))
        return fail(QStringLiteral("%1 must not contain NUL characters").arg(name));
    return true;
}

bool ToolArgs::integer(const QString &name, qint64 &out, std::optional<qint64> fallback)
{
    const QJsonValue v = m_args.value(name);
    if (v.isUndefined() || v.isNull()) {
        if (!fallback)
            return fail(QStringLiteral("%1 is required").arg(name));
        out = *fallback;
        return true;
    }
    // Exactly representable integers only, so the conversion below is always defined.
    constexpr double kLargest = 9007199254740992.0;   // 2^53
    const double d = v.toDouble(std::nan(""));
    if (!v.isDouble() || std::isnan(d) || std::floor(d) != d || d > kLargest || d < -kLargest)
        return fail(QStringLiteral("%1 must be an integer").arg(name));
    out = static_cast<qint64>(d);
    return true;
}

bool ToolArgs::boolean(const QString &name, bool &out, bool fallback)
{
    const QJsonValue v = m_args.value(name);
    if (v.isUndefined() || v.isNull()) {
        out = fallback;
        return true;
    }
    if (!v.isBool())
        return fail(QStringLiteral("%1 must be true or false").arg(name));
    out = v.toBool();
    return true;
}

bool ToolArgs::sandboxId(QString &out)
{
    return string(QStringLiteral("sandbox_id"), out, 64);
}

namespace schema {

QJsonObject str(const QString &description, int maxLength)
{
    QJsonObject o{{QStringLiteral("type"), QStringLiteral("string")}, {QStringLiteral("description"), description}};
    if (maxLength > 0)
        o.insert(QStringLiteral("maxLength"), maxLength);
    return o;
}

QJsonObject integer(const QString &description, qint64 min, qint64 max)
{
    return {{QStringLiteral("type"), QStringLiteral("integer")},
            {QStringLiteral("description"), description},
            {QStringLiteral("minimum"), static_cast<double>(min)},
            {QStringLiteral("maximum"), static_cast<double>(max)}};
}

QJsonObject boolean(const QString &description)
{
    return {{QStringLiteral("type"), QStringLiteral("boolean")}, {QStringLiteral("description"), description}};
}

QJsonObject oneOf(const QStringList &values, const QString &description)
{
    return {{QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("enum"), QJsonArray::fromStringList(values)},
            {QStringLiteral("description"), description}};
}

QJsonObject typed(const QString &type, const QString &description)
{
    QJsonObject o{{QStringLiteral("type"), type}};
    if (!description.isEmpty())
        o.insert(QStringLiteral("description"), description);
    return o;
}

QJsonObject nullable(QJsonObject property)
{
    const QJsonValue type = property.value(QStringLiteral("type"));
    QJsonArray types = type.isArray() ? type.toArray() : QJsonArray{type};
    if (!types.contains(QStringLiteral("null")))
        types.append(QStringLiteral("null"));
    property.insert(QStringLiteral("type"), types);
    return property;
}

QJsonObject arrayOf(const QJsonObject &items, const QString &description)
{
    QJsonObject o{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), items}};
    if (!description.isEmpty())
        o.insert(QStringLiteral("description"), description);
    return o;
}

QJsonObject object(const QJsonObject &properties, const QStringList &required)
{
    QJsonObject o{{QStringLiteral("type"), QStringLiteral("object")},
                  {QStringLiteral("properties"), properties},
                  {QStringLiteral("additionalProperties"), false}};
    if (!required.isEmpty())
        o.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
    return o;
}

QJsonObject result(const QJsonObject &properties)
{
    return {{QStringLiteral("type"), QStringLiteral("object")}, {QStringLiteral("properties"), properties}};
}

QJsonObject id(const QString &prefix, const QString &description)
{
    QJsonObject o = str(description, static_cast<int>(prefix.size()) + 24);
    o.insert(QStringLiteral("pattern"), QStringLiteral("^%1[0-9a-f]{24}$").arg(prefix));
    return o;
}

QJsonObject sandboxIdProperty()
{
    return id(QStringLiteral("sbx_"), QStringLiteral("The sandbox to run in (sbx_...), as returned by sandbox_create."));
}

} // namespace schema
} // namespace chat2sbx
