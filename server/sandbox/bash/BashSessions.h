#pragma once

#include "core/CancellationToken.h"
#include "sandbox/bash/OutputPrefetch.h"
#include "sandbox/channel/SandboxResolver.h"
#include "state/BashSessionRepository.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QTimer>
#include <QPair>
#include <QString>

#include <deque>
#include <functional>
#include <memory>
#include <optional>

namespace chat2sbx {

class ChannelPool;
class Clock;
class Database;
struct ChannelReply;

// What `bash` and `bash_poll` return.
struct BashSnapshot {
    QString sessionId;
    bool exited = false;
    std::optional<int> exitCode;
    bool timedOut = false;                   // stopped by timeout_ms (exit code 124)
    QString output;
    bool hasMoreOutput = false;
    QString lostReason;                      // non-empty: `lost` (processes died without an exit status)
};

struct BashStartSpec {
    QString command;
    QString cwd;                             // empty: the workspace
    QList<QPair<QString, QString>> env;
    int yieldMs = 10000;
    int timeoutMs = 0;                       // 0: no limit
    bool stdinPipe = false;                  // stdin stays open for write(); otherwise /dev/null
};

// Bash sessions: commands started detached inside the VM (own process group, combined output in
// a file there, exit code recorded by a watcher) and read back from a persisted offset. The host
// does all waiting with timers; every wait is a sequence of short requests on the channel. Polls
// (and the first snapshot) of one session run one after another. A wait whose `cancel` token fires
// ends at once, answers "cancelled" and consumes no output: the session's next poll runs right away
// and returns what the cancelled wait would have.
class BashSessions : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxOutputBytes = 60000;
    // One read from the helper fetches up to this much; what a response cannot carry is kept on the
    // host for the next polls of the session, so a fast stream needs one round trip per 4 MiB.
    static constexpr int kPrefetchBytes = 4 * 1024 * 1024;
    static constexpr qint64 kMaxPrefetchedTotal = 64 * 1024 * 1024;
    // While output streams (full responses), the next read starts when less than this is buffered.
    static constexpr int kReadAheadBelow = 1024 * 1024;
    // A buffer nobody polled for this long is dropped (its bytes are re-read if a poll comes after all).
    static constexpr int kPrefetchIdleMs = 60000;

    using SnapshotDone = std::function<void(bool ok, const QString &error, const BashSnapshot &snapshot)>;
    // sessions: every running one and the most recent ended ones; omittedEnded: older ended ones left out.
    using ListDone = std::function<void(const QList<BashSessionRecord> &sessions, int omittedEnded)>;

    BashSessions(Database &db, ChannelPool &channels, Clock &clock, QObject *parent = nullptr);
    ChannelPool &channels() const { return m_channels; }
    ~BashSessions() override;

    void start(const RunningSandbox &sandbox, const BashStartSpec &spec, SnapshotDone done,
               const CancellationToken &cancel = {});
    void poll(const RunningSandbox &sandbox, const QString &sessionId, int yieldMs, SnapshotDone done,
              const CancellationToken &cancel = {});
    // Stops the command, then answers like poll: final status and output not returned yet.
    void stop(const RunningSandbox &sandbox, const QString &sessionId, SnapshotDone done);
    // Writes `input` to the command's stdin (and closes it when closeStdin), then answers like poll.
    void write(const RunningSandbox &sandbox, const QString &sessionId, const QByteArray &input, bool closeStdin,
               int yieldMs, SnapshotDone done, const CancellationToken &cancel = {});
    void list(const RunningSandbox &sandbox, ListDone done);
    // Whether the database still thinks a command of the sandbox runs (no round trip to the VM).
    bool hasRunning(const QString &sandboxId) const { return m_repo.hasRunning(sandboxId); }

    // The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence which
    // could still be completed by the bytes that follow.
    static qsizetype completeUtf8Prefix(const QByteArray &bytes);

private:
    struct Wait;
    void runExclusive(const QString &sessionId, std::function<void(std::function<void()> release)> fn);
    void endOnCancel(const std::shared_ptr<Wait> &w, const CancellationToken &cancel);
    void sendStart(const std::shared_ptr<Wait> &w, bool exclusiveHeld);
    void tick(const std::shared_ptr<Wait> &w);
    void onRead(const std::shared_ptr<Wait> &w, const ChannelReply &reply, bool withData, bool helperWaits);
    void readData(const std::shared_ptr<Wait> &w);
    void answerWith(const std::shared_ptr<Wait> &w, const ChannelReply &reply);
    void pollBuffered(const std::shared_ptr<Wait> &w);
    void answer(const std::shared_ptr<Wait> &w, const QString &state, qint64 size, const QByteArray &data,
                qsizetype from = 0, bool fromBuffer = false);
    void readAhead(const RunningSandbox &sandbox, const QString &sessionId);
    void scheduleTick(const std::shared_ptr<Wait> &w);
    void finishWait(const std::shared_ptr<Wait> &w, bool ok, const QString &error, const BashSnapshot &s);
    bool recordExit(BashSessionRecord &rec, const QString &state, QString &error);

    BashSessionRepository m_repo;
    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    ChannelPool &m_channels;
    Clock &m_clock;
    QHash<QString, std::shared_ptr<std::deque<std::function<void()>>>> m_queues;
    // Sessions whose bash_start the helper has not answered yet (-> when it was sent, Clock ms): its
    // `missing` for them in a bash_status means "not there yet", not "lost" (bash_list racing a start),
    // until the start's own timeout has passed.
    QHash<QString, qint64> m_launching;
    OutputPrefetch m_prefetch;
    QTimer m_prefetchSweep;
    // A waiting call looks at its output after 10 ms, then twice as long each time, at most 200 ms apart.
    static constexpr int kFirstTickMs = 10;
    static constexpr int kMaxTickMs = 200;
};

} // namespace chat2sbx
