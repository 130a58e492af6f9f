#include "tools/ImagePreparer.h"

#include <QBuffer>
#include <QImage>
#include <QImageReader>
#include <QImageWriter>

#include <algorithm>

namespace chat2sbx {

QString ImagePreparer::sniffMimeType(const QByteArray &b)
{
    if (b.startsWith("\x89PNG\r\n\x1a\n"))
        return QStringLiteral("image/png");
    if (b.startsWith("\xff\xd8\xff"))
        return QStringLiteral("image/jpeg");
    if (b.startsWith("GIF87a") || b.startsWith("GIF89a"))
        return QStringLiteral("image/gif");
    if (b.size() >= 12 && b.startsWith("RIFF") && b.mid(8, 4) == "WEBP")
        return QStringLiteral("image/webp");
    return {};
}

bool ImagePreparer::prepare(const QByteArray &bytes, Result &out, QString &error, const Limits &limits)
{
    out = Result{};
    const QString mime = sniffMimeType(bytes);
    if (mime.isEmpty()) {
        error = QStringLiteral("not a PNG, JPEG, GIF or WebP image");
        return false;
    }
    const QByteArray format = mime.mid(6).toLatin1();
    QBuffer buffer;
    buffer.setData(bytes);
    buffer.open(QIODevice::ReadOnly);
    QImageReader reader(&buffer, format);
    reader.setAutoTransform(true);
    const QSize size = reader.size();
    if (!size.isValid()) {
        error = QStringLiteral("the %1 image cannot be read: %2").arg(QString::fromLatin1(format), reader.errorString());
        return false;
    }
    out.width = size.width();
    out.height = size.height();
    if (static_cast<qint64>(size.width()) * size.height() > kMaxPixels) {
        error = QStringLiteral("the image is %1x%2 pixels; at most %3 megapixels can be shown")
                    .arg(size.width()).arg(size.height()).arg(kMaxPixels / 1000000);
        return false;
    }
    const int longSide = std::max(size.width(), size.height());
    if (longSide <= limits.maxLongSide && bytes.size() <= limits.maxBytes) {
        out.data = bytes;
        out.mimeType = mime;
        out.shownWidth = size.width();
        out.shownHeight = size.height();
        return true;
    }
    // Decoding straight to the target size (cheap for JPEG), then halving until the encoding fits.
    double factor = std::min(1.0, static_cast<double>(limits.maxLongSide) / longSide);
    QImage image;
    {
        const QSize target = (QSizeF(size) * factor).toSize().expandedTo(QSize(1, 1));
        reader.setScaledSize(target);
        image = reader.read();
    }
    if (image.isNull()) {
        error = QStringLiteral("the %1 image cannot be decoded: %2").arg(QString::fromLatin1(format), reader.errorString());
        return false;
    }
    const bool alpha = image.hasAlphaChannel();
    for (int attempt = 0; attempt < 6; ++attempt) {
        QByteArray encoded;
        QBuffer sink(&encoded);
        sink.open(QIODevice::WriteOnly);
        QImageWriter writer(&sink, alpha ? "png" : "jpeg");
        if (!alpha)
            writer.setQuality(85);
        if (!writer.write(image)) {
            error = QStringLiteral("the scaled image cannot be encoded: %1").arg(writer.errorString());
            return false;
        }
        if (encoded.size() <= limits.maxBytes) {
            out.data = encoded;
            out.mimeType = alpha ? QStringLiteral("image/png") : QStringLiteral("image/jpeg");
            out.shownWidth = image.width();
            out.shownHeight = image.height();
            out.scaled = true;
            return true;
        }
        image = image.scaled(std::max(1, image.width() / 2), std::max(1, image.height() / 2), Qt::KeepAspectRatio,
                             Qt::SmoothTransformation);
    }
    error = QStringLiteral("the image could not be made smaller than %1 KiB").arg(limits.maxBytes / 1024);
    return false;
}

} // namespace chat2sbx
