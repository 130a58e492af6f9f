#include "workspace/MountTable.h"

#include <QFile>

namespace chat2sbx {
namespace {

QString unescape(const QByteArray &field)
{
    QByteArray out;
    out.reserve(field.size());
    for (qsizetype i = 0; i < field.size(); ++i) {
        const char c = field.at(i);
        if (c == '\\' && i + 3 < field.size() && field.at(i + 1) >= '0' && field.at(i + 1) <= '3'
            && field.at(i + 2) >= '0' && field.at(i + 2) <= '7' && field.at(i + 3) >= '0' && field.at(i + 3) <= '7') {
            out += static_cast<char>(((field.at(i + 1) - '0') << 6) | ((field.at(i + 2) - '0') << 3) | (field.at(i + 3) - '0'));
            i += 3;
        } else {
            out += c;
        }
    }
    return QString::fromUtf8(out);
}

} // namespace

QList<MountEntry> parseMountInfo(const QByteArray &text)
{
    // "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue":
    // id, parent id, major:minor, root, mount point, options, optional fields..., "-", type, source, super options.
    QList<MountEntry> entries;
    for (const QByteArray &line : text.split('\n')) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() < 10 || !f.at(2).contains(':') || !f.at(3).startsWith('/') || !f.at(4).startsWith('/')
            || !f.mid(6).contains(QByteArray("-")))
            continue;
        entries.append({unescape(f.at(3)), unescape(f.at(4))});
    }
    return entries;
}

std::optional<QList<MountEntry>> readOwnMountTable()
{
    QFile file(QStringLiteral("/proc/self/mountinfo"));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    // A procfs file reports size 0: read until the end, bounded.
    QByteArray text;
    constexpr qsizetype kMaxBytes = 8 * 1024 * 1024;
    while (text.size() < kMaxBytes) {
        const QByteArray chunk = file.read(64 * 1024);
        if (chunk.isEmpty())
            break;
        text += chunk;
    }
    if (text.isEmpty())
        return std::nullopt;
    return parseMountInfo(text);
}

} // namespace chat2sbx
