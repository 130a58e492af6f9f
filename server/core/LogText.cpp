#include "core/LogText.h"

namespace chat2sbx {
namespace {

bool isControl(char32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x200e && c <= 0x200f) || (c >= 0x202a && c <= 0x202e)
           || (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

} // namespace

QString logSafe(const QString &text, int maxChars)
{
    QString out;
    out.reserve(std::min<qsizetype>(text.size(), maxChars) + 8);
    int shown = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (shown >= maxChars) {
            out += QStringLiteral("…");
            break;
        }
        const QChar ch = text.at(i);
        const char32_t c = ch.unicode();
        if (c == '\n')
            out += QStringLiteral("\\n");
        else if (c == '\r')
            out += QStringLiteral("\\r");
        else if (c == '\t')
            out += QStringLiteral("\\t");
        else if (isControl(c))
            out += QStringLiteral("\\u{%1}").arg(uint(c), 4, 16, QLatin1Char('0'));
        else
            out += ch;
        ++shown;
    }
    return out;
}

} // namespace chat2sbx
