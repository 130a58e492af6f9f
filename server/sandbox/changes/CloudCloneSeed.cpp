#include "sandbox/changes/CloudCloneSeed.h"

#include "sandbox/changes/WorkspaceChanges.h"
#include "sandbox/channel/ChannelPool.h"
#include "workspace/HostGit.h"

#include <QDir>
#include <QFile>
#include <QPointer>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <memory>

namespace chat2sbx {

namespace {

// A branch name the helper may check out (it checks again with git check-ref-format); else detached.
QString usableBranch(const QByteArray &symbolicRef)
{
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9._/-]{1,200}$"));
    const QString name = QString::fromUtf8(symbolicRef).trimmed();
    return allowed.match(name).hasMatch() && !name.startsWith(QLatin1Char('-')) ? name : QString();
}

} // namespace

CloudCloneSeed::CloudCloneSeed(ChannelPool &channels, HostGit &git, QObject *parent)
    : QObject(parent), m_channels(channels), m_git(git)
{
}

void CloudCloneSeed::seed(const RunningSandbox &sandbox, const Workspace &workspace,
                          std::function<void(bool, const QString &)> done)
{
    QPointer<CloudCloneSeed> self(this);
    const QString repository = workspace.hostPath;
    m_git.run(repository, {QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("-q"), QStringLiteral("HEAD^{commit}")},
              [self, sandbox, repository, done](const HostGitResult &head) {
                  if (!self)
                      return;
                  const QString commit = QString::fromLatin1(head.out).trimmed();
                  if (!head.ok || !isCommitId(commit))
                      return done(false, QStringLiteral("the repository %1 has no commit checked out, and a clone in the cloud "
                                                        "starts from one: commit there first, or use a local sandbox")
                                             .arg(repository));
                  self->m_git.run(repository, {QStringLiteral("symbolic-ref"), QStringLiteral("-q"), QStringLiteral("--short"), QStringLiteral("HEAD")},
                                  [self, sandbox, repository, commit, done](const HostGitResult &ref) {
                                      if (!self)
                                          return;
                                      self->send(sandbox, repository, commit, ref.ok ? usableBranch(ref.out) : QString(), done);
                                  });
              });
}

void CloudCloneSeed::send(const RunningSandbox &sandbox, const QString &repository, const QString &commit,
                          const QString &branch, std::function<void(bool, const QString &)> done)
{
    auto dir = std::make_shared<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/chat2sbx-seed-XXXXXX"));
    if (!dir->isValid())
        return done(false, QStringLiteral("cannot make a temporary folder for the repository's bundle: %1").arg(dir->errorString()));
    const QString bundle = dir->filePath(QStringLiteral("seed.bundle"));
    QPointer<CloudCloneSeed> self(this);
    // HEAD with its history: what `sbx --clone` gives a local sandbox of the same repository.
    m_git.run(repository, {QStringLiteral("bundle"), QStringLiteral("create"), QStringLiteral("--quiet"), bundle, QStringLiteral("HEAD")},
              [self, sandbox, repository, commit, branch, done, dir, bundle](const HostGitResult &made) {
                  if (!self)
                      return;
                  if (!made.ok)
                      return done(false, QStringLiteral("packing %1 for the cloud failed: %2").arg(repository, made.error));
                  QFile f(bundle);
                  if (!f.open(QIODevice::ReadOnly))
                      return done(false, QStringLiteral("cannot read the repository's bundle: %1").arg(f.errorString()));
                  if (f.size() > kMaxBundleBytes)
                      return done(false, QStringLiteral("the history of %1 up to its checked-out commit is %2 MiB as a git bundle, more "
                                                        "than the %3 MiB a clone in the cloud carries: use a local sandbox for it")
                                             .arg(repository)
                                             .arg(double(f.size()) / (1024 * 1024), 0, 'f', 1)
                                             .arg(kMaxBundleBytes / (1024 * 1024)));
                  const QByteArray bytes = f.readAll();
                  f.close();
                  self->m_channels.channelFor(sandbox).request(
                      QStringLiteral("git_seed"), {commit.toLatin1(), branch.toUtf8(), bytes}, kTimeoutMs,
                      [done, repository](const ChannelReply &r) {
                          if (!r.ok)
                              return done(false, QStringLiteral("putting the clone of %1 into the cloud sandbox failed: %2")
                                                     .arg(repository, r.error));
                          done(true, QString());
                      });
              });
}

} // namespace chat2sbx
