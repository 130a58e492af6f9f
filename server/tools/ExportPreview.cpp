#include "tools/ExportPreview.h"

#include "tools/ImagePreparer.h"

#include <QFile>
#include <QStringDecoder>

namespace chat2sbx {

namespace {

// A control character other than tab, line feed, carriage return, form feed and escape (ANSI colour)
// says "binary".
bool previewIsBinaryByte(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 && u != '\t' && u != '\n' && u != '\r' && u != '\f' && u != 0x1b;
}

} // namespace

QJsonObject ExportPreview::ofText(const QByteArray &head, bool complete)
{
    QByteArray bytes = head;
    if (!complete) {
        // The read may have cut a UTF-8 sequence: drop its leading bytes (at most three).
        int cut = 0;
        while (cut < 3 && cut < bytes.size() && (static_cast<unsigned char>(bytes[bytes.size() - 1 - cut]) & 0xc0) == 0x80)
            ++cut;
        if (cut < bytes.size() && (static_cast<unsigned char>(bytes[bytes.size() - 1 - cut]) & 0xc0) == 0xc0)
            bytes.chop(cut + 1);
    }
    if (bytes.isEmpty())
        return {};
    for (const char c : bytes)
        if (previewIsBinaryByte(c))
            return {};
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString text = decoder.decode(bytes);
    if (decoder.hasError())
        return {};
    bool truncated = !complete || bytes.size() < head.size();
    int lines = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i) == QLatin1Char('\n') && ++lines == kMaxTextLines) {
            truncated = truncated || i + 1 < text.size();
            text.truncate(i + 1);
            break;
        }
    }
    if (text.size() > kMaxTextChars) {
        qsizetype end = kMaxTextChars;
        if (text.at(end - 1).isHighSurrogate())
            --end;
        text.truncate(end);
        truncated = true;
    }
    return {{QStringLiteral("kind"), QStringLiteral("text")}, {QStringLiteral("text"), text},
            {QStringLiteral("truncated"), truncated}};
}

QJsonObject ExportPreview::of(const QString &hostPath)
{
    QFile file(hostPath);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const qint64 size = file.size();
    const QByteArray head = file.read(kTextHeadBytes);
    if (head.isEmpty())
        return {};
    if (ImagePreparer::sniffMimeType(head).isEmpty())
        return ofText(head, head.size() >= size);
    if (size > kMaxImageFileBytes)
        return {};
    const QByteArray bytes = head + file.read(size - head.size());
    ImagePreparer::Result image;
    QString error;
    if (!ImagePreparer::prepare(bytes, image, error, {kImageLongSide, kImageMaxBytes}))
        return {};
    return {{QStringLiteral("kind"), QStringLiteral("image")},
            {QStringLiteral("mime_type"), image.mimeType},
            {QStringLiteral("data"), QString::fromLatin1(image.data.toBase64())},
            {QStringLiteral("width"), image.width},
            {QStringLiteral("height"), image.height}};
}

} // namespace chat2sbx
