#include "FsOps.h"

#include <QDir>
#include <QFileInfo>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include <string>

namespace fakesbx {

void closeDescriptorsFrom(int first)
{
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0U) == 0)
        return;
#endif
    std::vector<int> fds;
    if (DIR *dir = ::opendir("/proc/self/fd")) {
        while (struct dirent *e = ::readdir(dir)) {
            const int fd = std::atoi(e->d_name);
            if (fd >= first && fd != ::dirfd(dir))
                fds.push_back(fd);
        }
        ::closedir(dir);
    }
    for (int fd : fds)
        ::close(fd);
}

int runAndWait(const QStringList &argv, QString *stderrText)
{
    if (argv.isEmpty())
        return 127;
    std::vector<std::string> storage;
    for (const QString &a : argv)
        storage.push_back(a.toLocal8Bit().toStdString());
    std::vector<char *> cargv;
    for (std::string &s : storage)
        cargv.push_back(s.data());
    cargv.push_back(nullptr);

    int errPipe[2];
    if (::pipe2(errPipe, O_CLOEXEC) != 0)
        return 127;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(errPipe[0]);
        ::close(errPipe[1]);
        return 127;
    }
    if (pid == 0) {
        const int devNull = ::open("/dev/null", O_RDWR);
        ::dup2(devNull, 0);
        ::dup2(devNull, 1);
        ::dup2(errPipe[1], 2);
        closeDescriptorsFrom(3);
        ::execvp(cargv[0], cargv.data());
        ::_exit(127);
    }
    ::close(errPipe[1]);
    QByteArray captured;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(errPipe[0], buf, sizeof buf);
        if (n > 0) {
            if (captured.size() < 4096)
                captured.append(buf, static_cast<qsizetype>(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(errPipe[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return 127;
    }
    if (stderrText)
        *stderrText = QString::fromLocal8Bit(captured.left(4096)).trimmed();
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 127;
}

bool copyTreeContents(const QString &from, const QString &to, QString *error)
{
    if (!QDir().mkpath(to)) {
        *error = QStringLiteral("cannot create %1").arg(to);
        return false;
    }
    QString err;
    const int rc = runAndWait({QStringLiteral("cp"), QStringLiteral("-a"), from + QStringLiteral("/."),
                               to + QLatin1Char('/')},
                              &err);
    if (rc != 0) {
        *error = QStringLiteral("copying %1 failed (cp exit %2): %3").arg(from).arg(rc).arg(err);
        return false;
    }
    return true;
}

namespace {

int makeDirWritable(const char *path, const struct stat *sb, int type, struct FTW *)
{
    if (type == FTW_D && (sb->st_mode & S_IRWXU) != S_IRWXU)
        ::chmod(path, sb->st_mode | S_IRWXU);
    return 0;
}

int removeEntry(const char *path, const struct stat *, int type, struct FTW *)
{
    const int rc = (type == FTW_DP) ? ::rmdir(path) : ::unlink(path);
    return (rc == 0 || errno == ENOENT) ? 0 : -1;
}

} // namespace

bool removeTree(const QString &path, QString *error)
{
    const QByteArray p = path.toLocal8Bit();
    struct stat st;
    if (::lstat(p.constData(), &st) != 0)
        return errno == ENOENT;
    // Pre-order pass so that every directory can be listed and emptied in the second pass.
    ::nftw(p.constData(), makeDirWritable, 32, FTW_PHYS | FTW_MOUNT);
    if (::nftw(p.constData(), removeEntry, 32, FTW_PHYS | FTW_DEPTH | FTW_MOUNT) != 0) {
        *error = QStringLiteral("cannot delete %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

} // namespace fakesbx
