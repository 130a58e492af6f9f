#pragma once

#include <QByteArray>
#include <QJsonDocument>

namespace chat2sbx {

// The JSON document in the stdout of an `sbx ... --json` command. The CLI may print daemon
// start-up lines ("Starting sandboxd daemon...", "Daemon started (PID …)", "Logs: …") before the
// JSON (sbx-contract.md, behaviour 3), so parsing starts at the first line that begins with `{` or
// `[`. A null document when there is none or it is malformed.
QJsonDocument parseSbxJson(const QByteArray &stdoutBytes);

} // namespace chat2sbx
