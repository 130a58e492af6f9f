#include "sandbox/sbx/SbxDriver.h"

#include "core/ChildProcess.h"
#include "sandbox/sbx/SbxEnvironment.h"
#include "sandbox/sbx/SbxJson.h"
#include "sandbox/sbx/SbxPolicy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>

#include <cmath>

namespace chat2sbx {
namespace {

// Docker Sandboxes' question after an update (sbx-contract.md, "How sbx fails in the field").
bool asksToRestartAfterUpdate(const QByteArray &output)
{
    return output.contains("needs to restart") && output.contains("Restart now?");
}

QString trimmedLine(const QByteArray &bytes)
{
    QString text = QString::fromUtf8(bytes).trimmed();
    if (text.size() > 2000)
        text = text.left(2000) + QStringLiteral("…");
    return text;
}

} // namespace

SbxDriver::SbxDriver(const QString &sbxPath, const QStringList &passedVariables, QObject *parent)
    : QObject(parent), m_sbxPath(sbxPath),
      m_passedVariables(passedVariables), m_expiry(new QTimer(this))
{
    m_sinceStart.start();
    m_expiry->setInterval(250);
    connect(m_expiry, &QTimer::timeout, this, &SbxDriver::expireWaiting);
}

QString SbxDriver::notAnsweringAdvice() const
{
    if (answering())
        return {};
    return QStringLiteral("sbx has answered none of its last %1 commands within their deadlines: its daemon may be stuck on "
                          "a lock (it still reports itself healthy then). End the sbx process that holds it, or restart the "
                          "computer (`sbx daemon stop` may hang as well). Until sbx answers, chat2sbx sends it one command at "
                          "a time.").arg(m_unansweredInRow);
}

QString SbxDriver::updatePendingAdvice()
{
    return QStringLiteral("Docker Sandboxes was updated and asks to restart its daemon, which stops every running sandbox. "
                          "chat2sbx never answers that question for you: when your sandboxes may stop, run `chat2sbx sbx "
                          "restart` (it names them, brings clone sandboxes' work home first and asks you to confirm), or "
                          "answer it yourself in a terminal (`sbx ls`); the sandboxes keep their files and wake on the next "
                          "tool call.");
}

SbxDriver::~SbxDriver() = default;

QStringList SbxDriver::createArgs(const SbxCreateSpec &spec)
{
    QStringList args{QStringLiteral("create"), QStringLiteral("--quiet"), QStringLiteral("--name"), spec.runtimeName};
    if (!spec.templateRef.isEmpty())
        args << QStringLiteral("--template") << spec.templateRef;
    if (!spec.memory.isEmpty())
        args << QStringLiteral("--memory") << spec.memory;
    if (spec.clone)
        args << QStringLiteral("--clone");
    args << QStringLiteral("shell") << spec.workspaceRoot;
    return args;
}

QStringList SbxDriver::execArgs(const SbxExecSpec &spec)
{
    QStringList args;
    if (spec.cloud)
        args << QStringLiteral("--cloud");
    args << QStringLiteral("exec");
    if (spec.interactive)
        args << QStringLiteral("-i");
    if (spec.asRoot && !spec.cloud)
        args << QStringLiteral("-u") << QStringLiteral("root");
    for (const QString &name : spec.envNames)
        args << QStringLiteral("-e") << name;
    if (!spec.workdir.isEmpty())
        args << QStringLiteral("-w") << spec.workdir;
    args << spec.runtimeName;
    if (spec.asRoot && spec.cloud)
        args << QStringLiteral("sudo") << QStringLiteral("-n") << QStringLiteral("--");
    args << spec.command;
    return args;
}

void SbxDriver::run(const QString &what, const QStringList &args, int timeoutMs, const QByteArray &stdinData, Callback done)
{
    Call call{what, args, timeoutMs, stdinData, std::move(done), m_sinceStart.elapsed()};
    if (answering() && m_waiting.isEmpty())
        return launch(std::move(call));
    if (m_waiting.size() >= kMaxWaiting) {
        SbxResult r;
        r.notRun = true;
        r.error = QStringLiteral("sbx %1 was not run: %2 commands already wait for sbx to answer. %3")
                      .arg(what).arg(m_waiting.size()).arg(notAnsweringAdvice());
        QTimer::singleShot(0, this, [r, cb = std::move(call.done)] { cb(r); });
        return;
    }
    m_waiting.append(std::move(call));
    m_expiry->start();
    startNextWaiting();
}

void SbxDriver::startNextWaiting()
{
    while (!m_waiting.isEmpty() && (answering() || !m_lineRunning)) {
        if (!answering())
            m_lineRunning = true;
        launch(m_waiting.takeFirst());
    }
    if (m_waiting.isEmpty())
        m_expiry->stop();
}

void SbxDriver::expireWaiting()
{
    const qint64 now = m_sinceStart.elapsed();
    for (qsizetype i = 0; i < m_waiting.size();) {
        const Call &c = m_waiting.at(i);
        if (now - c.queuedAtMs < c.timeoutMs) {
            ++i;
            continue;
        }
        SbxResult r;
        r.notRun = true;
        r.error = QStringLiteral("sbx %1 did not run: sbx has not answered, and it waited %2 s in line. %3")
                      .arg(c.what).arg((now - c.queuedAtMs) / 1000).arg(notAnsweringAdvice());
        const Callback done = c.done;
        m_waiting.removeAt(i);
        if (done)
            done(r);
    }
    if (m_waiting.isEmpty())
        m_expiry->stop();
}

void SbxDriver::launch(Call call)
{
    ChildSpec spec;
    spec.program = m_sbxPath;
    spec.arguments = call.args;
    spec.environment = sbxEnvironment(QProcessEnvironment::systemEnvironment(), m_passedVariables);
    spec.timeoutMs = call.timeoutMs;
    spec.input = call.input;
    spec.maxOutBytes = kMaxOutputBytes;
    spec.maxErrBytes = kMaxOutputBytes;
    spec.endsWithServer = true;
    QPointer<SbxDriver> self(this);
    const bool inLine = !answering();
    ChildProcess::run(spec, this, [self, sbxPath = m_sbxPath, call, inLine](const ChildResult &child) {
        const QString &what = call.what;
        SbxResult r;
        if (!child.started) {
            r.error = QStringLiteral("cannot run sbx (%1) for %2: %3").arg(sbxPath, what, child.startError);
        } else if (child.timedOut) {
            r.timedOut = true;
            r.out = child.out;
            r.err = child.err;
            r.error = QStringLiteral("sbx %1 did not answer within %2 s").arg(what).arg(call.timeoutMs / 1000.0);
        } else {
            r.exitCode = child.exitCode;
            r.out = child.out;
            r.err = child.err;
            if (child.crashed) {
                r.error = QStringLiteral("sbx %1 crashed%2").arg(what,
                             r.err.trimmed().isEmpty() ? QString() : QStringLiteral(": ") + trimmedLine(r.err));
            } else if (child.exitCode != 0) {
                const QString reason = trimmedLine(r.err).isEmpty() ? trimmedLine(r.out) : trimmedLine(r.err);
                r.error = QStringLiteral("sbx %1 failed (exit %2)%3")
                              .arg(what).arg(child.exitCode).arg(reason.isEmpty() ? QString() : QStringLiteral(": ") + reason);
                if (asksToRestartAfterUpdate(r.out + r.err)) {
                    r.updatePending = true;
                    r.error = QStringLiteral("sbx %1 was not done: %2").arg(what, updatePendingAdvice());
                }
            } else {
                r.ok = true;
            }
        }
        if (self) {
            if (inLine)
                self->m_lineRunning = false;
            self->answered(call, r);
            if (r.timedOut && !self->answering())
                r.error += QStringLiteral(". ") + self->notAnsweringAdvice();
        }
        if (call.done)
            call.done(r);
        if (self)
            self->startNextWaiting();
    });
}

void SbxDriver::answered(const Call &call, const SbxResult &r)
{
    const bool wasAnswering = answering();
    const bool wasPending = m_updatePending;
    // An exec's time is its command's: running into the deadline says nothing about sbx itself.
    const QString first = call.args.isEmpty() ? QString() : call.args.first();
    const bool exec = first == QLatin1String("exec");
    if (r.timedOut && !exec)
        ++m_unansweredInRow;
    else if (!r.timedOut && (r.ok || r.exitCode >= 0))
        m_unansweredInRow = 0;
    // Only the local daemon asks about an update: `version` answers without it, `--cloud` needs
    // none, and an exec's status is its command's. Their success says nothing of the question.
    const bool answeredByDaemon = !exec && first != QLatin1String("version") && first != QLatin1String("--cloud");
    if (r.updatePending)
        m_updatePending = true;
    else if (r.ok && answeredByDaemon)
        m_updatePending = false;
    if (wasAnswering != answering() || wasPending != m_updatePending)
        emit conditionChanged();
}

void SbxDriver::version(Callback done)
{
    run(QStringLiteral("version"), {QStringLiteral("version")}, m_timeouts.otherMs, {}, std::move(done));
}

void SbxDriver::versionJson(Callback done)
{
    run(QStringLiteral("version --json"), {QStringLiteral("version"), QStringLiteral("--json")}, m_timeouts.otherMs, {},
        std::move(done));
}

void SbxDriver::stop(const QString &runtimeName, Callback done)
{
    run(QStringLiteral("stop"), {QStringLiteral("stop"), runtimeName}, m_timeouts.removeMs, {}, std::move(done));
}

void SbxDriver::templateList(std::function<void(const SbxResult &, const QStringList &)> done)
{
    run(QStringLiteral("template ls"), {QStringLiteral("template"), QStringLiteral("ls"), QStringLiteral("--json")},
        m_timeouts.otherMs, {}, [done](const SbxResult &r) {
            QStringList refs;
            SbxResult result = r;
            if (r.ok && !parseTemplates(r.out, refs)) {
                result.ok = false;
                result.error = QStringLiteral("sbx template ls returned malformed JSON");
            }
            done(result, refs);
        });
}

void SbxDriver::templateSizes(std::function<void(const SbxResult &, const QHash<QString, qint64> &)> done)
{
    run(QStringLiteral("template ls"), {QStringLiteral("template"), QStringLiteral("ls"), QStringLiteral("--json")},
        m_timeouts.otherMs, {}, [done](const SbxResult &r) {
            QStringList refs;
            QHash<QString, qint64> sizes;
            SbxResult result = r;
            if (r.ok && !parseTemplates(r.out, refs, &sizes)) {
                result.ok = false;
                result.error = QStringLiteral("sbx template ls returned malformed JSON");
            }
            done(result, sizes);
        });
}

void SbxDriver::templateSave(const QString &runtimeName, const QString &templateRef, Callback done)
{
    run(QStringLiteral("template save"), {QStringLiteral("template"), QStringLiteral("save"), runtimeName, templateRef},
        m_timeouts.templateSaveMs, {}, std::move(done));
}

void SbxDriver::templateRemove(const QString &templateRef, Callback done)
{
    run(QStringLiteral("template rm"), {QStringLiteral("template"), QStringLiteral("rm"), templateRef}, m_timeouts.otherMs, {},
        std::move(done));
}

void SbxDriver::create(const SbxCreateSpec &spec, Callback done)
{
    run(QStringLiteral("create"), createArgs(spec), m_timeouts.createMs, {}, std::move(done));
}

void SbxDriver::list(std::function<void(const SbxResult &, const QList<SbxRuntimeInfo> &)> done)
{
    run(QStringLiteral("ls"), {QStringLiteral("ls"), QStringLiteral("--json")}, m_timeouts.otherMs, {},
        [done](const SbxResult &r) {
            QList<SbxRuntimeInfo> items;
            SbxResult result = r;
            if (r.ok && !parseList(r.out, items)) {
                result.ok = false;
                result.error = QStringLiteral("sbx ls returned malformed JSON");
            }
            done(result, items);
        });
}

void SbxDriver::exec(const SbxExecSpec &spec, Callback done, int timeoutMs)
{
    // Without -i sbx does not connect stdin, so data to feed means -i (the child still ends: we close stdin).
    SbxExecSpec s = spec;
    if (!s.stdinData.isEmpty())
        s.interactive = true;
    run(QStringLiteral("exec"), execArgs(s), timeoutMs > 0 ? timeoutMs : m_timeouts.otherMs, s.stdinData,
        std::move(done));
}

void SbxDriver::ports(const QString &runtimeName, std::function<void(const SbxResult &, const QList<SbxPortMapping> &)> done)
{
    run(QStringLiteral("ports"), {QStringLiteral("ports"), runtimeName, QStringLiteral("--json")}, m_timeouts.otherMs, {},
        [done](const SbxResult &r) {
            QList<SbxPortMapping> items;
            SbxResult result = r;
            if (r.ok && !parsePorts(r.out, items)) {
                result.ok = false;
                result.error = QStringLiteral("sbx ports returned malformed JSON");
            }
            done(result, items);
        });
}

void SbxDriver::publish(const QString &runtimeName, const QString &hostIp, int hostPort, int sandboxPort, Callback done)
{
    const QString mapping = QStringLiteral("%1:%2:%3/tcp4").arg(hostIp).arg(hostPort).arg(sandboxPort);
    run(QStringLiteral("ports --publish"), {QStringLiteral("ports"), runtimeName, QStringLiteral("--publish"), mapping},
        m_timeouts.otherMs, {}, std::move(done));
}

void SbxDriver::remove(const QString &runtimeName, Callback done)
{
    run(QStringLiteral("rm"), {QStringLiteral("rm"), QStringLiteral("--force"), runtimeName}, m_timeouts.removeMs, {},
        std::move(done));
}

void SbxDriver::daemonStop(Callback done)
{
    run(QStringLiteral("daemon stop"), {QStringLiteral("daemon"), QStringLiteral("stop")}, m_timeouts.removeMs, {}, std::move(done));
}

void SbxDriver::policyAllow(const QString &runtimeName, const QStringList &hosts, Callback done, bool cloud)
{
    if (!cloud)
        return run(QStringLiteral("policy allow"), policyAllowArgs(runtimeName, hosts), m_timeouts.otherMs, {}, std::move(done));
    // One pattern a call, in order; the first failure ends it.
    if (hosts.isEmpty()) {
        SbxResult nothing;
        nothing.ok = true;
        nothing.exitCode = 0;
        return done(nothing);
    }
    QPointer<SbxDriver> self(this);
    run(QStringLiteral("cloud policy allow"), QStringList{QStringLiteral("--cloud")} + policyAllowArgs(runtimeName, {hosts.first()}),
        m_timeouts.otherMs, {}, [self, runtimeName, rest = hosts.mid(1), done](const SbxResult &r) {
            if (!r.ok || rest.isEmpty() || !self)
                return done(r);
            self->policyAllow(runtimeName, rest, done, true);
        });
}

void SbxDriver::policyRemove(const QString &runtimeName, const QString &host, Callback done, bool cloud)
{
    run(cloud ? QStringLiteral("cloud policy rm") : QStringLiteral("policy rm"),
        (cloud ? QStringList{QStringLiteral("--cloud")} : QStringList()) + policyRemoveArgs(runtimeName, host), m_timeouts.otherMs, {},
        std::move(done));
}

void SbxDriver::policyLog(const QString &runtimeName, int limit, Callback done, bool cloud)
{
    run(cloud ? QStringLiteral("cloud policy log") : QStringLiteral("policy log"),
        (cloud ? QStringList{QStringLiteral("--cloud")} : QStringList()) + policyLogArgs(runtimeName, limit), m_timeouts.otherMs, {},
        std::move(done));
}

void SbxDriver::startInteractive(const SbxExecSpec &spec, QProcess &process)
{
    SbxExecSpec s = spec;
    s.interactive = true;
    process.setProgram(m_sbxPath);
    process.setArguments(execArgs(s));
    process.setProcessEnvironment(sbxEnvironment(QProcessEnvironment::systemEnvironment(), m_passedVariables));
    ChildProcess::endWithServer(process);
    process.start(QIODevice::ReadWrite);
}

qint64 SbxDriver::parseSize(const QJsonValue &size)
{
    if (size.isDouble())
        return size.toDouble() >= 0 && size.toDouble() < 9e18 ? static_cast<qint64>(size.toDouble()) : -1;
    static const QRegularExpression text(QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([kKMGT]?i?B?)\\s*$"));
    const QRegularExpressionMatch m = text.match(size.toString());
    if (!m.hasMatch())
        return -1;
    const QString unit = m.captured(2).toUpper();
    const bool binary = unit.contains(QLatin1Char('I'));
    const double base = binary ? 1024.0 : 1000.0;
    const QString prefix = unit.left(1);
    int power = 0;
    if (prefix == QLatin1String("K"))
        power = 1;
    else if (prefix == QLatin1String("M"))
        power = 2;
    else if (prefix == QLatin1String("G"))
        power = 3;
    else if (prefix == QLatin1String("T"))
        power = 4;
    const double bytes = m.captured(1).toDouble() * std::pow(base, power);
    return bytes < 9e18 ? static_cast<qint64>(bytes) : -1;
}

bool SbxDriver::parseTemplates(const QByteArray &json, QStringList &refs, QHash<QString, qint64> *bytesByRef)
{
    const QJsonDocument doc = parseSbxJson(json);
    if (!doc.isObject() || !doc.object().value(QStringLiteral("images")).isArray())
        return false;
    for (const QJsonValue &v : doc.object().value(QStringLiteral("images")).toArray()) {
        const QJsonObject o = v.toObject();
        QString repo = o.value(QStringLiteral("repository")).toString();
        const QString tag = o.value(QStringLiteral("tag")).toString();
        if (repo.isEmpty())
            continue;
        for (const QString &prefix : {QStringLiteral("docker.io/library/"), QStringLiteral("docker.io/")})
            if (repo.startsWith(prefix))
                repo = repo.mid(prefix.size());
        refs << (tag.isEmpty() ? repo : repo + QLatin1Char(':') + tag);
        if (bytesByRef)
            bytesByRef->insert(refs.last(), parseSize(o.value(QStringLiteral("size"))));
    }
    return true;
}

bool SbxDriver::parseList(const QByteArray &json, QList<SbxRuntimeInfo> &out)
{
    const QJsonDocument doc = parseSbxJson(json);
    if (!doc.isObject() || !doc.object().value(QStringLiteral("sandboxes")).isArray())
        return false;
    for (const QJsonValue &v : doc.object().value(QStringLiteral("sandboxes")).toArray()) {
        const QJsonObject o = v.toObject();
        const QString name = o.value(QStringLiteral("name")).toString();
        if (!name.isEmpty())
            out.append({name, o.value(QStringLiteral("status")).toString()});
    }
    return true;
}

bool SbxDriver::parsePorts(const QByteArray &json, QList<SbxPortMapping> &out)
{
    const QJsonDocument doc = parseSbxJson(json);
    if (!doc.isArray())
        return false;
    for (const QJsonValue &v : doc.array()) {
        const QJsonObject o = v.toObject();
        SbxPortMapping m;
        m.hostIp = o.value(QStringLiteral("host_ip")).toString();
        m.hostPort = o.value(QStringLiteral("host_port")).toInt();
        m.sandboxPort = o.value(QStringLiteral("sandbox_port")).toInt();
        m.protocol = o.value(QStringLiteral("protocol")).toString();
        if (m.hostPort > 0 && m.sandboxPort > 0)
            out.append(m);
    }
    return true;
}

} // namespace chat2sbx
