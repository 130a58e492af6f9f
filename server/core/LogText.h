#pragma once

#include <QString>

namespace chat2sbx {

// Text from a client or a VM as it may appear in the log: control characters (newlines, escape
// sequences, C1 controls, bidi overrides) written as \n, \r, \t or \u{XXXX}, and cut at maxChars
// with an ellipsis, so nobody outside can forge log lines or restyle the terminal.
QString logSafe(const QString &text, int maxChars = 200);

// A whole text for a terminal (the CLI's output, where agent text sits among our lines): the same
// characters escaped as logSafe does, except newlines and tabs, which stay; nothing is cut.
QString terminalSafe(const QString &text);
// JSON text for a terminal: the characters logSafe escapes, written as JSON \uXXXX escapes (they can
// only stand inside strings), so a JSON reader gets the same values and a terminal no sequence.
QString jsonTerminalSafe(const QString &json);

} // namespace chat2sbx
