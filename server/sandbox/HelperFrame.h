#pragma once

#include <QByteArray>
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

} // namespace chat2sbx
