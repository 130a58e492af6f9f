#include "sandbox/channel/SandboxChannel.h"

#include "core/LogText.h"
#include "sandbox/channel/HelperFrame.h"
#include "sandbox/sbx/InVmScript.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QFile>
#include <QLoggingCategory>
#include <QProcess>
#include <QTimer>

#include <algorithm>

static void initHelperResource()
{
    Q_INIT_RESOURCE(sandbox_helper);
}

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcChannel, "chat2sbx.channel")

namespace {


} // namespace

QByteArray SandboxChannel::helperScript()
{
    static const QByteArray script = [] {
        initHelperResource();
        QFile f(QStringLiteral(":/chat2sbx/sandbox/chat2sbx-helper.sh"));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    return script;
}

QStringList SandboxChannel::helperCommands()
{
    return {QStringLiteral("base64"), QStringLiteral("basename"), QStringLiteral("cat"), QStringLiteral("chmod"),
            QStringLiteral("cp"), QStringLiteral("cut"), QStringLiteral("dirname"), QStringLiteral("find"),
            QStringLiteral("git"), QStringLiteral("grep"), QStringLiteral("head"), QStringLiteral("ln"),
            QStringLiteral("mkdir"), QStringLiteral("mkfifo"), QStringLiteral("mktemp"), QStringLiteral("mv"),
            QStringLiteral("rm"), QStringLiteral("sha256sum"), QStringLiteral("sleep"),
            QStringLiteral("sort"), QStringLiteral("stat"),
            QStringLiteral("tail"), QStringLiteral("tar"), QStringLiteral("timeout")};
}

QStringList SandboxChannel::bootstrapCommand(const RunningSandbox &sandbox, qsizetype scriptSize, const QString &owner)
{
    return {QStringLiteral("bash"), QStringLiteral("-c"), inVmScript(QStringLiteral("bootstrap.sh")),
            QStringLiteral("chat2sbx-boot"), QString::number(scriptSize), sandbox.workspacePath,
            sandbox.managedWorkspace ? QStringLiteral("1") : QStringLiteral("0"), owner};
}

SandboxChannel::SandboxChannel(SbxDriver &driver, const RunningSandbox &sandbox, const Options &options, QObject *parent)
    : QObject(parent), m_driver(driver), m_sandbox(sandbox), m_options(options)
{
    m_age.start();
}

SandboxChannel::~SandboxChannel()
{
    m_stopping = true;
    if (m_proc)
        release(m_proc);
    for (Pending &p : m_pending)
        delete p.timer;
    m_pending.clear();
}

quint64 SandboxChannel::request(const QString &op, const QList<QByteArray> &args, int timeoutMs, Callback done)
{
    ensureStarted();
    const quint64 id = m_nextId++;
    Pending p;
    p.op = op;
    p.done = std::move(done);
    p.timer = new QTimer(this);
    p.timer->setSingleShot(true);
    connect(p.timer, &QTimer::timeout, this, [this, id] { onRequestTimeout(id); });
    p.timer->setInterval(timeoutMs > 0 ? timeoutMs : m_options.defaultTimeoutMs);
    // A request made while the child starts waits for the helper first: sbx may take seconds to
    // attach (~2.8 s a command on headless Linux, 5-6 s for the first exec after idle), which must
    // not count against the request. The start has its own timeout: its ping.
    if (m_healthy || op == QLatin1String("ping"))
        p.timer->start();
    m_pending.insert(id, p);
    if (m_startCheck && op != QLatin1String("ping")) {
        m_held.append({id, encodeHelperRequest(id, op.toLatin1(), args)});
        return id;
    }
    writeFrame(id, op, args);
    return id;
}

void SandboxChannel::cancel(quint64 id)
{
    if (!m_pending.contains(id))
        return;
    ChannelReply r;
    r.code = QStringLiteral("cancelled");
    r.error = QStringLiteral("cancelled");
    complete(id, r);
    for (qsizetype i = 0; i < m_held.size(); ++i) {
        if (m_held.at(i).first == id) {
            m_held.removeAt(i);
            return;   // never sent: nothing runs in the VM
        }
    }
    cancelRemote(id);
}

void SandboxChannel::checkAtStart(const std::shared_ptr<StartCheck> &check)
{
    if (!check || !check->pending() || check == m_startCheck)
        return;
    m_startCheck = check;
    if (isHealthy())
        runStartCheck();
}

void SandboxChannel::runStartCheck()
{
    const std::shared_ptr<StartCheck> check = std::move(m_startCheck);
    m_startCheck.reset();
    QString why;
    if (check->run(why)) {
        const auto held = std::move(m_held);
        m_held.clear();
        for (const auto &frame : held) {
            if (m_proc && m_pending.contains(frame.first))   // not timed out meanwhile
                m_proc->write(frame.second);
        }
        return;
    }
    qCWarning(lcChannel).noquote() << m_sandbox.sandboxId << "stopped its control channel before any request:" << why;
    m_held.clear();
    if (!m_helperPid.isEmpty())
        m_replacedPid = m_helperPid;
    m_helperPid.clear();
    if (m_proc) {
        QProcess *proc = m_proc;
        m_proc = nullptr;
        release(proc);
    }
    m_healthy = false;
    m_frames.clear();
    failAll(why, false);
}

void SandboxChannel::writeFrame(quint64 id, const QString &op, const QList<QByteArray> &args)
{
    m_proc->write(encodeHelperRequest(id, op.toLatin1(), args));
}

void SandboxChannel::cancelRemote(quint64 id)
{
    if (m_proc)
        writeFrame(m_nextId++, QStringLiteral("cancel"), {QByteArray::number(id)});
}

void SandboxChannel::reapReplacedHelper()
{
    if (m_replacedPid.isEmpty())
        return;
    const QByteArray pid = m_replacedPid;
    request(QStringLiteral("reap"), {pid}, m_options.pingTimeoutMs + 5000, [this, pid](const ChannelReply &r) {
        if (r.ok && r.meta.value(QStringLiteral("gone")) == QLatin1String("1")) {
            if (m_replacedPid == pid)
                m_replacedPid.clear();
            return;
        }
        // Kept: the next helper tries again. A channel failure is logged by the channel itself.
        if (!r.channelFailure)
            qCWarning(lcChannel).noquote() << m_sandbox.sandboxId << "the replaced helper (pid" << logSafe(QString::fromLatin1(pid), 20)
                                       << ") is still running in the sandbox:" << logSafe(r.error, 200);
    });
}

void SandboxChannel::ping(int timeoutMs, Callback done)
{
    request(QStringLiteral("ping"), {}, timeoutMs, [this, done](const ChannelReply &r) {
        startWaitingTimers();
        if (r.ok && r.meta.value(QStringLiteral("pong")) == QLatin1String("1")) {
            m_healthy = true;
            m_failedStarts = 0;
            const QString pid = r.meta.value(QStringLiteral("pid"));
            if (!pid.isEmpty() && pid.size() <= 10 && pid.toULongLong() > 1)
                m_helperPid = pid.toLatin1();
            if (m_startCheck)
                runStartCheck();
        }
        if (done)
            done(r);
    });
}

// The timers of requests made before the helper answered start once a ping came back (or failed:
// a channel failure fails them all anyway).
void SandboxChannel::startWaitingTimers()
{
    for (Pending &p : m_pending) {
        if (!p.timer->isActive())
            p.timer->start();
    }
}

// Leaves this channel's children, to be deleted once reaped (at once when it is not running); false
// when it is not: a QProcess deleted while running blocks to reap it and logs "Destroyed while
// process is still running".
bool SandboxChannel::disown(QProcess *proc)
{
    proc->disconnect(this);
    proc->setParent(nullptr);
    if (proc->state() == QProcess::NotRunning) {
        proc->deleteLater();
        return false;
    }
    connect(proc, &QProcess::finished, proc, &QObject::deleteLater);
    return true;
}

// Kills the child and lets it go once reaped.
void SandboxChannel::release(QProcess *proc)
{
    if (!disown(proc))
        return;
    proc->kill();
    // Confirms it went: a child that outlives SIGKILL (stuck in the kernel) is at least reported.
    const QString sandboxId = m_sandbox.sandboxId;
    QTimer::singleShot(10000, proc, [proc, sandboxId] {
        if (proc->state() != QProcess::NotRunning)
            qCWarning(lcChannel).noquote() << sandboxId << "a replaced control channel (sbx exec, pid" << proc->processId()
                                           << ") is still running 10 s after SIGKILL";
    });
}

void SandboxChannel::stop()
{
    if (!m_helperPid.isEmpty())
        m_replacedPid = m_helperPid;
    m_helperPid.clear();
    if (m_proc) {
        QProcess *proc = m_proc;
        m_proc = nullptr;
        release(proc);
    }
    m_healthy = false;
    m_frames.clear();
    failAll(QStringLiteral("the sandbox control channel was stopped"));
}

QProcess *SandboxChannel::letGo()
{
    QProcess *proc = m_proc;
    m_proc = nullptr;
    stop();
    return proc && disown(proc) ? proc : nullptr;
}

void SandboxChannel::ensureStarted()
{
    if (!m_proc)
        startChild();
}

void SandboxChannel::startChild()
{
    const QByteArray script = helperScript();
    SbxExecSpec spec;
    spec.runtimeName = m_sandbox.runtimeName;
    spec.cloud = m_sandbox.cloud;
    spec.command = bootstrapCommand(m_sandbox, script.size(), m_options.owner);
    ++m_starts;
    m_healthy = false;
    m_frames.clear();
    m_stderrTail.clear();
    m_proc = new QProcess(this);
    QProcess *proc = m_proc;
    m_driver.startInteractive(spec, *proc);
    connect(proc, &QProcess::readyReadStandardOutput, this, &SandboxChannel::onStdout);
    connect(proc, &QProcess::readyReadStandardError, this, [this, proc] {
        m_stderrTail += proc->readAllStandardError();
        if (m_stderrTail.size() > 2000)
            m_stderrTail = m_stderrTail.right(2000);
    });
    connect(proc, &QProcess::finished, this, [this, proc](int code, QProcess::ExitStatus) {
        if (proc == m_proc)
            onChildGone(QStringLiteral("the sandbox control channel exited (code %1)").arg(code));
    });
    connect(proc, &QProcess::errorOccurred, this, [this, proc](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart && proc == m_proc)
            onChildGone(QStringLiteral("cannot start the sandbox control channel: %1").arg(proc->errorString()));
    });
    if (proc->state() == QProcess::NotRunning) {
        // start() failed before our connections existed (e.g. sbx not found): report it from the loop.
        QTimer::singleShot(0, this, [this, proc] {
            if (proc == m_proc)
                onChildGone(QStringLiteral("cannot start the sandbox control channel: %1").arg(proc->errorString()));
        });
    } else {
        proc->write(script);
    }
    // The first pong says the helper runs; until then requests simply queue in the pipe.
    ping(m_options.startTimeoutMs, {});
    // Killing `sbx exec` need not stop the helper inside the VM (sbx-contract.md, exec row), and a
    // stopped or stuck helper never notices its closed stdin: the new helper removes it.
    reapReplacedHelper();
}

void SandboxChannel::onChildGone(const QString &why)
{
    QProcess *proc = m_proc;
    m_proc = nullptr;
    if (!m_helperPid.isEmpty())
        m_replacedPid = m_helperPid;
    m_helperPid.clear();
    const bool wasHealthy = m_healthy;
    m_healthy = false;
    if (proc) {
        proc->disconnect(this);
        proc->deleteLater();
    }
    const QString detail = logSafe(QString::fromUtf8(m_stderrTail).trimmed().right(300), 300);
    qCWarning(lcChannel).noquote() << m_sandbox.sandboxId << why << detail;
    if (!wasHealthy)
        ++m_failedStarts;
    // What sbx or the VM said last is the one clue a user (and a CI log) gets of why.
    const QString said = detail.isEmpty() ? QString() : QStringLiteral(" (it said: %1)").arg(detail);
    failAll(why + said + QStringLiteral("; the request was not completed"));
    if (m_stopping)
        return;
    if (m_options.restartAfterExit)
        scheduleRestart();
    else
        emit exited();
}

void SandboxChannel::resumeRestarts()
{
    if (!m_proc && !m_stopping)
        scheduleRestart();
}

void SandboxChannel::scheduleRestart()
{
    if (m_restartScheduled || m_failedStarts >= m_options.maxFailedStarts)
        return;
    m_restartScheduled = true;
    const int delay = m_failedStarts == 0 ? 0 : std::min(m_options.maxRestartDelayMs, 250 << m_failedStarts);
    QTimer::singleShot(delay, this, [this] {
        m_restartScheduled = false;
        if (!m_proc && !m_stopping) {
            startChild();
            emit restarted();
        }
    });
}

void SandboxChannel::onStdout()
{
    if (!m_proc)
        return;
    QList<QByteArray> lines;
    const bool withinCap = m_frames.feed(m_proc->readAllStandardOutput(), lines);
    for (const QByteArray &line : lines) {
        handleLine(line);
        if (!m_proc)
            return;   // a callback stopped the channel
    }
    if (!withinCap) {
        // Something in the VM writes to the helper's stdout without newlines; the frames after it
        // cannot be trusted, so start a clean channel (pending requests fail with a channel error).
        qCWarning(lcChannel).noquote() << m_sandbox.sandboxId << "the helper sent a line longer than"
                                       << HelperFrameReader::kDefaultMaxFrameBytes << "bytes; restarting the control channel";
        m_proc->kill();
    }
}

void SandboxChannel::warnAboutOutput(const QString &what, const QByteArray &sample)
{
    qint64 suppressed = 0;
    if (!m_frameWarnings.allow(m_age.elapsed(), suppressed))
        return;
    QString line = m_sandbox.sandboxId + QLatin1Char(' ') + what + QStringLiteral(": ")
                   + logSafe(QString::fromUtf8(sample.left(120)), 120);
    if (suppressed > 0)
        line += QStringLiteral(" (%1 similar warnings suppressed)").arg(suppressed);
    qCWarning(lcChannel).noquote() << line;
}

void SandboxChannel::handleLine(const QByteArray &line)
{
    const std::optional<HelperFrame> frame = parseHelperFrame(line);
    if (!frame) {
        warnAboutOutput(QStringLiteral("malformed frame from the helper"), line);
        return;
    }
    ChannelReply r;
    r.ok = frame->ok;
    r.meta = frame->meta;
    r.data = frame->data;
    if (!r.ok) {
        r.code = r.meta.value(QStringLiteral("code"), QStringLiteral("eio"));
        r.error = QString::fromUtf8(r.data).trimmed();
        if (r.error.isEmpty())
            r.error = QStringLiteral("the sandbox helper reported an error");
    }
    complete(frame->id, r);
}

void SandboxChannel::complete(quint64 id, const ChannelReply &reply)
{
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;   // answered after its timeout
    Pending p = it.value();
    m_pending.erase(it);
    delete p.timer;
    if (p.done)
        p.done(reply);
}

void SandboxChannel::onRequestTimeout(quint64 id)
{
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    const QString op = it->op;
    ChannelReply r;
    r.channelFailure = true;
    r.code = QStringLiteral("timeout");
    r.error = QStringLiteral("the sandbox did not answer in time (%1)").arg(op);
    complete(id, r);
    for (qsizetype i = 0; i < m_held.size(); ++i) {
        if (m_held.at(i).first == id) {
            m_held.removeAt(i);
            return;   // never sent: nothing runs in the VM, and the start has its own ping timeout
        }
    }
    // Its handler may hang in the VM for good (a FIFO without a writer, a stuck mount): kill it.
    cancelRemote(id);
    if (op == QLatin1String("ping")) {
        // The helper is stuck (or never came up): restart the child.
        if (m_proc) {
            qCWarning(lcChannel).noquote() << m_sandbox.sandboxId << "helper stalled; restarting the control channel";
            m_proc->kill();
        }
    } else {
        healthCheck();
    }
}

void SandboxChannel::healthCheck()
{
    if (m_healthCheckRunning || !m_proc)
        return;
    m_healthCheckRunning = true;
    ping(m_options.pingTimeoutMs, [this](const ChannelReply &) { m_healthCheckRunning = false; });
}

void SandboxChannel::failAll(const QString &why, bool channelFailure)
{
    m_held.clear();
    const QList<quint64> ids = m_pending.keys();
    for (quint64 id : ids) {
        ChannelReply r;
        r.channelFailure = channelFailure;
        r.code = channelFailure ? QStringLiteral("channel") : QStringLiteral("refused");
        r.error = why;
        complete(id, r);
    }
}

} // namespace chat2sbx
