#include "core/JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <array>
#include <cstring>

namespace chat2sbx::json {

namespace {

// The bytes a JSON string needs beyond one per input byte: 1 for the short escapes, 5 for \u00XX.
constexpr std::array<unsigned char, 256> escapeExtra()
{
    std::array<unsigned char, 256> t{};
    for (int c = 0; c < 0x20; ++c)
        t[c] = 5;
    for (const unsigned char c : {'"', '\\', '\b', '\f', '\n', '\r', '\t'})
        t[c] = 1;
    return t;
}
constexpr std::array<unsigned char, 256> kEscapeExtra = escapeExtra();

} // namespace

// Two passes over the input (the size it takes, then the bytes written in place) rather than an
// append per escape: a sandbox_list of 1,000 has some 80,000 quotes to escape in its text.
void appendString(QByteArray &out, QByteArrayView utf8)
{
    static const char hex[] = "0123456789abcdef";
    const auto *in = reinterpret_cast<const unsigned char *>(utf8.data());
    const qsizetype n = utf8.size();
    qsizetype extra = 0;
    for (qsizetype i = 0; i < n; ++i)
        extra += kEscapeExtra[in[i]];
    const qsizetype at = out.size();
    out.resize(at + n + extra + 2);
    char *w = out.data() + at;
    *w++ = '"';
    if (extra == 0) {
        if (n > 0)   // an empty view may have no data at all
            std::memcpy(w, in, size_t(n));
        w += n;
    } else {
        for (qsizetype i = 0; i < n; ++i) {
            const unsigned char c = in[i];
            if (!kEscapeExtra[c]) {
                *w++ = char(c);
                continue;
            }
            *w++ = '\\';
            switch (c) {
            case '"': *w++ = '"'; break;
            case '\\': *w++ = '\\'; break;
            case '\b': *w++ = 'b'; break;
            case '\f': *w++ = 'f'; break;
            case '\n': *w++ = 'n'; break;
            case '\r': *w++ = 'r'; break;
            case '\t': *w++ = 't'; break;
            default:
                *w++ = 'u';
                *w++ = '0';
                *w++ = '0';
                *w++ = hex[c >> 4];
                *w++ = hex[c & 0xf];
            }
        }
    }
    *w++ = '"';
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
