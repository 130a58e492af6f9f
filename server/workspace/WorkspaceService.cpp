#include "workspace/WorkspaceService.h"

#include "config/ConfigFile.h"

#include "workspace/FolderSwapWatch.h"

#include "core/Clock.h"
#include "core/Ids.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace chat2sbx {

WorkspaceService::WorkspaceService(const Config &config, Database &db, Clock &clock, QObject *parent)
    : QObject(parent), m_config(config), m_db(db), m_clock(clock), m_repo(db)
{
}

std::optional<Workspace> WorkspaceService::createManaged(QString &error, bool makeFolder)
{
    if (!QDir().mkpath(m_config.workspaceRoot)) {
        error = QStringLiteral("cannot create the managed workspace root");
        return std::nullopt;
    }
    ::chmod(QFile::encodeName(m_config.workspaceRoot).constData(), 0700);
    Workspace w;
    w.id = newId("ws_");
    w.mode = WorkspaceMode::Managed;
    w.hostPath = m_config.workspaceRoot + QLatin1Char('/') + w.id;
    w.displayName = QStringLiteral("managed workspace %1").arg(w.id);
    w.createdAt = w.lastUsedAt = m_clock.nowMs();
    // Record first, then create the folder: a crash in between leaves a record whose folder the
    // next use recreates, never an unrecorded folder.
    if (!m_repo.insert(w, error))
        return std::nullopt;
    if (makeFolder && ::mkdir(QFile::encodeName(w.hostPath).constData(), 0700) != 0 && errno != EEXIST) {
        error = QStringLiteral("cannot create managed workspace %1: %2").arg(w.id, QString::fromLocal8Bit(strerror(errno)));
        return std::nullopt;
    }
    emit workspacesChanged();
    return w;
}

std::optional<Workspace> WorkspaceService::find(const QString &id) const
{
    return m_repo.find(id);
}

QList<Workspace> WorkspaceService::list() const
{
    return m_repo.list();
}

qint64 WorkspaceService::retentionMs() const
{
    return static_cast<qint64>(m_config.workspaceRetentionDays) * 24 * 3600 * 1000;
}

QList<WorkspaceOverview> WorkspaceService::overview() const
{
    const QHash<QString, QString> active = m_repo.activeSandboxes();
    const QHash<QString, qint64> ends = m_repo.lastSandboxEnds();
    QList<WorkspaceOverview> out;
    for (const Workspace &w : m_repo.list()) {
        WorkspaceOverview o;
        o.workspace = w;
        o.activeSandboxId = active.value(w.id);
        if (w.isManaged() && o.activeSandboxId.isEmpty())
            o.retentionDeadline = qMax(w.lastUsedAt, ends.value(w.id, 0)) + retentionMs();
        out.append(o);
    }
    return out;
}

void WorkspaceService::touch(const QString &id)
{
    QString ignored;
    m_repo.touch(id, m_clock.nowMs(), ignored);
}

namespace {
QStringList protectedPathsOf(const Config &config)
{
    QStringList paths = {config.dataRoot, config.stateDir, config.workspaceRoot, config.secretDir};
    if (!config.databasePath.isEmpty())
        paths << QFileInfo(config.databasePath).path();
    return paths;
}
} // namespace

PathPolicy WorkspaceService::policy() const
{
    return PathPolicy(allowedHostRoots(), protectedPathsOf(m_config));
}

QStringList WorkspaceService::allowedHostRoots() const
{
    QStringList roots = m_config.allowedHostRoots;
    for (const QString &r : m_addedRoots)
        if (!roots.contains(r))
            roots << r;
    return roots;
}

bool WorkspaceService::addAllowedHostRoot(const QString &dir, QString &canonical, QString &error)
{
    const QFileInfo info(dir);
    if (!QDir::isAbsolutePath(dir) || !info.isDir()) {
        error = QStringLiteral("%1 is not a folder").arg(dir);
        return false;
    }
    canonical = info.canonicalFilePath();
    if (canonical == QLatin1String("/")) {
        error = QStringLiteral("the whole disk cannot be a host folder: choose the folder your projects are in");
        return false;
    }
    for (const QString &p : protectedPathsOf(m_config)) {
        const QString own = QFileInfo(p).exists() ? QFileInfo(p).canonicalFilePath() : QDir::cleanPath(p);
        if (!own.isEmpty() && (canonical == own || canonical.startsWith(own + QLatin1Char('/')))) {
            error = QStringLiteral("%1 is one of chat2sbx's own folders (%2): choose another").arg(canonical, own);
            return false;
        }
    }
    if (allowedHostRoots().contains(canonical))
        return true;
    if (!ConfigFile::appendToList(m_config.configFilePath, QStringLiteral("allowedHostRoots"), canonical, error))
        return false;
    m_addedRoots << canonical;
    emit workspacesChanged();
    return true;
}

std::optional<Workspace> WorkspaceService::registerHost(const QString &path, WorkspaceMode mode, QString &error)
{
    const PathCheck check = policy().check(path, mode);
    if (!check.ok) {
        error = check.reason;
        return std::nullopt;
    }
    return registerHostDirectory(check.directory, mode, error);
}

std::optional<Workspace> WorkspaceService::registerHostDirectory(const HostDirectory &dir, WorkspaceMode mode, QString &error)
{
    if (mode == WorkspaceMode::Managed || dir.canonicalPath.isEmpty()) {
        error = QStringLiteral("a host workspace needs a checked host directory and mode clone or direct");
        return std::nullopt;
    }
    if (std::optional<Workspace> existing = m_repo.findHost(dir.canonicalPath, mode)) {
        // The local user registers this path again: the directory now there is the one they mean.
        if (existing->hostDevice != dir.device || existing->hostInode != dir.inode) {
            if (!m_repo.updateHostIdentity(existing->id, dir.device, dir.inode, error))
                return std::nullopt;
            existing->hostDevice = dir.device;
            existing->hostInode = dir.inode;
            emit workspacesChanged();
        }
        return existing;
    }
    Workspace w;
    w.id = newId("ws_");
    w.mode = mode;
    w.hostPath = dir.canonicalPath;
    w.displayName = QFileInfo(dir.canonicalPath).fileName();
    w.createdAt = w.lastUsedAt = m_clock.nowMs();
    w.hostDevice = dir.device;
    w.hostInode = dir.inode;
    if (!m_repo.insert(w, error))
        return std::nullopt;
    emit workspacesChanged();
    return w;
}

bool WorkspaceService::checkBeforeUse(const Workspace &w, QString &error) const
{
    if (w.revokedAt != 0) {
        error = QStringLiteral("access to %1 (workspace %2) was revoked by the user at %3; ask for it again with "
                               "workspace_request, the user has to approve it again")
                    .arg(w.hostPath, w.id, isoTime(w.revokedAt));
        return false;
    }
    if (w.trashedAt != 0) {
        error = QStringLiteral("workspace %1 was moved to the trash after %2 days without a sandbox")
                    .arg(w.id).arg(m_config.workspaceRetentionDays);
        return false;
    }
    if (w.isManaged()) {
        if (!QDir().mkpath(m_config.workspaceRoot)
            || (::mkdir(QFile::encodeName(w.hostPath).constData(), 0700) != 0 && errno != EEXIST)) {
            error = QStringLiteral("cannot create the folder of managed workspace %1").arg(w.id);
            return false;
        }
        return true;
    }
    const PathCheck check = policy().revalidate({w.hostPath, w.hostDevice, w.hostInode}, w.mode);
    if (!check.ok) {
        error = QStringLiteral("workspace %1 cannot be used: %2").arg(w.id, check.reason);
        return false;
    }
    return true;
}

std::optional<Workspace> WorkspaceService::findHost(const QString &canonicalPath, WorkspaceMode mode) const
{
    return m_repo.findHost(canonicalPath, mode);
}

QString WorkspaceService::forgetUnusedManaged(const QString &id, QString &error)
{
    const std::optional<Workspace> w = m_repo.find(id);
    if (!w || !w->isManaged() || !m_repo.removeUnusedManaged(id, error))
        return {};
    return w->hostPath;
}

bool WorkspaceService::recordTrashed(const QString &id, const QString &trashPath, qint64 nowMs, QString &error)
{
    return m_repo.moveToTrash(id, trashPath, nowMs, error);
}

bool WorkspaceService::recordRevoked(const QString &id, qint64 nowMs, QString &error)
{
    return m_repo.markRevoked(id, nowMs, error);
}

} // namespace chat2sbx

namespace chat2sbx {

std::shared_ptr<FolderSwapWatch> WorkspaceService::watchForMount(const Workspace &w) const
{
    if (w.isManaged())
        return nullptr;
    auto watch = std::make_shared<FolderSwapWatch>();
    const QString root = policy().containingRoot(w.hostPath);
    QString ignored;   // a failure to arm shows up in changed()
    if (!root.isEmpty())
        watch->arm(root, w.hostPath, ignored);
    return watch;
}

bool WorkspaceService::checkAfterCreate(const Workspace &w, FolderSwapWatch *watch, QString &error) const
{
    if (w.isManaged())
        return true;
    QString what;
    if (watch && watch->changed(what)) {
        error = QStringLiteral("the host folder %1 changed while the sandbox was being created (%2), so the sandbox may "
                               "have been given another folder; it was removed before anything ran in it. Check the "
                               "folder and call sandbox_create again")
                    .arg(w.hostPath, what);
        return false;
    }
    QString why;
    if (!checkBeforeUse(w, why)) {
        error = QStringLiteral("the host folder %1 is no longer the approved one after the sandbox was created (%2); the "
                               "sandbox was removed before anything ran in it")
                    .arg(w.hostPath, why);
        return false;
    }
    return true;
}

} // namespace chat2sbx
