#include "sandbox/changes/WorkspaceCopy.h"

#include "core/ChildProcess.h"

#include <QDir>
#include <QFileInfo>

namespace chat2sbx {

namespace {

ChildSpec copyChild(const QString &program, const QStringList &args, int timeoutMs)
{
    ChildSpec spec;
    spec.program = program;
    spec.arguments = args;
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    spec.environment = env;
    spec.timeoutMs = timeoutMs;
    spec.maxOutBytes = 64 * 1024;
    return spec;
}

QString childFailure(const QString &what, const ChildResult &r)
{
    if (!r.started)
        return QStringLiteral("cannot run %1: %2").arg(what, r.startError);
    if (r.timedOut)
        return QStringLiteral("%1 timed out").arg(what);
    return QStringLiteral("%1 failed: %2").arg(what, QString::fromUtf8(r.err).trimmed().section(QLatin1Char('\n'), 0, 0).left(300));
}

} // namespace

void WorkspaceCopy::copy(const QString &src, const QString &dst, Done done)
{
    const QString partial = dst + QStringLiteral(".partial");
    if (QFileInfo::exists(dst) || !QFileInfo(src).isDir() || !QDir().mkpath(partial)) {
        const QString why = QFileInfo::exists(dst) ? QStringLiteral("%1 exists already").arg(dst)
                                                    : QStringLiteral("cannot copy %1 to %2").arg(src, partial);
        QDir(partial).removeRecursively();
        return done(false, 0, why);
    }
    // "src/." copies the folder's contents, hidden files included, into the staged folder.
    ChildProcess::run(copyChild(QStringLiteral("cp"), {QStringLiteral("-a"), QStringLiteral("--reflink=auto"), src + QStringLiteral("/."), partial},
                                kCopyTimeoutMs),
                      this, [this, partial, dst, done](const ChildResult &copied) {
                          if (!copied.ok()) {
                              QDir(partial).removeRecursively();
                              return done(false, 0, childFailure(QStringLiteral("copying the workspace"), copied));
                          }
                          if (!QDir().rename(partial, dst)) {
                              QDir(partial).removeRecursively();
                              return done(false, 0, QStringLiteral("cannot name the copy %1").arg(dst));
                          }
                          // The disk the copy uses (a sparse file counts its blocks, not its apparent size).
                          ChildProcess::run(copyChild(QStringLiteral("du"), {QStringLiteral("-s"), QStringLiteral("--block-size=1"),
                                                                             QStringLiteral("--"), dst}, 5 * 60 * 1000), this,
                                            [done](const ChildResult &du) {
                                                // The size is for the user's budget: a failed du leaves it 0, not the copy.
                                                done(true, du.ok() ? QString::fromUtf8(du.out).section(QLatin1Char('\t'), 0, 0).toLongLong() : 0,
                                                     QString());
                                            });
                      });
}

void WorkspaceCopy::remove(const QString &dir, std::function<void(bool)> done)
{
    ChildProcess::run(copyChild(QStringLiteral("rm"), {QStringLiteral("-rf"), QStringLiteral("--"), dir}, kCopyTimeoutMs), this,
                      [done](const ChildResult &removed) { done(removed.ok()); });
}

void WorkspaceCopy::replace(const QString &src, const QString &dst, Done done)
{
    const QString staged = dst + QStringLiteral(".restoring");
    const QString old = dst + QStringLiteral(".replaced");
    if (!QFileInfo(src).isDir())
        return done(false, 0, QStringLiteral("the checkpoint's copy of the workspace is missing (%1)").arg(src));
    const QStringList leftovers{QStringLiteral("-rf"), QStringLiteral("--"), staged, staged + QStringLiteral(".partial"), old};
    ChildProcess::run(copyChild(QStringLiteral("rm"), leftovers, kCopyTimeoutMs), this,
                      [this, src, dst, staged, old, done](const ChildResult &cleaned) {
        if (!cleaned.ok())
            return done(false, 0, childFailure(QStringLiteral("removing what an earlier restore left"), cleaned));
        copy(src, staged, [this, dst, staged, old, done](bool ok, qint64 size, const QString &error) {
            if (!ok)
                return done(false, 0, error);
            if (QFileInfo::exists(dst) && !QDir().rename(dst, old))
                return done(false, 0, QStringLiteral("cannot move %1 aside").arg(dst));
            if (!QDir().rename(staged, dst))
                return done(false, 0, QStringLiteral("cannot put the copy in place as %1").arg(dst));
            ChildProcess::run(copyChild(QStringLiteral("rm"), {QStringLiteral("-rf"), QStringLiteral("--"), old}, kCopyTimeoutMs),
                              this, [done, size](const ChildResult &) { done(true, size, QString()); });
        });
    });
}

} // namespace chat2sbx
