#pragma once

#include <QByteArray>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <csignal>
#include <functional>

class QProcess;

namespace chat2sbx {

// One short child: an argv list, the environment it gets (exactly), a timeout, and how much of its
// output is kept.
struct ChildSpec {
    QString program;
    QStringList arguments;
    QProcessEnvironment environment;   // the child's whole environment: nothing is inherited
    int timeoutMs = 30000;
    QByteArray input;                  // written to stdin, which is then closed; empty: stdin is /dev/null
    bool mergeOutput = false;          // stderr into stdout (ChildResult::err stays empty)
    qsizetype maxOutBytes = 1024 * 1024;   // what comes past a cap is read and dropped
    qsizetype maxErrBytes = 64 * 1024;
    bool endsWithServer = false;       // the child is killed when this process dies (even by kill -9)
};

struct ChildResult {
    bool started = false;     // false: the program could not be started (startError says why)
    bool timedOut = false;    // killed at the timeout; out and err hold what came before
    bool crashed = false;     // ended by a signal the runner did not send
    int exitCode = -1;        // as QProcess reports it (the signal number after a crash)
    QByteArray out;
    QByteArray err;
    bool outTruncated = false;
    bool errTruncated = false;
    QString startError;

    bool ok() const { return started && !timedOut && !crashed && exitCode == 0; }
};

// The one way a short child process runs: every child the server starts for a while and waits for
// (`sbx` commands through SbxDriver, `git` through HostGit, `tunnel-client doctor`) goes through
// here. `done` runs exactly once, always from the event loop (never inside run()), when the child
// ends, times out (it is then killed) or cannot start. When `context` is destroyed first, the child
// is killed and `done` never runs. `done` may deleteLater its context; the runner itself deletes
// only with deleteLater. Nothing here waits: a killed child is reaped from the event loop (a
// process that ends before its loop runs again leaves it to the kernel).
class ChildProcess : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const ChildResult &)>;

    // `context` may be null: the child then runs to its end (or timeout) whatever else goes away.
    static void run(const ChildSpec &spec, QObject *context, Done done);

    // Makes `process` (not started yet) die with this process: Linux's parent-death signal, set
    // between fork and exec. For the long-lived children that do not go through run().
    static void endWithServer(QProcess &process, int signal = SIGKILL);

    ~ChildProcess() override;

private:
    ChildProcess(const ChildSpec &spec, Done done, QObject *context);
    void start(const ChildSpec &spec);
    void keep(QByteArray &into, const QByteArray &chunk, qsizetype cap, bool &truncated);
    void readOutput();
    void onFinished(int exitCode, bool crashed);
    void report();

    QProcess *m_process;
    QTimer m_timer;
    Done m_done;
    ChildResult m_result;
    qsizetype m_maxOut;
    qsizetype m_maxErr;
    bool m_mergeOutput;
    bool m_reported = false;
};

} // namespace chat2sbx
