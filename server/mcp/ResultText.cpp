#include "mcp/ResultText.h"

#include "core/JsonText.h"

#include <QJsonArray>

namespace chat2sbx {

namespace {

// Strings longer than this are left to structuredContent in the compact form.
constexpr int kCompactStringMax = 200;

QByteArray fullText(const QJsonObject &structured, const QStringList &payloadFields)
{
    QJsonObject rest = structured;
    QList<QPair<QString, QString>> payloads;
    for (const QString &field : payloadFields) {
        const QJsonValue v = structured.value(field);
        if (!v.isString() || v.toString().isEmpty())
            continue;   // absent or empty: stays in the JSON, which says so
        payloads.append({field, v.toString()});
        rest.remove(field);
    }
    QByteArray text = json::compact(rest);
    for (const auto &p : payloads) {
        text += "\n--- " + p.first.toUtf8() + " ---\n";
        text += p.second.toUtf8();
    }
    return text;
}

QByteArray compactText(const QJsonObject &structured)
{
    QJsonObject scalars;
    QStringList left;
    for (auto it = structured.begin(); it != structured.end(); ++it) {
        const QJsonValue v = it.value();
        if (v.isString() && v.toString().size() > kCompactStringMax)
            left << QStringLiteral("%1: %2 characters").arg(it.key()).arg(v.toString().size());
        else if (v.isArray())
            left << QStringLiteral("%1: %2 items").arg(it.key()).arg(v.toArray().size());
        else if (v.isObject())
            left << it.key();
        else
            scalars.insert(it.key(), v);
    }
    QByteArray text = json::compact(scalars);
    if (!left.isEmpty())
        text += "\n(" + left.join(QStringLiteral("; ")).toUtf8() + "; the full result is in structuredContent)";
    return text;
}

} // namespace

QByteArray resultText(const QJsonObject &structured, const QStringList &payloadFields, ResultTextForm form)
{
    return form == ResultTextForm::Compact ? compactText(structured) : fullText(structured, payloadFields);
}

} // namespace chat2sbx
