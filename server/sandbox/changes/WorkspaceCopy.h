#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace chat2sbx {

// A managed workspace folder copied on the host for a checkpoint: `cp -a --reflink=auto` (a reflink
// where the file system has them, so unchanged files cost no space; a plain copy elsewhere) into a
// staged `<dst>.partial` renamed to `dst` when complete, then `du -sb` for its size. Children go
// through core/ChildProcess: an argv list, only PATH in their environment, a timeout.
class WorkspaceCopy : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(bool ok, qint64 sizeBytes, const QString &error)>;
    explicit WorkspaceCopy(QObject *parent = nullptr) : QObject(parent) {}

    static constexpr int kCopyTimeoutMs = 30 * 60 * 1000;

    // `dst` must not exist; its parent is made. On failure nothing is left at `dst` or `dst.partial`.
    void copy(const QString &src, const QString &dst, Done done);
    // `dst`'s contents become a copy of `src` (a restore): copied beside it as `<dst>.restoring`,
    // then swapped in by two renames, the old contents removed after. Safe to repeat after a crash:
    // what an interrupted try left beside `dst` is removed first.
    void replace(const QString &src, const QString &dst, Done done);
    // `dir` and everything in it, off the event loop (`rm -rf`); `done` when it is gone or could not be.
    void remove(const QString &dir, std::function<void(bool ok)> done);
};

} // namespace chat2sbx
