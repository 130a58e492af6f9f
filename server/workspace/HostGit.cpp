#include "workspace/HostGit.h"

#include <QProcess>
#include <QTimer>

#include <memory>

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
    auto *proc = new QProcess(this);
    auto *timer = new QTimer(proc);
    auto finished = std::make_shared<bool>(false);
    auto out = std::make_shared<QByteArray>();
    const QString what = args.isEmpty() ? QStringLiteral("git") : QStringLiteral("git ") + args.first();
    auto report = [proc, finished, done](const HostGitResult &r) {
        if (*finished)
            return;
        *finished = true;
        if (proc->state() == QProcess::NotRunning) {
            proc->deleteLater();
        } else {
            // Deleting a running QProcess blocks: kill it and let it go once reaped.
            QObject::connect(proc, &QProcess::finished, proc, &QObject::deleteLater);
            proc->kill();
        }
        if (done)
            done(r);
    };

    proc->setProgram(m_gitPath);
    proc->setArguments(argv(repository, args));
    proc->setProcessEnvironment(environment());
    proc->setStandardInputFile(QProcess::nullDevice());
    connect(proc, &QProcess::readyReadStandardOutput, proc, [proc, out] {
        const QByteArray chunk = proc->readAllStandardOutput();
        if (out->size() < kMaxOutputBytes)
            out->append(chunk.left(kMaxOutputBytes - out->size()));
    });
    auto err = std::make_shared<QByteArray>();
    connect(proc, &QProcess::readyReadStandardError, proc, [proc, err] {
        const QByteArray chunk = proc->readAllStandardError();
        if (err->size() < 65536)
            err->append(chunk.left(65536 - err->size()));
    });
    timer->setSingleShot(true);
    const int timeoutMs = m_timeoutMs;
    connect(timer, &QTimer::timeout, proc, [report, what, timeoutMs] {
        HostGitResult r;
        r.timedOut = true;
        r.error = QStringLiteral("%1 timed out after %2 s").arg(what).arg(timeoutMs / 1000);
        report(r);
    });
    connect(proc, &QProcess::errorOccurred, proc, [this, proc, report](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        HostGitResult r;
        r.error = QStringLiteral("cannot run git (%1): %2; is git installed on this computer?").arg(m_gitPath, proc->errorString());
        QMetaObject::invokeMethod(proc, [report, r] { report(r); }, Qt::QueuedConnection);
    });
    connect(proc, &QProcess::finished, proc, [proc, report, what, out, err](int code, QProcess::ExitStatus status) {
        const QByteArray rest = proc->readAllStandardOutput();
        if (out->size() < kMaxOutputBytes)
            out->append(rest.left(kMaxOutputBytes - out->size()));
        HostGitResult r;
        r.exitCode = code;
        r.out = *out;
        err->append(proc->readAllStandardError().left(65536));
        const QString reason = firstLine(*err);
        if (status == QProcess::CrashExit)
            r.error = QStringLiteral("%1 crashed").arg(what);
        else if (code != 0)
            r.error = QStringLiteral("%1 failed (exit %2)%3").arg(what).arg(code).arg(reason.isEmpty() ? QString() : QStringLiteral(": ") + reason);
        else
            r.ok = true;
        report(r);
    });
    timer->start(m_timeoutMs);
    proc->start();
}

} // namespace chat2sbx
