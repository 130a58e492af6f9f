#include "tunnel/TunnelClientProcess.h"

#include "core/ChildProcess.h"

#include <QLoggingCategory>
#include <QProcess>

#include <csignal>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcTunnelProcess, "chat2sbx.tunnel")

constexpr qint64 kMaxOutputBuffer = 64 * 1024;
} // namespace

TunnelClientProcess::TunnelClientProcess(QObject *parent) : QObject(parent)
{
    m_killTimer.setSingleShot(true);
    m_killTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (!isRunning())
            return;
        qCWarning(lcTunnelProcess).noquote() << QStringLiteral("tunnel-client (PID %1) did not exit within %2 ms of SIGTERM; sending SIGKILL")
                                                    .arg(m_process->processId()).arg(m_killTimer.interval());
        m_process->kill();
    });
}

TunnelClientProcess::~TunnelClientProcess()
{
    // Normally the supervisor's stop() has reaped the child. If not (torn down abruptly), kill it
    // rather than leave it behind; QProcess's destructor then reaps the killed child.
    if (m_process) {
        m_process->disconnect(this);
        if (m_process->state() != QProcess::NotRunning)
            m_process->kill();
    }
}

QString TunnelClientProcess::mask(QString text) const
{
    for (const QString &secret : m_secrets)
        if (!secret.isEmpty())
            text.replace(secret, QStringLiteral("***"));
    return text;
}

bool TunnelClientProcess::isRunning() const
{
    return m_process && m_process->state() == QProcess::Running;
}

qint64 TunnelClientProcess::pid() const
{
    return m_process ? m_process->processId() : 0;
}

void TunnelClientProcess::launch(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment)
{
    if (m_process)
        return;
    m_program = program;
    m_buffer.clear();
    m_terminating = false;
    m_process = new QProcess(this);
    m_process->setProgram(program);
    m_process->setArguments(arguments);
    m_process->setProcessEnvironment(environment);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardInputFile(QProcess::nullDevice());
    // If chat2sbx dies without stopping it (kill -9), the kernel sends the client SIGTERM.
    ChildProcess::endWithServer(*m_process, SIGTERM);
    QProcess *process = m_process;
    connect(process, &QProcess::readyReadStandardOutput, this, &TunnelClientProcess::readOutput);
    connect(process, &QProcess::started, this, [this, process] {
        if (process != m_process)
            return;
        if (m_terminating)   // stopped before it ran
            process->terminate();
        emit started(process->processId());
    });
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus status) {
        if (process != m_process)
            return;
        end(status == QProcess::CrashExit ? QStringLiteral("tunnel-client was killed or crashed (exit code %1)").arg(exitCode)
                                          : QStringLiteral("tunnel-client exited with code %1").arg(exitCode));
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (process != m_process || error != QProcess::FailedToStart)
            return;
        end(QStringLiteral("cannot start %1: %2").arg(process->program(), process->errorString()));
    });
    process->start();
}

void TunnelClientProcess::terminate(int graceMs)
{
    if (!m_process)
        return;
    m_terminating = true;
    if (m_process->state() == QProcess::Running)
        m_process->terminate();
    m_killTimer.start(graceMs);
}

void TunnelClientProcess::readOutput()
{
    if (!m_process)
        return;
    m_buffer += m_process->readAllStandardOutput();
    QList<TunnelClientLine> lines;
    qsizetype newline;
    while ((newline = m_buffer.indexOf('\n')) >= 0) {
        const QString raw = mask(QString::fromUtf8(m_buffer.left(newline)).trimmed());
        m_buffer.remove(0, newline + 1);
        if (raw.isEmpty())
            continue;
        TunnelClientLine line = TunnelClientLine::parse(raw.left(4 * kMaxLineChars));
        line.text = line.text.left(kMaxLineChars);
        qCInfo(lcTunnelProcess).noquote() << "tunnel-client:" << line.text;
        lines.append(line);
    }
    if (m_buffer.size() > kMaxOutputBuffer)
        m_buffer.clear();   // a client writing one endless line: drop it rather than grow
    if (!lines.isEmpty())
        emit linesRead(lines);
}

void TunnelClientProcess::end(const QString &why)
{
    readOutput();
    QProcess *process = m_process;
    m_process = nullptr;
    m_killTimer.stop();
    process->disconnect(this);
    process->deleteLater();
    emit finished(why);
}

} // namespace chat2sbx
