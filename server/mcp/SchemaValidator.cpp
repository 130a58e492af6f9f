#include "mcp/SchemaValidator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <cmath>

namespace chat2sbx {
namespace {

bool isInteger(const QJsonValue &v)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return std::isfinite(d) && d == std::floor(d);
}

bool hasType(const QJsonValue &v, const QString &type)
{
    if (type == QLatin1String("object")) return v.isObject();
    if (type == QLatin1String("array")) return v.isArray();
    if (type == QLatin1String("string")) return v.isString();
    if (type == QLatin1String("boolean")) return v.isBool();
    if (type == QLatin1String("number")) return v.isDouble();
    if (type == QLatin1String("integer")) return isInteger(v);
    if (type == QLatin1String("null")) return v.isNull();
    return true;   // unknown type names do not reject
}

QString typeName(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Bool: return QStringLiteral("a boolean");
    case QJsonValue::Double: return isInteger(v) ? QStringLiteral("an integer") : QStringLiteral("a number");
    case QJsonValue::Null: return QStringLiteral("null");
    default: return QStringLiteral("missing");
    }
}

QString shortJson(const QJsonValue &v)
{
    QString text = v.isString() ? QLatin1Char('"') + v.toString() + QLatin1Char('"')
                                : QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
    if (text.size() > 40)
        text = text.left(37) + QStringLiteral("...");
    return text;
}

QString number(double d)
{
    return QString::number(d, 'g', 15);
}

// JSON Schema counts characters as code points.
qsizetype codePoints(const QString &s)
{
    qsizetype n = 0;
    for (qsizetype i = 0; i < s.size(); ++i)
        if (!s.at(i).isLowSurrogate())
            ++n;
    return n;
}

QString fail(const QString &path, const QString &rule)
{
    return path.isEmpty() ? QStringLiteral("invalid arguments: %1").arg(rule)
                          : QStringLiteral("invalid argument \"%1\": %2").arg(path, rule);
}

QString join(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}

} // namespace

QString SchemaValidator::validate(const QJsonObject &schema, const QJsonValue &value)
{
    return check(schema, value, QString());
}

QString SchemaValidator::check(const QJsonObject &schema, const QJsonValue &value, const QString &path)
{
    const QJsonValue type = schema.value(QStringLiteral("type"));
    if (type.isString() || type.isArray()) {
        QStringList types;
        if (type.isString())
            types << type.toString();
        for (const QJsonValue &t : type.toArray())
            types << t.toString();
        bool matched = false;
        for (const QString &t : types)
            matched = matched || hasType(value, t);
        if (!matched) {
            QStringList wanted;
            for (const QString &t : types)
                wanted << ((t == QLatin1String("integer") || t == QLatin1String("object") || t == QLatin1String("array"))
                               ? QStringLiteral("an ") + t : QStringLiteral("a ") + t);
            return fail(path, QStringLiteral("must be %1, got %2").arg(wanted.join(QStringLiteral(" or ")), typeName(value)));
        }
    }

    if (schema.contains(QStringLiteral("enum"))) {
        const QJsonArray allowed = schema.value(QStringLiteral("enum")).toArray();
        if (!allowed.contains(value)) {
            QStringList shown;
            for (const QJsonValue &a : allowed)
                shown << shortJson(a);
            return fail(path, QStringLiteral("must be one of %1, got %2").arg(shown.join(QStringLiteral(", ")), shortJson(value)));
        }
    }
    if (schema.contains(QStringLiteral("const")) && schema.value(QStringLiteral("const")) != value)
        return fail(path, QStringLiteral("must be %1").arg(shortJson(schema.value(QStringLiteral("const")))));

    if (value.isDouble()) {
        const double d = value.toDouble();
        const QJsonValue min = schema.value(QStringLiteral("minimum"));
        const QJsonValue max = schema.value(QStringLiteral("maximum"));
        const QJsonValue xmin = schema.value(QStringLiteral("exclusiveMinimum"));
        const QJsonValue xmax = schema.value(QStringLiteral("exclusiveMaximum"));
        if (min.isDouble() && d < min.toDouble())
            return fail(path, QStringLiteral("must be at least %1, got %2").arg(number(min.toDouble()), number(d)));
        if (max.isDouble() && d > max.toDouble())
            return fail(path, QStringLiteral("must be at most %1, got %2").arg(number(max.toDouble()), number(d)));
        if (xmin.isDouble() && d <= xmin.toDouble())
            return fail(path, QStringLiteral("must be greater than %1, got %2").arg(number(xmin.toDouble()), number(d)));
        if (xmax.isDouble() && d >= xmax.toDouble())
            return fail(path, QStringLiteral("must be less than %1, got %2").arg(number(xmax.toDouble()), number(d)));
    }

    if (value.isString()) {
        const QString s = value.toString();
        const qsizetype n = codePoints(s);
        const QJsonValue minLen = schema.value(QStringLiteral("minLength"));
        const QJsonValue maxLen = schema.value(QStringLiteral("maxLength"));
        if (minLen.isDouble() && n < minLen.toInteger())
            return fail(path, minLen.toInteger() == 1 ? QStringLiteral("must not be empty")
                                                      : QStringLiteral("must be at least %1 characters long").arg(minLen.toInteger()));
        if (maxLen.isDouble() && n > maxLen.toInteger())
            return fail(path, QStringLiteral("must be at most %1 characters long, got %2").arg(maxLen.toInteger()).arg(n));
        const QJsonValue pattern = schema.value(QStringLiteral("pattern"));
        if (pattern.isString()) {
            const QRegularExpression re(pattern.toString());
            if (re.isValid() && !re.match(s).hasMatch())
                return fail(path, QStringLiteral("must match the pattern %1").arg(pattern.toString()));
        }
    }

    if (value.isArray()) {
        const QJsonArray items = value.toArray();
        const QJsonValue minItems = schema.value(QStringLiteral("minItems"));
        const QJsonValue maxItems = schema.value(QStringLiteral("maxItems"));
        if (minItems.isDouble() && items.size() < minItems.toInteger())
            return fail(path, QStringLiteral("must have at least %1 items").arg(minItems.toInteger()));
        if (maxItems.isDouble() && items.size() > maxItems.toInteger())
            return fail(path, QStringLiteral("must have at most %1 items, got %2").arg(maxItems.toInteger()).arg(items.size()));
        const QJsonValue itemSchema = schema.value(QStringLiteral("items"));
        if (itemSchema.isObject())
            for (qsizetype i = 0; i < items.size(); ++i) {
                const QString err = check(itemSchema.toObject(), items.at(i), QStringLiteral("%1[%2]").arg(path).arg(i));
                if (!err.isEmpty())
                    return err;
            }
    }

    if (value.isObject()) {
        const QJsonObject obj = value.toObject();
        const QJsonObject properties = schema.value(QStringLiteral("properties")).toObject();
        for (const QJsonValue &r : schema.value(QStringLiteral("required")).toArray())
            if (!obj.contains(r.toString()))
                return fail(join(path, r.toString()), QStringLiteral("is required"));
        const QJsonValue additional = schema.value(QStringLiteral("additionalProperties"));
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            const QString field = join(path, it.key());
            if (properties.contains(it.key())) {
                const QString err = check(properties.value(it.key()).toObject(), it.value(), field);
                if (!err.isEmpty())
                    return err;
            } else if (additional.isBool() && !additional.toBool()) {
                QStringList known = properties.keys();
                return fail(field, known.isEmpty() ? QStringLiteral("unknown field (this tool takes no arguments)")
                                                   : QStringLiteral("unknown field (allowed: %1)").arg(known.join(QStringLiteral(", "))));
            } else if (additional.isObject()) {
                const QString err = check(additional.toObject(), it.value(), field);
                if (!err.isEmpty())
                    return err;
            }
        }
    }
    return {};
}

} // namespace chat2sbx
