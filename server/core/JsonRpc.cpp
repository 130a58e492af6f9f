#include "core/JsonRpc.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace chat2sbx::jsonrpc {

QJsonObject result(const QJsonValue &id, const QJsonObject &result)
{
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id}, {QStringLiteral("result"), result}};
}

QJsonObject error(const QJsonValue &id, int code, const QString &message, const QJsonValue &data)
{
    QJsonObject err{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}};
    if (!data.isUndefined() && !data.isNull())
        err.insert(QStringLiteral("data"), data);
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), id.isUndefined() ? QJsonValue(QJsonValue::Null) : id},
            {QStringLiteral("error"), err}};
}

QByteArray serialize(const QJsonObject &message)
{
    return QJsonDocument(message).toJson(QJsonDocument::Compact);
}

QByteArray serializeResult(const QJsonValue &id, const QByteArray &resultJson)
{
    // QJsonDocument has no scalar form: serialize the id inside an array and strip the brackets.
    const QByteArray idJson = QJsonDocument(QJsonArray{id}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
    return QByteArrayLiteral("{\"id\":") + idJson + QByteArrayLiteral(",\"jsonrpc\":\"2.0\",\"result\":") + resultJson + '}';
}

bool isValidId(const QJsonValue &id)
{
    if (id.isString())
        return true;
    if (!id.isDouble())
        return false;
    const double d = id.toDouble();
    return std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740991.0;
}

QJsonValue peekId(const QByteArray &body)
{
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    if (!doc.isObject())
        return QJsonValue(QJsonValue::Undefined);
    const QJsonValue id = doc.object().value(QStringLiteral("id"));
    return isValidId(id) ? id : QJsonValue(QJsonValue::Undefined);
}

QString idKey(const QJsonValue &id)
{
    if (id.isString())
        return QStringLiteral("s:") + id.toString();
    return QStringLiteral("n:") + QString::number(static_cast<qint64>(id.toDouble()));
}

} // namespace chat2sbx::jsonrpc
