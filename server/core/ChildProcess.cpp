#include "core/ChildProcess.h"

#include <QProcess>

#include <algorithm>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace chat2sbx {
namespace {

void appendUpTo(QByteArray &into, const QByteArray &chunk, qsizetype cap, bool &truncated)
{
    const qsizetype room = std::max<qsizetype>(0, cap - into.size());
    if (chunk.size() > room)
        truncated = true;
    into.append(chunk.left(room));
}

} // namespace

void ChildProcess::run(const ChildSpec &spec, QObject *context, Done done)
{
    auto *child = new ChildProcess(spec, std::move(done), context);
    child->start(spec);
}

// Runs in the child between fork and exec (async-signal-safe calls only, nothing written but its
// own stack: it may share the server's memory): after a kill -9 of the server no `sbx create` goes
// on creating a runtime the server will never hear of.
void ChildProcess::endWithServer(QProcess &process, int signal)
{
    const pid_t server = ::getpid();
    process.setChildProcessModifier([server, signal] {
        ::prctl(PR_SET_PDEATHSIG, signal);
        if (::getppid() != server)   // the server died before prctl took effect
            ::_exit(127);
    });
#if QT_VERSION >= QT_VERSION_CHECK(6, 7, 0)
    // Given a modifier, Qt 6.7 and newer fork instead of vfork, and that fork holds the child in a
    // read until the parent has recorded it: a server killed in that moment leaves the child there
    // for good, holding every descriptor the server had (its lock, its listening socket), so no
    // server starts again. vfork has no such moment, and the modifier above is safe in it.
    process.setUnixProcessParameters(QProcess::UnixProcessFlag::UseVFork);
#endif
}

ChildProcess::ChildProcess(const ChildSpec &spec, Done done, QObject *context)
    : QObject(context), m_process(new QProcess(this)), m_done(std::move(done)), m_maxOut(spec.maxOutBytes),
      m_maxErr(spec.maxErrBytes), m_mergeOutput(spec.mergeOutput)
{
}

// Destroyed with its context while the child runs: the child is killed and `done` is not called
// (whoever it would tell is going away). The QProcess goes once the child is reaped, from the event
// loop: deleting a running QProcess would wait for it.
ChildProcess::~ChildProcess()
{
    if (m_process->state() == QProcess::NotRunning)
        return;
    QProcess *proc = m_process;
    proc->disconnect(this);
    proc->setParent(nullptr);
    QObject::connect(proc, &QProcess::finished, proc, &QObject::deleteLater);
    QObject::connect(proc, &QProcess::errorOccurred, proc, [proc](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            proc->deleteLater();
    });
    proc->kill();
}

void ChildProcess::start(const ChildSpec &spec)
{
    QProcess *proc = m_process;
    proc->setProgram(spec.program);
    proc->setArguments(spec.arguments);
    // An environment "inheriting from the parent" would let the server's whole environment through.
    proc->setProcessEnvironment(spec.environment.inheritsFromParent() ? QProcessEnvironment() : spec.environment);
    if (spec.mergeOutput)
        proc->setProcessChannelMode(QProcess::MergedChannels);
    if (spec.input.isEmpty())
        proc->setStandardInputFile(QProcess::nullDevice());
    if (spec.endsWithServer)
        endWithServer(*proc);
    connect(proc, &QProcess::readyReadStandardOutput, this, &ChildProcess::readOutput);
    connect(proc, &QProcess::readyReadStandardError, this, &ChildProcess::readOutput);
    connect(proc, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        onFinished(exitCode, status == QProcess::CrashExit);
    });
    connect(proc, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart || m_reported)
            return;
        m_result.startError = m_process->errorString();
        m_timer.stop();
        // start() reports this synchronously; `done` runs from the event loop, always.
        QMetaObject::invokeMethod(this, &ChildProcess::report, Qt::QueuedConnection);
    });
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        readOutput();
        m_result.timedOut = true;
        report();
    });
    m_timer.start(spec.timeoutMs);
    proc->start();
    if (!spec.input.isEmpty() && proc->state() != QProcess::NotRunning) {
        proc->write(spec.input);
        proc->closeWriteChannel();
    }
}

void ChildProcess::readOutput()
{
    appendUpTo(m_result.out, m_process->readAllStandardOutput(), m_maxOut, m_result.outTruncated);
    if (!m_mergeOutput)
        appendUpTo(m_result.err, m_process->readAllStandardError(), m_maxErr, m_result.errTruncated);
}

void ChildProcess::onFinished(int exitCode, bool crashed)
{
    if (m_reported) {   // the child killed at its timeout has been reaped
        deleteLater();
        return;
    }
    readOutput();
    m_result.exitCode = exitCode;
    m_result.crashed = crashed;
    report();
}

void ChildProcess::report()
{
    if (m_reported)
        return;
    m_reported = true;
    m_timer.stop();
    m_result.started = m_result.startError.isEmpty();
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();   // onFinished deletes this once the child is reaped
    } else {
        deleteLater();
    }
    // Copies: `done` may deleteLater (or destroy) the context, and this with it.
    const ChildResult result = m_result;
    const Done done = std::move(m_done);
    if (done)
        done(result);
}

} // namespace chat2sbx
