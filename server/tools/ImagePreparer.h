#pragma once

#include <QByteArray>
#include <QString>

namespace chat2sbx {

// Turns the bytes of an image file into what a client can take: PNG, JPEG, GIF or WebP recognised by
// their signature; one larger than kMaxLongSide pixels on its long side or kMaxBytes bytes is decoded,
// scaled down and re-encoded (PNG when it has transparency, JPEG otherwise). Pure CPU work: run it
// off the event loop.
class ImagePreparer {
public:
    static constexpr int kMaxLongSide = 2000;
    static constexpr qint64 kMaxBytes = 4 * 1024 * 1024;
    static constexpr qint64 kMaxPixels = 100'000'000;   // larger images are refused, not decoded

    struct Result {
        QByteArray data;           // what is returned (the original bytes when no scaling was needed)
        QString mimeType;
        int width = 0, height = 0;                 // of the original
        int shownWidth = 0, shownHeight = 0;       // of `data`
        bool scaled = false;
    };

    // How large the returned image may be: the model's view (the defaults) or a card's preview.
    struct Limits {
        int maxLongSide = kMaxLongSide;
        qint64 maxBytes = kMaxBytes;
    };

    // The image type by signature ("image/png", ...), or empty.
    static QString sniffMimeType(const QByteArray &bytes);
    static bool prepare(const QByteArray &bytes, Result &out, QString &error, const Limits &limits);
    static bool prepare(const QByteArray &bytes, Result &out, QString &error) { return prepare(bytes, out, error, Limits()); }
};

} // namespace chat2sbx
