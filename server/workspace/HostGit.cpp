#include "workspace/HostGit.h"

#include "core/ChildProcess.h"

namespace chat2sbx {

namespace {

QString firstLine(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes).trimmed();
    const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QString line = lines.isEmpty() ? QString() : lines.first().trimmed();
    // git prints "fatal: ..." / "error: ..."; a hint line is less useful than the error.
    for (const QString &l : lines)
        if (l.startsWith(QLatin1String("fatal:")) || l.startsWith(QLatin1String("error:"))) {
            line = l.trimmed();
            break;
        }
    return line.left(500);
}

} // namespace

HostGit::HostGit(QObject *parent) : QObject(parent) {}

QProcessEnvironment HostGit::environment()
{
    const QProcessEnvironment inherited = QProcessEnvironment::systemEnvironment();
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"), inherited.value(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin")));
    // HOME: the user's git configuration (identity, safe.directory) still applies.
    if (inherited.contains(QStringLiteral("HOME")))
        env.insert(QStringLiteral("HOME"), inherited.value(QStringLiteral("HOME")));
    env.insert(QStringLiteral("LANG"), QStringLiteral("C"));
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    env.insert(QStringLiteral("GIT_TERMINAL_PROMPT"), QStringLiteral("0"));
    env.insert(QStringLiteral("GIT_ASKPASS"), QStringLiteral("/bin/false"));
    env.insert(QStringLiteral("GIT_PAGER"), QStringLiteral("cat"));
    env.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    return env;
}

QStringList HostGit::argv(const QString &repository, const QStringList &args)
{
    QStringList a{QStringLiteral("-C"), repository,
                  QStringLiteral("-c"), QStringLiteral("core.hooksPath=/dev/null"),
                  QStringLiteral("-c"), QStringLiteral("gc.auto=0"),
                  QStringLiteral("-c"), QStringLiteral("maintenance.auto=false"),
                  QStringLiteral("-c"), QStringLiteral("fetch.writeCommitGraph=false"),
                  QStringLiteral("--no-optional-locks")};
    return a + args;
}

void HostGit::run(const QString &repository, const QStringList &args, Callback done)
{
    ChildSpec spec;
    spec.program = m_gitPath;
    spec.arguments = argv(repository, args);
    spec.environment = environment();
    spec.timeoutMs = m_timeoutMs;
    spec.maxOutBytes = kMaxOutputBytes;
    spec.maxErrBytes = 65536;
    const QString what = args.isEmpty() ? QStringLiteral("git") : QStringLiteral("git ") + args.first();
    ChildProcess::run(spec, this, [gitPath = m_gitPath, what, timeoutMs = m_timeoutMs, done](const ChildResult &child) {
        HostGitResult r;
        if (!child.started) {
            r.error = QStringLiteral("cannot run git (%1): %2; is git installed on this computer?").arg(gitPath, child.startError);
        } else if (child.timedOut) {
            r.timedOut = true;
            r.error = QStringLiteral("%1 timed out after %2 s").arg(what).arg(timeoutMs / 1000);
        } else {
            r.exitCode = child.exitCode;
            r.out = child.out;
            const QString reason = firstLine(child.err);
            if (child.crashed)
                r.error = QStringLiteral("%1 crashed").arg(what);
            else if (child.exitCode != 0)
                r.error = QStringLiteral("%1 failed (exit %2)%3").arg(what).arg(child.exitCode).arg(reason.isEmpty() ? QString() : QStringLiteral(": ") + reason);
            else
                r.ok = true;
        }
        if (done)
            done(r);
    });
}

} // namespace chat2sbx
