#include "core/JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace chat2sbx::json {

void appendString(QByteArray &out, QByteArrayView utf8)
{
    static const char hex[] = "0123456789abcdef";
    out.reserve(out.size() + utf8.size() + 2);
    out.append('"');
    const char *p = utf8.data();
    const char *end = p + utf8.size();
    const char *run = p;   // start of the bytes not yet copied
    for (; p != end; ++p) {
        const auto c = static_cast<unsigned char>(*p);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(run, p - run);
        run = p + 1;
        switch (c) {
        case '"': out.append("\\\"", 2); break;
        case '\\': out.append("\\\\", 2); break;
        case '\b': out.append("\\b", 2); break;
        case '\f': out.append("\\f", 2); break;
        case '\n': out.append("\\n", 2); break;
        case '\r': out.append("\\r", 2); break;
        case '\t': out.append("\\t", 2); break;
        default: {
            const char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
            out.append(u, 6);
        }
        }
    }
    out.append(run, end - run);
    out.append('"');
}

void appendValue(QByteArray &out, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Object:
        out += QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
        return;
    case QJsonValue::Array:
        out += QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
        return;
    case QJsonValue::String:
        appendString(out, value.toString().toUtf8());
        return;
    default:
        // A scalar: serialized inside an array, then the brackets taken off.
        const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
        out.append(wrapped.constData() + 1, wrapped.size() - 2);
    }
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace chat2sbx::json
