#pragma once

#include <QString>

namespace chat2sbx {

// Text from a client or a VM as it may appear in the log: control characters (newlines, escape
// sequences, C1 controls, bidi overrides) written as \n, \r, \t or \u{XXXX}, and cut at maxChars
// with an ellipsis, so nobody outside can forge log lines or restyle the terminal.
QString logSafe(const QString &text, int maxChars = 200);

} // namespace chat2sbx
