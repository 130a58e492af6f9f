#pragma once

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

// What the export_file card shows of a file that just landed on this computer: the start of a text
// file, or a small copy of an image. Read from the host copy (chat2sbx's own file), never from the
// VM. Reads and decodes: run it off the event loop.
//   {"kind":"text","text":…,"truncated":bool}
//   {"kind":"image","mime_type":…,"data":base64,"width":…,"height":…}
//   {} for anything else (a binary, an archive, an image that does not decode)
class ExportPreview {
public:
    static constexpr qint64 kTextHeadBytes = 16 * 1024;      // what is read to tell text from binary
    static constexpr int kMaxTextChars = 4000;
    static constexpr int kMaxTextLines = 60;
    static constexpr qint64 kMaxImageFileBytes = 16LL << 20; // larger images get no preview
    static constexpr int kImageLongSide = 480;
    static constexpr qint64 kImageMaxBytes = 256 * 1024;

    static QJsonObject of(const QString &hostPath);
    // The text preview of a file's first bytes, or {} when they are not text. `complete`: these
    // bytes are the whole file.
    static QJsonObject ofText(const QByteArray &head, bool complete);
};

} // namespace chat2sbx
