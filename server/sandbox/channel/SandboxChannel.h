#pragma once

#include "core/LogRateLimiter.h"
#include "sandbox/channel/HelperFrameReader.h"
#include "sandbox/channel/SandboxResolver.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QString>

#include <functional>

class QProcess;
class QTimer;

namespace chat2sbx {

class SbxDriver;

// One answer of the in-sandbox helper (server/sandbox/channel/PROTOCOL.md), or why there is none.
struct ChannelReply {
    bool ok = false;            // the helper answered "ok"
    bool channelFailure = false; // no answer at all: timeout, channel died or could not start
    QString code;               // helper error code (enoent, eacces, eisdir, enotdir, einval, efbig, eio)
    QString error;              // readable reason when !ok
    QMap<QString, QString> meta;
    QByteArray data;
};

// The control channel of one running sandbox: a long-lived `sbx exec -i <runtime> bash ...` child
// (started only through SbxDriver::startInteractive) running the helper script, with requests
// multiplexed by id. Each request has its own timeout; a timeout triggers a health ping, and a
// ping that times out (or the child exiting) restarts the child. Pending requests then fail with
// channelFailure; state inside the VM (bash sessions) is untouched.
class SandboxChannel : public QObject {
    Q_OBJECT
public:
    struct Options {
        int startTimeoutMs = 60000;   // first pong after starting the child
        int pingTimeoutMs = 5000;
        int defaultTimeoutMs = 30000;
        int maxRestartDelayMs = 5000;
        int maxFailedStarts = 3;      // then wait for the next request before trying again
        // false: after the child exits on its own, emit exited() and restart only on resumeRestarts()
        // or the next request (the owner first checks whether the VM itself stopped).
        bool restartAfterExit = true;
        // Who runs this channel's helpers ([A-Za-z0-9-]+): a new helper kills an earlier one of the
        // same owner that still runs (a server restarted after kill -9 cannot ask for that), and
        // leaves other owners' alone (a CLI command's channel beside the server's).
        QString owner = QStringLiteral("server");
    };
    using Callback = std::function<void(const ChannelReply &)>;

    SandboxChannel(SbxDriver &driver, const RunningSandbox &sandbox, const Options &options, QObject *parent = nullptr);
    ~SandboxChannel() override;

    const RunningSandbox &sandbox() const { return m_sandbox; }
    void setSandbox(const RunningSandbox &sandbox) { m_sandbox = sandbox; }

    // Sends one request; `done` runs exactly once, later, from the event loop. Its timeout counts
    // from the helper's first answer when the child is still starting.
    // Returns the request's id (for cancel()).
    quint64 request(const QString &op, const QList<QByteArray> &args, int timeoutMs, Callback done);
    // The caller gives up on a request: `done` runs now with code "cancelled", and the helper kills
    // its handler (a pack of a large folder ends at once). Nothing when it has answered already.
    void cancel(quint64 id);
    // `check` runs when the helper of the next child (the one that starts a woken VM) first answers;
    // until then requests are held here, not sent. If it fails, they fail with its reason and the
    // child is stopped. A check already run, or none, is ignored; with a healthy child it runs now.
    void checkAtStart(const std::shared_ptr<StartCheck> &check);
    void ping(int timeoutMs, Callback done);
    // Kills the child and fails everything pending; the next request starts a new child.
    void stop();
    // As stop(), for a host that is ending: the child is neither killed nor told anything now, and
    // is handed back (null: none ran) for ChannelPool, whose input ends after the event loop;
    // the helper then ends as it does when its host goes (its handlers finish). Ended during the
    // loop, a thousand children ending together took the two cores from the host's own last steps:
    // a serve with 1,000 sandboxes did not exit within 30 s of SIGTERM on this machine.
    QProcess *letGo();
    // With restartAfterExit false: restart (with the usual back-off) after exited().
    void resumeRestarts();

    bool isRunning() const { return m_proc != nullptr; }
    bool isHealthy() const { return m_proc != nullptr && m_healthy; }
    int starts() const { return m_starts; }
    int pendingCount() const { return static_cast<int>(m_pending.size()); }

    // The helper script (resource) and the bootstrap the child runs.
    static QByteArray helperScript();
    // The programs the helper runs besides bash and its builtins (ripgrep is optional). `setup`
    // checks that the template has every one; tst_helper_script checks that the list is complete.
    static QStringList helperCommands();
    static QStringList bootstrapCommand(const RunningSandbox &sandbox, qsizetype scriptSize, const QString &owner);

signals:
    void restarted();
    // The child exited on its own (not through stop()); pending requests have failed.
    void exited();

private:
    bool disown(QProcess *proc);
    void release(QProcess *proc);
    struct Pending {
        QString op;
        Callback done;
        QTimer *timer = nullptr;
    };

    void ensureStarted();
    void startChild();
    void onChildGone(const QString &why);
    void onStdout();
    void handleLine(const QByteArray &line);
    void warnAboutOutput(const QString &what, const QByteArray &sample);
    void complete(quint64 id, const ChannelReply &reply);
    void onRequestTimeout(quint64 id);
    void healthCheck();
    void startWaitingTimers();
    void failAll(const QString &why, bool channelFailure = true);
    void runStartCheck();
    void scheduleRestart();
    void writeFrame(quint64 id, const QString &op, const QList<QByteArray> &args);
    // Tells the helper to kill the handler of a request the host gave up on (PROTOCOL.md, `cancel`).
    void cancelRemote(quint64 id);
    // Asks a new helper to kill the one it replaced (and that one's handlers), when that may still run.
    void reapReplacedHelper();

    // Outlives this: ChannelPool owns the channels and holds the same SbxDriver.
    SbxDriver &m_driver;
    RunningSandbox m_sandbox;
    Options m_options;
    QProcess *m_proc = nullptr;
    HelperFrameReader m_frames;
    // Everything on the helper's stdout can come from code in the VM: warnings about it are rate-limited.
    LogRateLimiter m_frameWarnings{5, 60000};
    QElapsedTimer m_age;
    QByteArray m_stderrTail;
    QHash<quint64, Pending> m_pending;
    std::shared_ptr<StartCheck> m_startCheck;
    QList<QPair<quint64, QByteArray>> m_held;   // frames waiting for m_startCheck, in order
    quint64 m_nextId = 1;
    bool m_healthy = false;
    bool m_healthCheckRunning = false;
    bool m_restartScheduled = false;
    bool m_stopping = false;
    int m_starts = 0;
    int m_failedStarts = 0;
    QByteArray m_helperPid;     // pid (in the VM) of the current child's helper, from its pong
    QByteArray m_replacedPid;   // the previous helper's pid, until the new helper has reaped it
};

} // namespace chat2sbx
