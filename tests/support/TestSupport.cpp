#include "TestSupport.h"

#include "config/ConfigLoader.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QStandardPaths>
#include <QNetworkReply>
#include <QTcpServer>
#include <QThread>
#include <QTimer>

#include <csignal>

#include <algorithm>
#include <functional>
#include <limits>

namespace chat2sbx::test {

QString sourceDir() { return qEnvironmentVariable("CHAT2SBX_TEST_SOURCE_DIR"); }
QString binaryDir() { return qEnvironmentVariable("CHAT2SBX_TEST_BINARY_DIR"); }
QString chat2sbxBinary() { return qEnvironmentVariable("CHAT2SBX_BINARY"); }
QString fakeSbxPath() { return qEnvironmentVariable("CHAT2SBX_FAKE_SBX"); }
QString fakeTunnelClientPath() { return qEnvironmentVariable("CHAT2SBX_FAKE_TUNNEL_CLIENT"); }

quint16 freeTcpPort()
{
    QTcpServer s;
    if (!s.listen(QHostAddress::LocalHost, 0))
        return 0;
    return s.serverPort();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return f.write(data) == data.size();
}

int runGit(const QString &dir, const QStringList &args)
{
    const QString git = QStandardPaths::findExecutable(QStringLiteral("git"));
    if (git.isEmpty())
        return -1;
    const CliResult r = runProcess(git, QStringList{QStringLiteral("-c"), QStringLiteral("user.name=chat2sbx test"), QStringLiteral("-c"),
                                                    QStringLiteral("user.email=test@chat2sbx.invalid")} + args,
                                   {}, dir, 20000);
    if (r.exitCode != 0 && !r.err.isEmpty())
        qWarning().noquote() << "git" << args.join(QLatin1Char(' ')) << ":" << QString::fromUtf8(r.err).trimmed();
    return r.exitCode;
}

bool makeGitRepository(const QString &path, const QList<QPair<QString, QByteArray>> &committed)
{
    if (!QDir().mkpath(path) || runGit(path, {QStringLiteral("init"), QStringLiteral("-q")}) != 0)
        return false;
    QList<QPair<QString, QByteArray>> files = committed;
    if (files.isEmpty())
        files.append({QStringLiteral("README"), QByteArrayLiteral("test repository\n")});
    for (const auto &[rel, bytes] : files) {
        const QString full = path + QLatin1Char('/') + rel;
        if (!QDir().mkpath(QFileInfo(full).absolutePath()) || !writeFile(full, bytes))
            return false;
    }
    return runGit(path, {QStringLiteral("add"), QStringLiteral("-A")}) == 0 &&
           runGit(path, {QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("initial")}) == 0;
}

double timeoutFactor()
{
    static const double factor = [] {
        bool ok = false;
        const double f = qEnvironmentVariable("CHAT2SBX_TEST_TIMEOUT_FACTOR").toDouble(&ok);
        return ok && f >= 1 && f <= 100 ? f : 1.0;
    }();
    return factor;
}

int scaled(int timeoutMs)
{
    return static_cast<int>(std::min<double>(timeoutMs * timeoutFactor(), std::numeric_limits<int>::max()));
}

bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    const qint64 limitMs = scaled(timeoutMs);
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > limitMs)
            return done();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
    return true;
}

QStringList fakeSbxVariables()
{
    return {QStringLiteral("FAKE_SBX_*"), QStringLiteral("ASAN_OPTIONS"), QStringLiteral("UBSAN_OPTIONS"),
            QStringLiteral("LSAN_OPTIONS")};
}

namespace {

// The processes whose environment block `matches` accepts.
QList<qint64> processesWhoseEnvironment(const std::function<bool(const QByteArray &)> &matches)
{
    QList<qint64> pids;
    for (const QString &name : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        const qint64 pid = name.toLongLong(&numeric);
        if (!numeric)
            continue;
        QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
        if (environ.open(QIODevice::ReadOnly) && matches(environ.readAll()))
            pids << pid;
    }
    return pids;
}

} // namespace

QList<ProcessInfo> processesWithEnvironment(const QByteArray &entry)
{
    QList<ProcessInfo> out;
    const auto hasEntry = [&entry](const QByteArray &environ) { return environ.split('\0').contains(entry); };
    for (const qint64 pid : processesWhoseEnvironment(hasEntry)) {
        QFile status(QStringLiteral("/proc/%1/stat").arg(pid));
        if (status.open(QIODevice::ReadOnly)) {
            const QByteArray stat = status.readAll();
            const qsizetype close = stat.lastIndexOf(')');
            if (close > 0 && stat.mid(close + 2, 1) == "Z")   // a zombie is gone, only not reaped yet
                continue;
        }
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        ProcessInfo info;
        info.pid = pid;
        if (cmdline.open(QIODevice::ReadOnly))
            for (const QByteArray &arg : cmdline.readAll().split('\0'))
                if (!arg.isEmpty())
                    info.argv << QString::fromLocal8Bit(arg);
        out << info;
    }
    return out;
}

TestEnvironment::TestEnvironment() : m_port(freeTcpPort())
{
    QDir().mkpath(home());
    QDir().mkpath(sbxState());
}

TestEnvironment::~TestEnvironment()
{
    // A process of this world has a variable naming a path in it (HOME, FAKE_SBX_STATE, …).
    const QByteArray inside = '=' + QFile::encodeName(root()) + '/';
    const qint64 self = QCoreApplication::applicationPid();
    for (const qint64 pid : processesWhoseEnvironment([&inside](const QByteArray &environ) { return environ.contains(inside); }))
        if (pid != self)
            ::kill(static_cast<pid_t>(pid), SIGKILL);
}

QProcessEnvironment TestEnvironment::processEnvironment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &k : env.keys())
        if (k.startsWith(QLatin1String("CHAT2SBX_")) && !k.startsWith(QLatin1String("CHAT2SBX_TEST_")) &&
            k != QLatin1String("CHAT2SBX_BINARY") && !k.startsWith(QLatin1String("CHAT2SBX_FAKE_")))
            env.remove(k);
    env.insert(QStringLiteral("HOME"), home());
    env.insert(QStringLiteral("CHAT2SBX_DATA_ROOT"), dataRoot());
    env.insert(QStringLiteral("CHAT2SBX_PORT"), QString::number(m_port));
    env.insert(QStringLiteral("CHAT2SBX_ENABLE_TUNNEL"), QStringLiteral("0"));
    // tunnel-client gets an explicit environment; the fake's fault variables and the sanitizer options
    // reach it only through this list (Config::tunnelEnv).
    env.insert(QStringLiteral("CHAT2SBX_TUNNEL_ENV"), QStringLiteral("FAKE_TUNNEL_*,ASAN_OPTIONS,UBSAN_OPTIONS,LSAN_OPTIONS"));
    // sbx gets an explicit environment too: the fake's settings reach it through Config::sbxEnv.
    env.insert(QStringLiteral("CHAT2SBX_SBX_ENV"), fakeSbxVariables().join(QLatin1Char(',')));
    env.insert(QStringLiteral("CHAT2SBX_SBX"), fakeSbxPath().isEmpty() ? QStringLiteral("sbx") : fakeSbxPath());
    env.insert(QStringLiteral("FAKE_SBX_STATE"), sbxState());
    // The pinned template `chat2sbx setup` would have built (a test about a missing template unsets it).
    env.insert(QStringLiteral("FAKE_SBX_TEMPLATES"), QStringLiteral("chat2sbx-shell:" CHAT2SBX_VERSION));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    // No warm sandboxes unless a test asks (tst_warm_pool): the others count sbx calls and runtimes.
    env.insert(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
    for (const QString &k : m_extra.keys())
        env.insert(k, m_extra.value(k));
    return env;
}

Config TestEnvironment::config() const
{
    Config c;
    QString error;
    if (!ConfigLoader::load(processEnvironment(), home(), c, error))
        qWarning("test environment config: %s", qPrintable(error));
    return c;
}

void TestEnvironment::setSbxFaults(const QStringList &lines) const
{
    writeFile(sbxState() + QStringLiteral("/faults.env"), lines.join(QLatin1Char('\n')).toUtf8() + '\n');
}

QString TestEnvironment::mcpUrl() const
{
    return QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_port);
}

ServerProcess::ServerProcess(const TestEnvironment &env, const QStringList &args)
    : m_env(env), m_args(args), m_proc(std::make_unique<QProcess>())
{
    m_proc->setProcessChannelMode(QProcess::MergedChannels);
    QObject::connect(m_proc.get(), &QProcess::readyRead, [this] { m_output += m_proc->readAll(); });
}

ServerProcess::~ServerProcess()
{
    if (m_proc->state() != QProcess::NotRunning) {
        terminate(5000);
        if (m_proc->state() != QProcess::NotRunning)
            kill9();
    }
}

bool ServerProcess::start(int healthyWithinMs)
{
    m_proc->setProcessEnvironment(m_env.processEnvironment());
    m_proc->start(chat2sbxBinary(), m_args);
    if (!m_proc->waitForStarted(scaled(10000)))
        return false;
    return waitFor([this] { return m_proc->state() == QProcess::NotRunning || isHealthy(); }, healthyWithinMs) &&
           m_proc->state() == QProcess::Running;
}

bool ServerProcess::isHealthy() const
{
    const HttpResult r = httpRequest("GET", QStringLiteral("http://127.0.0.1:%1/healthz").arg(m_env.port()), {}, {}, 2000);   // httpRequest scales it
    return r.status == 200;
}

int ServerProcess::terminate(int withinMs)
{
    if (m_proc->state() == QProcess::NotRunning)
        return m_proc->exitStatus() == QProcess::NormalExit ? m_proc->exitCode() : -1;
    ::kill(static_cast<pid_t>(m_proc->processId()), SIGTERM);
    if (!m_proc->waitForFinished(scaled(withinMs)))
        return -1;
    m_output += m_proc->readAll();
    return m_proc->exitStatus() == QProcess::NormalExit ? m_proc->exitCode() : -1;
}

void ServerProcess::kill9()
{
    if (m_proc->state() == QProcess::NotRunning)
        return;
    ::kill(static_cast<pid_t>(m_proc->processId()), SIGKILL);
    m_proc->waitForFinished(scaled(10000));
    m_output += m_proc->readAll();
}

qint64 ServerProcess::pid() const
{
    return m_proc->processId();
}

QString ServerProcess::output() const
{
    m_output += m_proc->readAll();
    return QString::fromUtf8(m_output);
}

QByteArray HttpResult::header(const QByteArray &name) const
{
    for (const auto &h : headers)
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    return {};
}

HttpResult httpRequest(const QByteArray &method, const QString &url, const QList<QPair<QByteArray, QByteArray>> &headers,
                       const QByteArray &body, int timeoutMs)
{
    HttpResult result;
    QNetworkAccessManager nam;
    QNetworkRequest request{QUrl(url)};
    for (const auto &h : headers)
        request.setRawHeader(h.first, h.second);
    request.setTransferTimeout(scaled(timeoutMs));
    QNetworkReply *reply = nam.sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.headers = reply->rawHeaderPairs();
    result.body = reply->readAll();
    if (reply->error() != QNetworkReply::NoError && result.status == 0)
        result.error = reply->errorString();
    reply->deleteLater();
    return result;
}

CliResult runProcess(const QString &program, const QStringList &args, const QProcessEnvironment &env,
                     const QString &workDir, int timeoutMs)
{
    CliResult r;
    QProcess p;
    p.setProcessEnvironment(env.isEmpty() ? QProcessEnvironment::systemEnvironment() : env);
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    p.start(program, args);
    if (!p.waitForStarted(scaled(10000)))
        return r;
    // The event loop runs meanwhile: a server in this process (a test's Controller) answers the
    // CLI's requests on its control channel.
    QEventLoop loop;
    QObject::connect(&p, &QProcess::finished, &loop, &QEventLoop::quit);
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
    deadline.start(scaled(timeoutMs));
    if (p.state() != QProcess::NotRunning)
        loop.exec();
    if (p.state() != QProcess::NotRunning) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

CliResult runCli(const TestEnvironment &env, const QStringList &args, int timeoutMs)
{
    return runProcess(chat2sbxBinary(), args, env.processEnvironment(), {}, timeoutMs);
}

CliResult runFakeSbx(const TestEnvironment &env, const QStringList &args, int timeoutMs)
{
    return runProcess(env.config().sbxPath, args, env.processEnvironment(), {}, timeoutMs);
}

} // namespace chat2sbx::test
