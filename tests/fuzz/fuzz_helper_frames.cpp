// What a VM can write to the helper's stdout: split into frames (lines, raw answers) with the frame
// cap, each parsed. Nothing may crash, the reader never holds more than its cap, and a parsed frame has
// the id the line starts with.
#include "sandbox/channel/HelperFrame.h"
#include "sandbox/channel/HelperFrameReader.h"

#include <QList>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace chat2sbx;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    constexpr qsizetype kCap = 256;
    HelperFrameReader reader(kCap);
    const qsizetype piece = size ? (data[0] % 97) + 1 : 1;
    for (qsizetype at = 0; at < bytes.size(); at += piece) {
        QList<QByteArray> lines;
        const bool within = reader.feed(bytes.mid(at, piece), lines);
        if (reader.pendingBytes() > kCap || (!within && reader.pendingBytes() != 0))
            std::abort();
        for (const QByteArray &line : lines) {
            // Only a raw answer's bytes (after its header's '~') may hold a newline.
            const qsizetype nl = line.indexOf('\n');
            if (line.size() > kCap || (nl >= 0 && line.left(nl).indexOf('~') < 0))
                std::abort();
            if (const auto frame = parseHelperFrame(line)) {
                bool ok = false;
                if (line.left(line.indexOf(' ')).toULongLong(&ok) != frame->id || !ok)
                    std::abort();
            }
        }
    }
    return 0;
}
