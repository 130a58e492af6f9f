#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace chat2sbx {

// The text block of a successful tool result, in the form the session's client needs
// (docs/TOOL_CARDS.md): every payload reaches the client's model once.
enum class ResultTextForm {
    // For clients whose model may read only `content` (Claude, the Agents SDK, unknown clients): the
    // structured result's JSON without its payload fields, then each payload field raw under a header.
    Full,
    // For ChatGPT, whose model surely reads structuredContent and maybe content too: the top-level
    // scalars as JSON and a note naming what only structuredContent holds.
    Compact,
};

// UTF-8 text for `structured`. `payloadFields` name the big string fields (ToolPresentation).
QByteArray resultText(const QJsonObject &structured, const QStringList &payloadFields, ResultTextForm form);

} // namespace chat2sbx
