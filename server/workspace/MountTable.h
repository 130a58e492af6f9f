#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace chat2sbx {

// One line of /proc/<pid>/mountinfo (proc(5)): where a mount sits, and which folder of its file
// system it shows there ("/" for a whole file system; the bound folder for a bind mount).
struct MountEntry {
    QString root;
    QString mountPoint;
};

// Parses mountinfo text. Lines that do not have the documented shape are skipped; the octal escapes
// the kernel writes for space, tab, newline and backslash (\040 \011 \012 \134) are decoded.
QList<MountEntry> parseMountInfo(const QByteArray &text);

// The mount table of this process (/proc/self/mountinfo, at most 8 MiB read); nullopt where the
// system has none (not Linux) or it cannot be read.
std::optional<QList<MountEntry>> readOwnMountTable();

} // namespace chat2sbx
