#include "workspace/PathPolicy.h"

#include "workspace/HostExposure.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace chat2sbx {
namespace {

// Credential stores that a home-like folder holds at its top; `.docker` is left out here because
// repositories legitimately carry a .docker/ folder of build files (it is still refused as a
// component of the path itself).
const QStringList &homeMarkers()
{
    static const QStringList names = {
        QStringLiteral(".ssh"), QStringLiteral(".gnupg"), QStringLiteral(".aws"), QStringLiteral(".azure"),
        QStringLiteral(".kube"), QStringLiteral(".password-store"), QStringLiteral(".netrc"),
        QStringLiteral(".pgpass"), QStringLiteral(".git-credentials"), QStringLiteral(".config/gcloud"),
    };
    return names;
}

QStringList components(const QString &path)
{
    return path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
}

// The first credential component of `path` ("" when none). ".config/gcloud" is matched as a pair.
QString credentialComponent(const QString &path)
{
    const QStringList parts = components(path);
    for (int i = 0; i < parts.size(); ++i) {
        const QString &p = parts.at(i);
        for (const QString &name : PathPolicy::credentialNames()) {
            if (name.contains(QLatin1Char('/'))) {
                const QStringList pair = name.split(QLatin1Char('/'));
                if (i + 1 < parts.size() && p == pair.at(0) && parts.at(i + 1) == pair.at(1))
                    return name;
            } else if (p == name) {
                return name;
            }
        }
    }
    return {};
}

bool isBelowOrAt(const QString &path, const QString &dir)
{
    return path == dir || path.startsWith(dir.endsWith(QLatin1Char('/')) ? dir : dir + QLatin1Char('/'));
}

bool isStrictlyBelow(const QString &path, const QString &dir)
{
    return path != dir && isBelowOrAt(path, dir);
}

// realpath() of a path given as text; empty on failure with errno set.
QByteArray realPath(const QByteArray &path)
{
    char buffer[PATH_MAX + 1];
    if (!::realpath(path.constData(), buffer))
        return {};
    return QByteArray(buffer);
}

QString canonicalOrClean(const QString &path)
{
    const QByteArray real = realPath(QFile::encodeName(path));
    return real.isEmpty() ? QDir::cleanPath(path) : QString::fromUtf8(real);
}

bool isCleanUtf8(const QString &text)
{
    if (text.contains(QChar::ReplacementCharacter))
        return false;
    return QString::fromUtf8(text.toUtf8()) == text;
}

bool hasControlCharacters(const QString &text)
{
    for (const QChar c : text) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            return true;
    }
    return false;
}

QString realpathFailure(const QString &path, int err)
{
    switch (err) {
    case ENOENT: return QStringLiteral("%1 does not exist").arg(path);
    case ENOTDIR: return QStringLiteral("%1 is not a directory (a component of it is a file)").arg(path);
    case EACCES: return QStringLiteral("%1 cannot be read: permission denied").arg(path);
    case ELOOP: return QStringLiteral("%1 has too many levels of symbolic links").arg(path);
    case ENAMETOOLONG: return QStringLiteral("%1 is too long").arg(path);
    default: return QStringLiteral("%1 cannot be resolved: %2").arg(path, QString::fromLocal8Bit(std::strerror(err)));
    }
}

// Closes a descriptor when it goes out of scope.
struct Fd {
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

bool entryExists(int dirFd, const QString &relative, bool dirOrFileOnly = false)
{
    struct stat st {};
    if (::fstatat(dirFd, QFile::encodeName(relative).constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return false;
    return !dirOrFileOnly || S_ISDIR(st.st_mode) || S_ISREG(st.st_mode);
}

} // namespace

const QStringList &PathPolicy::credentialNames()
{
    static const QStringList names = {
        QStringLiteral(".ssh"), QStringLiteral(".gnupg"), QStringLiteral(".aws"), QStringLiteral(".azure"),
        QStringLiteral(".kube"), QStringLiteral(".docker"), QStringLiteral(".config/gcloud"),
        QStringLiteral(".password-store"), QStringLiteral(".netrc"), QStringLiteral(".pgpass"),
        QStringLiteral(".git-credentials"),
    };
    return names;
}

PathPolicy::PathPolicy(const QStringList &allowedRoots, const QStringList &protectedPaths)
    : m_home(QDir::homePath())
{
    for (const QString &root : allowedRoots) {
        if (root.trimmed().isEmpty())
            continue;
        // A root that does not exist cannot contain anything; it still counts as configured.
        const QString canonical = canonicalOrClean(root);
        if (!m_roots.contains(canonical))
            m_roots << canonical;
    }
    for (const QString &p : protectedPaths) {
        if (!p.trimmed().isEmpty())
            m_protected << canonicalOrClean(p);
    }
}

PathCheck PathPolicy::check(const QString &requested, WorkspaceMode mode) const
{
    if (mode == WorkspaceMode::Managed)
        return PathCheck::refused(QStringLiteral("managed workspaces are created by chat2sbx and take no host path"));
    if (m_roots.isEmpty())
        return PathCheck::refused(QStringLiteral(
            "host workspaces are disabled: set CHAT2SBX_ALLOWED_HOST_ROOTS to the folders (colon-separated) "
            "below which host directories may be used"));
    if (requested.isEmpty())
        return PathCheck::refused(QStringLiteral("host_path is empty"));
    if (!isCleanUtf8(requested))
        return PathCheck::refused(QStringLiteral("the path is not valid UTF-8"));
    if (hasControlCharacters(requested))
        return PathCheck::refused(QStringLiteral("the path contains control characters"));
    const QByteArray bytes = requested.toUtf8();
    if (bytes.size() > kMaxPathBytes)
        return PathCheck::refused(QStringLiteral("the path is too long (%1 bytes; at most %2)").arg(bytes.size()).arg(kMaxPathBytes));
    if (!requested.startsWith(QLatin1Char('/')))
        return PathCheck::refused(QStringLiteral("%1 is not an absolute path").arg(requested));
    for (const QString &part : components(requested)) {
        if (part.toUtf8().size() > kMaxComponentBytes)
            return PathCheck::refused(QStringLiteral("a component of the path is longer than %1 bytes").arg(kMaxComponentBytes));
        if (part == QLatin1String(".") || part == QLatin1String(".."))
            return PathCheck::refused(QStringLiteral("%1 contains a '%2' component; give the plain absolute path").arg(requested, part));
    }
    const QString lexicalCredential = credentialComponent(requested);
    if (!lexicalCredential.isEmpty())
        return PathCheck::refused(QStringLiteral("%1 is refused: it goes through the credential folder %2").arg(requested, lexicalCredential));

    errno = 0;
    const QByteArray real = realPath(bytes);
    if (real.isEmpty())
        return PathCheck::refused(realpathFailure(requested, errno));
    const QString canonical = QString::fromUtf8(real);
    if (!isCleanUtf8(canonical) || canonical.toUtf8() != real)
        return PathCheck::refused(QStringLiteral("%1 resolves to a name that is not valid UTF-8").arg(requested));
    if (real.size() > kMaxPathBytes)
        return PathCheck::refused(QStringLiteral("%1 resolves to a path longer than %2 bytes").arg(requested).arg(kMaxPathBytes));

    for (const QString &root : m_roots) {
        if (canonical == root)
            return PathCheck::refused(QStringLiteral("%1 is an allowed root itself; choose a folder below it").arg(requested));
    }
    for (const QString &p : m_protected) {
        if (isBelowOrAt(canonical, p))
            return PathCheck::refused(QStringLiteral("the path is inside chat2sbx's own data directory"));
        if (isStrictlyBelow(p, canonical))
            return PathCheck::refused(QStringLiteral("%1 contains chat2sbx's own data directory").arg(requested));
    }
    const QString ownRoot = containingRoot(canonical);
    if (ownRoot.isEmpty()) {
        bool lexicallyBelow = false;
        for (const QString &root : m_roots)
            lexicallyBelow = lexicallyBelow || isStrictlyBelow(requested, root);
        if (lexicallyBelow)
            return PathCheck::refused(QStringLiteral("%1 leads outside the allowed roots through a symbolic link").arg(requested));
        return PathCheck::refused(QStringLiteral("%1 is not below an allowed root (allowed: %2)")
                                      .arg(requested, m_roots.join(QStringLiteral(", "))));
    }

    const QString canonicalCredential = credentialComponent(canonical);
    if (!canonicalCredential.isEmpty())
        return PathCheck::refused(QStringLiteral("%1 is refused: it resolves into the credential folder %2").arg(requested, canonicalCredential));

    // Pin the directory: open it without following a final symlink, then ask the kernel where the
    // descriptor really is. A swap of the directory, or of a parent for a symlink, after realpath
    // shows up as a different path here.
    Fd dir;
    dir.fd = ::open(real.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir.fd < 0) {
        const int err = errno;
        if (err == ENOTDIR)
            return PathCheck::refused(QStringLiteral("%1 is not a directory").arg(requested));
        if (err == ELOOP)
            return PathCheck::refused(QStringLiteral("%1 changed while it was being checked (it is now a symbolic link)").arg(requested));
        return PathCheck::refused(QStringLiteral("%1 cannot be opened: %2").arg(requested, QString::fromLocal8Bit(std::strerror(err))));
    }
    struct stat st {};
    if (::fstat(dir.fd, &st) != 0 || !S_ISDIR(st.st_mode))
        return PathCheck::refused(QStringLiteral("%1 is not a directory").arg(requested));
    char linkTarget[PATH_MAX + 1];
    const QByteArray procPath = "/proc/self/fd/" + QByteArray::number(dir.fd);
    const ssize_t n = ::readlink(procPath.constData(), linkTarget, PATH_MAX);
    if (n >= 0) {
        if (QByteArray(linkTarget, static_cast<int>(n)) != real)
            return PathCheck::refused(QStringLiteral("%1 changed while it was being checked").arg(requested));
    } else {
        struct stat again {};
        if (::stat(real.constData(), &again) != 0 || again.st_dev != st.st_dev || again.st_ino != st.st_ino)
            return PathCheck::refused(QStringLiteral("%1 changed while it was being checked").arg(requested));
    }

    for (const QString &marker : homeMarkers()) {
        if (entryExists(dir.fd, marker))
            return PathCheck::refused(QStringLiteral("%1 looks like a home directory (it contains %2); choose a project folder inside it")
                                          .arg(requested, marker));
    }
    const QString exposure = exposureRefusal(requested, canonical, ownRoot, m_mounts ? m_mounts : readOwnMountTable(),
                                             guardedFolders(m_home, credentialNames(), m_protected));
    if (!exposure.isEmpty())
        return PathCheck::refused(exposure);
    if (mode == WorkspaceMode::Clone) {
        // sbx --clone makes a git clone of the checked-out commit from the top of a repository; a
        // linked worktree (whose .git is a file pointing elsewhere) is refused by sbx itself.
        struct stat gitSt {};
        const bool hasGit = ::fstatat(dir.fd, ".git", &gitSt, AT_SYMLINK_NOFOLLOW) == 0;
        if (hasGit && S_ISREG(gitSt.st_mode))
            return PathCheck::refused(QStringLiteral("%1 is a linked git worktree (its .git is a file), and sbx clone mode "
                                                     "refuses worktrees; give the repository's main checkout, or use mode "
                                                     "direct to work in this folder itself")
                                          .arg(requested));
        if (!hasGit || !S_ISDIR(gitSt.st_mode))
            return PathCheck::refused(QStringLiteral("clone mode needs a git repository, but %1 has no .git at its top; "
                                                     "give the repository's top folder or use mode direct")
                                          .arg(requested));
    }

    PathCheck ok;
    ok.ok = true;
    ok.directory.canonicalPath = canonical;
    ok.directory.device = static_cast<qint64>(st.st_dev);
    ok.directory.inode = static_cast<qint64>(st.st_ino);
    return ok;
}

QString PathPolicy::containingRoot(const QString &canonical) const
{
    QString innermost;
    for (const QString &root : m_roots) {
        if (isStrictlyBelow(canonical, root) && root.size() > innermost.size())
            innermost = root;
    }
    return innermost;
}

PathCheck PathPolicy::revalidate(const HostDirectory &recorded, WorkspaceMode mode) const
{
    PathCheck now = check(recorded.canonicalPath, mode);
    if (!now.ok)
        return now;
    if (now.directory.canonicalPath != recorded.canonicalPath)
        return PathCheck::refused(QStringLiteral("%1 now resolves elsewhere; it was replaced after it was checked")
                                      .arg(recorded.canonicalPath));
    const bool identityKnown = recorded.device != 0 || recorded.inode != 0;
    if (identityKnown && (now.directory.device != recorded.device || now.directory.inode != recorded.inode))
        return PathCheck::refused(QStringLiteral("%1 was replaced after it was checked (it is no longer the same directory)")
                                      .arg(recorded.canonicalPath));
    return now;
}

} // namespace chat2sbx
