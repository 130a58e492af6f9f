#include "sandbox/changes/ChangesService.h"

#include "sandbox/channel/ChannelPool.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "workspace/HostGit.h"

#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QPointer>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <memory>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcChanges, "chat2sbx.changes")

namespace {

const QString kBranchPrefix = QStringLiteral("chat2sbx/");

QString shortId(const QString &id)
{
    return id.left(12);
}

QString commitCount(int n, bool uncommitted)
{
    QString text = n == 1 ? QStringLiteral("1 commit") : QStringLiteral("%1 commits").arg(n);
    if (uncommitted)
        text += QStringLiteral(" (the last one holds the uncommitted changes)");
    return text;
}

} // namespace

ChangesService::ChangesService(SandboxService &sandboxes, ChannelPool &channels, HostGit &git, QObject *parent)
    : QObject(parent), m_sandboxes(sandboxes), m_channels(channels), m_git(git)
{
}

bool ChangesService::branchName(const QString &sandboxId, const QString &requested, QString &out, QString &error)
{
    QString name = requested.trimmed();
    if (name.isEmpty())
        name = sandboxId;
    if (name.startsWith(QLatin1String("refs/heads/")))
        name = name.mid(11);
    if (!name.startsWith(kBranchPrefix))
        name = kBranchPrefix + name;
    // git check-ref-format rules, for the characters and shapes a branch name may have.
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9._/-]+$"));
    const QString rest = name.mid(kBranchPrefix.size());
    if (rest.isEmpty() || name.size() > 200 || !allowed.match(name).hasMatch() || name.contains(QLatin1String(".."))
        || name.contains(QLatin1String("//")) || name.endsWith(QLatin1Char('/')) || name.endsWith(QLatin1Char('.'))
        || name.endsWith(QLatin1String(".lock")) || name.contains(QLatin1String("/.")) || rest.startsWith(QLatin1Char('-'))) {
        error = QStringLiteral("'%1' is not a usable branch name (letters, digits, '.', '_', '-' and '/' only; it goes under chat2sbx/)")
                    .arg(requested.left(100));
        return false;
    }
    out = name;
    return true;
}

void ChangesService::changes(const RunningSandbox &sandbox, const QString &path, bool includeDiff, qsizetype maxDiffBytes,
                             std::function<void(const ChangesOutcome &)> done)
{
    m_channels.channelFor(sandbox).request(
        QStringLiteral("git_changes"),
        {path.toUtf8(), includeDiff ? QByteArrayLiteral("1") : QByteArrayLiteral("0"), QByteArray::number(maxDiffBytes),
         QByteArray::number(kMaxCommits)},
        kChangesTimeoutMs, [done, maxDiffBytes](const ChannelReply &r) {
            ChangesOutcome o;
            if (!r.ok) {
                o.error = r.error;
                return done(o);
            }
            o.ok = o.changes.parse(r.meta, r.data, kMaxCommits, maxDiffBytes, o.error);
            done(o);
        });
}

void ChangesService::exportWork(const QString &sandboxId, const QString &requestedBranch, ExportDone done)
{
    auto fail = [&done](const QString &error) {
        ExportOutcome o;
        o.error = error;
        done(o);
    };
    const std::optional<SandboxView> view = m_sandboxes.get(sandboxId);
    if (!view)
        return fail(QStringLiteral("unknown sandbox_id %1").arg(sandboxId));
    if (!view->workspace)
        return fail(QStringLiteral("sandbox %1 has no workspace record").arg(sandboxId));
    const Workspace &w = *view->workspace;
    if (w.mode == WorkspaceMode::Managed)
        return fail(QStringLiteral("sandbox %1 works on a managed workspace: there is no host repository to export to. Its files "
                                   "stay in ~/workspace; to bring work to a repository on this computer, ask for that folder "
                                   "with workspace_request (mode clone)")
                        .arg(sandboxId));
    if (w.mode == WorkspaceMode::Direct)
        return fail(QStringLiteral("sandbox %1 works directly on the host folder %2: the changes are already there. "
                                   "show_changes lists them")
                        .arg(sandboxId, w.hostPath));
    QString branch, error;
    if (!branchName(sandboxId, requestedBranch, branch, error))
        return fail(error);
    RunningSandbox running;
    if (!m_sandboxes.resolveRunning(sandboxId, running, error))
        return fail(error);
    exportRunning(running, w, branch, std::move(done));
}

void ChangesService::exportRunning(const RunningSandbox &sandbox, const Workspace &workspace, const QString &branch,
                                   ExportDone done)
{
    QPointer<ChangesService> self(this);
    const QString sandboxId = sandbox.sandboxId;
    const QString repository = workspace.hostPath;
    // Checked before the VM is reached (a sleeping one would start and share the path again) and
    // again before git writes to the repository on the host.
    const auto folderMoved = [self, sandboxId, workspace, branch](ExportOutcome &o) {
        QString why;
        if (self->m_sandboxes.checkHostFolder(sandboxId, workspace, why))
            return false;
        o.error = QStringLiteral("%1, so the sandbox's work was not exported there; nothing was written to it. Put the folder "
                                 "back as it was approved and try again")
                      .arg(why);
        return true;
    };
    {
        ExportOutcome o;
        o.branch = branch;
        o.repository = repository;
        if (folderMoved(o))
            return done(o);
    }
    m_channels.channelFor(sandbox).request(
        QStringLiteral("git_bundle"), {QByteArray::number(kMaxBundleBytes)}, kBundleTimeoutMs,
        [self, sandboxId, repository, branch, done, folderMoved](const ChannelReply &r) {
            if (!self)
                return;
            ExportOutcome o;
            o.branch = branch;
            o.repository = repository;
            if (!r.ok) {
                o.error = QStringLiteral("packing the sandbox's work failed: %1").arg(r.error);
                return done(o);
            }
            const QString tip = r.meta.value(QStringLiteral("tip"));
            const QString base = r.meta.value(QStringLiteral("base"));
            o.base = isCommitId(base) ? base : QString();
            o.uncommitted = r.meta.value(QStringLiteral("uncommitted")) == QLatin1String("1");
            if (r.meta.value(QStringLiteral("nothing")) == QLatin1String("1")) {
                o.ok = true;
                o.nothing = true;
                return done(o);
            }
            if (!isCommitId(tip) || r.data.isEmpty() || r.data.size() > kMaxBundleBytes) {
                o.error = QStringLiteral("the sandbox answered the export in an unexpected shape");
                return done(o);
            }
            o.tip = tip;
            auto dir = std::make_shared<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/chat2sbx-export-XXXXXX"));
            const QString bundle = dir->filePath(QStringLiteral("work.bundle"));
            QFile f(bundle);
            if (!dir->isValid() || !f.open(QIODevice::WriteOnly) || f.write(r.data) != r.data.size() || !f.flush()) {
                o.error = QStringLiteral("cannot write the bundle to a temporary folder: %1").arg(f.errorString());
                return done(o);
            }
            f.close();
            if (folderMoved(o))
                return done(o);
            const QStringList fetch{QStringLiteral("fetch"), QStringLiteral("--quiet"), QStringLiteral("--no-tags"),
                                    QStringLiteral("--no-write-fetch-head"), QStringLiteral("--no-recurse-submodules"),
                                    bundle, QStringLiteral("+refs/chat2sbx/export:refs/heads/") + branch};
            self->m_git.run(repository, fetch, [self, dir, o, done, sandboxId](const HostGitResult &fr) mutable {
                if (!self)
                    return;
                if (!fr.ok) {
                    o.error = QStringLiteral("fetching the work into %1 failed: %2").arg(o.repository, fr.error);
                    return done(o);
                }
                QStringList log{QStringLiteral("log"), QStringLiteral("-z"), QStringLiteral("--format=%H%x09%s"),
                                QStringLiteral("-n"), QString::number(kMaxCommits), o.tip};
                if (!o.base.isEmpty())
                    log << QStringLiteral("^") + o.base;
                self->m_git.run(o.repository, log, [self, o, done, sandboxId](const HostGitResult &lr) mutable {
                    if (!self)
                        return;
                    if (lr.ok) {
                        for (const QByteArray &entry : lr.out.split('\0')) {
                            const QByteArray e = entry.trimmed();
                            const qsizetype tab = e.indexOf('\t');
                            if (tab > 0)
                                o.commits.append({QString::fromLatin1(e.left(tab)), QString::fromUtf8(e.mid(tab + 1, 300))});
                        }
                    }
                    o.ok = true;
                    o.command = o.base.isEmpty() ? QStringLiteral("git log --stat %1").arg(o.branch)
                                                 : QStringLiteral("git log --stat %1..%2").arg(shortId(o.base), o.branch);
                    const QString summary = QStringLiteral("the work of sandbox %1 (%2) is on branch %3 in %4")
                                                .arg(sandboxId, commitCount(int(o.commits.size()), o.uncommitted), o.branch,
                                                     o.repository);
                    qCInfo(lcChanges).noquote() << summary;
                    done(o);
                });
            });
        });
}

void ChangesService::keepBeforeCloudExpiry(const QString &sandboxId)
{
    const std::optional<SandboxView> view = m_sandboxes.get(sandboxId);
    if (!view || !view->record.isCloud() || !view->workspace || view->workspace->mode != WorkspaceMode::Clone)
        return;
    // One export at a time into the branch; a warning meanwhile (an extension moved the end) asks
    // for one more after it, which then holds everything done until then.
    if (m_keeping.contains(sandboxId)) {
        m_keeping[sandboxId] = true;
        return;
    }
    m_keeping.insert(sandboxId, false);
    QPointer<ChangesService> self(this);
    secureWork(*view, [self, sandboxId](const DestroyGuard::Outcome &o) {
        if (o.ok)
            qCInfo(lcChanges).noquote() << "cloud sandbox" << sandboxId << "ends soon:" << o.summary;
        else
            qCWarning(lcChanges).noquote() << "cloud sandbox" << sandboxId << "ends soon and its work could not be saved:" << o.error;
        if (!self)
            return;
        if (self->m_keeping.take(sandboxId))
            self->keepBeforeCloudExpiry(sandboxId);
    });
}

void ChangesService::secureWork(const SandboxView &view, std::function<void(const DestroyGuard::Outcome &)> done)
{
    DestroyGuard::Outcome out;
    // A stopped (sleeping) clone sandbox still holds its work: exporting it starts the VM (sbx exec).
    const bool hasVm = view.record.state == SandboxState::Running || view.record.state == SandboxState::Stopped;
    if (!view.workspace || view.workspace->mode != WorkspaceMode::Clone || !hasVm) {
        out.ok = true;
        return done(out);
    }
    // A cloud clone's channel is `sbx --cloud exec` into ~/workspace; a local one's the mounted clone.
    RunningSandbox running = SandboxRuntimeOps::runningOf(view.record, view.workspace->hostPath, false);
    if (view.record.isCloud() && view.record.state == SandboxState::Stopped) {
        // The cloud runs nothing in a stopped sandbox: it is started again (in the background) first.
        QString why;
        if (!m_sandboxes.resolveRunning(view.record.id, running, why)) {
            out.error = QStringLiteral("its clone's work is in the stopped cloud sandbox and cannot be saved before it runs "
                                       "again (%1). Try again in a minute, or destroy with force to drop that work")
                            .arg(why);
            return done(out);
        }
    }
    QString branch, error;
    branchName(view.record.id, {}, branch, error);
    exportRunning(running, *view.workspace, branch, [done](const ExportOutcome &o) {
        DestroyGuard::Outcome kept;
        if (!o.ok) {
            kept.error = o.error;
            return done(kept);
        }
        kept.ok = true;
        if (o.nothing) {
            kept.summary = QStringLiteral("there was no commit and no change to keep");
            return done(kept);
        }
        kept.branch = o.branch;
        kept.summary = QStringLiteral("its work (%1) was saved first as branch %2 in %3; look at it with `%4`")
                          .arg(commitCount(int(o.commits.size()), o.uncommitted), o.branch, o.repository, o.command);
        done(kept);
    });
}

} // namespace chat2sbx
