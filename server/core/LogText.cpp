#include "core/LogText.h"

namespace chat2sbx {
namespace {

// C0 and C1 controls, DEL, the line and paragraph separators, and every format character (bidi
// marks, embeddings, overrides and isolates, zero-width characters, the BOM).
bool isControl(QChar ch)
{
    const char32_t c = ch.unicode();
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || ch.category() == QChar::Other_Format;
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
        else if (isControl(ch))
            out += QStringLiteral("\\u{%1}").arg(uint(c), 4, 16, QLatin1Char('0'));
        else
            out += ch;
        ++shown;
    }
    return out;
}

QString terminalSafe(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar ch : text) {
        if (ch == QLatin1Char('\n') || ch == QLatin1Char('\t') || !isControl(ch))
            out += ch;
        else
            out += QStringLiteral("\\u{%1}").arg(uint(ch.unicode()), 4, 16, QLatin1Char('0'));
    }
    return out;
}

QString jsonTerminalSafe(const QString &json)
{
    QString out;
    out.reserve(json.size());
    for (const QChar ch : json) {
        // Outside strings JSON has only ASCII and whitespace: what isControl finds is inside one.
        if (ch == QLatin1Char('\n') || ch == QLatin1Char('\t') || ch == QLatin1Char('\r') || ch == QLatin1Char(' ') || !isControl(ch))
            out += ch;
        else
            out += QStringLiteral("\\u%1").arg(uint(ch.unicode()), 4, 16, QLatin1Char('0'));
    }
    return out;
}

} // namespace chat2sbx
