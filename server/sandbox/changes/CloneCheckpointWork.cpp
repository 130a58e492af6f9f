#include "sandbox/changes/CloneCheckpointWork.h"

#include "sandbox/channel/ChannelPool.h"
#include "workspace/HostGit.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QSaveFile>

namespace chat2sbx {

namespace {

const QString kRefs = QStringLiteral("/refs");
const QString kBundle = QStringLiteral("/work.bundle");
constexpr qsizetype kMaxRefsBytes = 60 * 1024;   // a small argument of the helper (under 64 KiB)

bool writeWhole(const QString &path, const QByteArray &bytes, QString &error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(QFileInfo(path).fileName(), f.errorString());
        return false;
    }
    return true;
}

bool readWhole(const QString &path, qint64 max, QByteArray &out, QString &error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly) || f.size() > max) {
        error = QStringLiteral("the clone's saved work (%1) is missing or damaged on this computer")
                    .arg(QFileInfo(path).fileName());
        return false;
    }
    out = f.readAll();
    return true;
}

}   // namespace

CloneCheckpointWork::CloneCheckpointWork(ChannelPool &channels, HostGit &git, QObject *parent)
    : QObject(parent), m_channels(channels), m_git(git)
{
}

bool CloneCheckpointWork::holdsState(const QString &dir)
{
    return QFileInfo(dir + kRefs).isFile() && QFileInfo(dir + kBundle).isFile();
}

void CloneCheckpointWork::save(const RunningSandbox &sandbox, const QString &dir,
                               std::function<void(bool, qint64, const QString &)> done)
{
    QPointer<CloneCheckpointWork> self(this);
    m_channels.channelFor(sandbox).request(
        QStringLiteral("git_save"), {QByteArray::number(kMaxBundleBytes)}, kTimeoutMs,
        [self, dir, done](const ChannelReply &r) {
            if (!self)
                return;
            if (!r.ok)
                return done(false, 0, QStringLiteral("saving the clone's git state failed: %1").arg(r.error));
            // "<n>\n<refs list><bundle>", from the VM: checked before anything is written.
            const qsizetype eol = r.data.indexOf('\n');
            bool isNumber = false;
            const qint64 n = eol > 0 && eol < 12 ? r.data.left(eol).toLongLong(&isNumber) : -1;
            if (!isNumber || n <= 0 || n > kMaxRefsBytes || eol + 1 + n >= r.data.size() ||
                r.data.size() - (eol + 1 + n) > kMaxBundleBytes) {
                return done(false, 0,
                            QStringLiteral("the sandbox answered the clone's git state in an unexpected shape"));
            }
            const QByteArray refs = r.data.mid(eol + 1, n);
            const QByteArray bundle = r.data.mid(eol + 1 + n);
            if (!refs.startsWith("HEAD ") || !bundle.startsWith("# v"))
                return done(false, 0,
                            QStringLiteral("the sandbox answered the clone's git state in an unexpected shape"));
            QString error;
            if (!QDir().mkpath(dir))
                return done(false, 0, QStringLiteral("cannot make %1").arg(QFileInfo(dir).fileName()));
            if (!writeWhole(dir + kBundle, bundle, error) || !writeWhole(dir + kRefs, refs, error))
                return done(false, 0, error);
            done(true, refs.size() + bundle.size(), QString());
        });
}

void CloneCheckpointWork::checkHost(const QString &repository, const QString &dir, Done done)
{
    if (!holdsState(dir))
        return done(false, QStringLiteral("the clone's saved work is missing from this computer"));
    m_git.run(repository,
              {QStringLiteral("bundle"), QStringLiteral("verify"), QStringLiteral("--quiet"), dir + kBundle},
              [done, repository](const HostGitResult &r) {
                  if (r.ok)
                      return done(true, QString());
                  done(false,
                       QStringLiteral("the repository %1 no longer has the commits this checkpoint builds on (%2): "
                                      "nothing was changed")
                           .arg(repository, r.error));
              });
}

void CloneCheckpointWork::putBack(const RunningSandbox &sandbox, const QString &dir, Done done)
{
    QByteArray refs, bundle;
    QString error;
    if (!readWhole(dir + kRefs, kMaxRefsBytes, refs, error) ||
        !readWhole(dir + kBundle, kMaxBundleBytes, bundle, error))
        return done(false, error);
    QPointer<CloneCheckpointWork> self(this);
    m_channels.channelFor(sandbox).request(
        QStringLiteral("git_put_back"), {refs, bundle}, kTimeoutMs, [self, done](const ChannelReply &r) {
            if (!self)
                return;
            if (!r.ok)
                return done(false, QStringLiteral("putting the clone's work back failed: %1").arg(r.error));
            done(true, QString());
        });
}

}   // namespace chat2sbx
