#pragma once

#include "config/Config.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QTemporaryDir>

#include <functional>
#include <memory>

namespace chat2sbx::test {

// Paths the test build passes through the environment (tests/CMakeLists.txt).
QString sourceDir();
QString binaryDir();
QString chat2sbxBinary();
QString fakeSbxPath();
QString fakeTunnelClientPath();

quint16 freeTcpPort();
QByteArray readFile(const QString &path);
bool writeFile(const QString &path, const QByteArray &data);

// A git repository at `path` (created) whose first commit holds `committed` (relative path ->
// bytes; a README when empty). Runs git with a fixed identity; false when git is missing or fails.
bool makeGitRepository(const QString &path, const QList<QPair<QString, QByteArray>> &committed = {});
// Runs `git <args>` in `dir` and returns its exit code (-1 when it could not run).
int runGit(const QString &dir, const QStringList &args);

// CHAT2SBX_TEST_TIMEOUT_FACTOR (a number >= 1, default 1): how much longer every test wait may take
// on a loaded machine. Every timeout in tests/support goes through scaled(); a test's own timeouts
// should too (waitFor, QTRY_*_WITH_TIMEOUT(..., scaled(ms)), QSignalSpy::wait(scaled(ms))).
double timeoutFactor();
int scaled(int timeoutMs);

// Runs the event loop until `done()` is true or scaled(timeoutMs) passes. Returns done().
bool waitFor(const std::function<bool()> &done, int timeoutMs);

// What an SbxDriver on the fake must pass to it (its settings, the sanitizer options): the
// `passedVariables` of SbxDriver, Config::sbxEnv.
QStringList fakeSbxVariables();

// A process found by processesWithEnvironment(): its pid and argv.
struct ProcessInfo {
    qint64 pid = 0;
    QStringList argv;
};
// The live processes of this user whose environment holds `entry` exactly (e.g.
// "FAKE_SBX_STATE=<dir>": every fake sbx process of one TestEnvironment, and what it runs).
QList<ProcessInfo> processesWithEnvironment(const QByteArray &entry);

// An isolated world for one test: a temporary HOME and data root, the fake sbx with its own
// state folder, a free port, the tunnel disabled.
class TestEnvironment {
public:
    TestEnvironment();
    // Ends what its fake sandboxes left running (a cloud sandbox's processes outlive the server, as
    // in Docker's cloud), so no test leaves a process behind for the next one.
    ~TestEnvironment();
    TestEnvironment(const TestEnvironment &) = delete;
    TestEnvironment &operator=(const TestEnvironment &) = delete;
    bool isValid() const { return m_dir.isValid(); }
    QString root() const { return m_dir.path(); }
    QString home() const { return m_dir.path() + QStringLiteral("/home"); }
    QString dataRoot() const { return home() + QStringLiteral("/.chat2sbx"); }
    QString sbxState() const { return m_dir.path() + QStringLiteral("/sbx-state"); }
    quint16 port() const { return m_port; }

    // Extra variables for the server and its children (also applied to config()).
    void set(const QString &name, const QString &value) { m_extra.insert(name, value); }
    void unset(const QString &name) { m_extra.remove(name); }
    QProcessEnvironment processEnvironment() const;
    // The Config the server would build from processEnvironment().
    Config config() const;
    // Writes KEY=VALUE lines the fake sbx re-reads on every call.
    void setSbxFaults(const QStringList &lines) const;
    QString mcpUrl() const;

private:
    QTemporaryDir m_dir;
    quint16 m_port;
    QProcessEnvironment m_extra;
};

// A real `chat2sbx serve` child process.
class ServerProcess {
public:
    explicit ServerProcess(const TestEnvironment &env, const QStringList &args = {QStringLiteral("serve")});
    ~ServerProcess();
    bool start(int healthyWithinMs = 20000);
    bool isHealthy() const;
    // SIGTERM and wait; returns the exit code (-1 on timeout or crash).
    int terminate(int withinMs = 15000);
    void kill9();
    qint64 pid() const;
    QString output() const;   // combined stdout+stderr so far
    QProcess &process() { return *m_proc; }

private:
    const TestEnvironment &m_env;
    QStringList m_args;
    std::unique_ptr<QProcess> m_proc;
    mutable QByteArray m_output;
};

struct HttpResult {
    int status = 0;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    QString error;
    QByteArray header(const QByteArray &name) const;
};

// Synchronous HTTP for tests only (runs a local event loop).
HttpResult httpRequest(const QByteArray &method, const QString &url, const QList<QPair<QByteArray, QByteArray>> &headers,
                       const QByteArray &body = {}, int timeoutMs = 30000);

// How a program run to completion ended: its exit code (-1 when it did not start, crashed or was
// killed at its timeout) and what it wrote.
struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};
// The one way the tests run a program to completion: an argv list, an explicit environment (this
// process's own when `env` is empty), a working directory (this one's when empty) and a timeout,
// past which the program is killed.
CliResult runProcess(const QString &program, const QStringList &args, const QProcessEnvironment &env = {},
                     const QString &workDir = {}, int timeoutMs = 30000);
// Runs `chat2sbx <args>` to completion with the environment's variables.
CliResult runCli(const TestEnvironment &env, const QStringList &args, int timeoutMs = 30000);
// Runs the fake sbx of `env` (its state folder and faults) to completion.
CliResult runFakeSbx(const TestEnvironment &env, const QStringList &args, int timeoutMs = 15000);

} // namespace chat2sbx::test
