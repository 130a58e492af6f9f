#include "SandboxProcesses.h"

#include <QDirIterator>
#include <QFile>

namespace chat2sbx::test {

QByteArray procFile(const QString &pid, const char *name)
{
    QFile f(QStringLiteral("/proc/%1/%2").arg(pid, QLatin1String(name)));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool isGone(const QString &pid)
{
    const QByteArray stat = procFile(pid, "stat");
    if (stat.isEmpty())
        return true;
    const qsizetype close = stat.lastIndexOf(')');
    return close > 0 && stat.mid(close + 2, 1) == "Z";
}

namespace {

// The watchers of bash sessions: detached subshells of the helper script that belong to their
// session, not to the helper that started them.
QStringList sessionWatchers(const QString &home)
{
    QStringList pids;
    // Each session's files are <sessions>/<id>.<name> (a directory <id>/ for an older helper's).
    QDirIterator it(home + QStringLiteral("/sessions"), {QStringLiteral("*.watcher.pid"), QStringLiteral("watcher.pid")},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly))
            pids << QString::fromLatin1(f.readLine()).trimmed();
    }
    return pids;
}

} // namespace

QStringList helperProcesses(const QString &runtimeName)
{
    const QByteArray marker = "sandboxes/" + runtimeName.toUtf8() + "/home/.chat2sbx/helper.sh";
    QStringList pids;
    QString stateDir;   // <...>/home/.chat2sbx, from the script path on a command line
    QDirIterator it(QStringLiteral("/proc"));
    while (it.hasNext()) {
        it.next();
        const QString pid = it.fileName();
        bool numeric = false;
        pid.toInt(&numeric);
        if (!numeric)
            continue;
        for (const QByteArray &arg : procFile(pid, "cmdline").split('\0')) {
            if (arg.endsWith(marker) && !isGone(pid)) {
                pids << pid;
                stateDir = QString::fromUtf8(arg.chopped(int(qstrlen("/helper.sh"))));
                break;
            }
        }
    }
    if (stateDir.isEmpty())
        return pids;
    const QStringList watchers = sessionWatchers(stateDir);
    QStringList result;
    for (const QString &pid : pids)
        if (!watchers.contains(pid))
            result << pid;
    return result;
}

} // namespace chat2sbx::test
