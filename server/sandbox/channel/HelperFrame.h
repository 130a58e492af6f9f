#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>

namespace chat2sbx {

// One answer line of the in-sandbox helper (PROTOCOL.md): "<id> ok|err <k=v;...|-> <base64|->".
// Everything in it comes from the VM: parsed without trusting any field.
struct HelperFrame {
    quint64 id = 0;
    bool ok = false;
    QMap<QString, QString> meta;
    QByteArray data;
};

// nullopt when the line is not a frame (wrong field count, id not a number).
std::optional<HelperFrame> parseHelperFrame(const QByteArray &line);

// One request (PROTOCOL.md): "<id> <op> <length>[ raw]\n<body>". The body is the argument list
// itself ("raw") when it has no NUL byte, which the helper's shell cannot hold, so the helper
// starts no base64 decoder for it; else its base64 and a newline.
QByteArray encodeHelperRequest(quint64 id, const QByteArray &op, const QList<QByteArray> &args);

} // namespace chat2sbx
