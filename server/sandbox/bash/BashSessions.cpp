#include "sandbox/bash/BashSessions.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/bash/StopReasons.h"
#include "sandbox/channel/ChannelPool.h"

#include <QPointer>
#include <QTimer>

#include <utility>

namespace chat2sbx {

namespace {

constexpr int kReadTimeoutMs = 10000;
// Later checks of `bash` wait in the helper for the command to exit (it looks every few ms without
// starting a program) for up to this long, instead of the host asking again after a timer.
constexpr int kHelperWaitMs = 500;
constexpr int kStartTimeoutMs = 20000;
constexpr int kStopTimeoutMs = 15000;
// bash_start sent at most this often while the channel fails under it (see sendStart).
constexpr int kStartAttempts = 3;

// "exited:3" / "timedout:124" (stopped by timeout_ms) / "lost" (the watcher vanished, e.g. the VM
// restarted) / "running".
bool stateExited(const QString &state, std::optional<int> &code)
{
    if (state.startsWith(QLatin1String("exited:")) || state.startsWith(QLatin1String("timedout:"))) {
        bool ok = false;
        const int c = state.mid(state.indexOf(QLatin1Char(':')) + 1).trimmed().toInt(&ok);
        code = ok ? std::optional<int>(c) : std::nullopt;
        return true;
    }
    if (state == QLatin1String("lost")) {
        code = std::nullopt;
        return true;
    }
    return false;
}

} // namespace

struct BashSessions::Wait {
    RunningSandbox sandbox;
    BashSessionRecord rec;
    bool untilExit = false;      // `bash`: wait for exit or a full response; `bash_poll`: for any new output
    bool firstSnapshot = false;  // `bash`: an unreadable first snapshot still returns the session as running
    bool launchUnknown = false;  // bash_start got no answer: a missing session means it never launched
    QList<QByteArray> startArgs;
    int startTimeoutMs = 0;
    int startAttempts = 0;
    QElapsedTimer clock;
    int yieldMs = 0;
    int tickMs = 50;
    bool checkedOnce = false;
    bool cancelled = false;      // answered "cancelled"; whatever of this wait is still under way is ignored
    QString lastError;
    std::function<void()> release;
    SnapshotDone done;

    bool expired() const { return clock.elapsed() >= yieldMs; }
};

BashSessions::BashSessions(Database &db, ChannelPool &channels, Clock &clock, QObject *parent)
    : QObject(parent), m_repo(db), m_channels(channels), m_clock(clock),
      m_prefetch(kMaxPrefetchedTotal, [&clock] { return clock.nowMs(); })
{
    m_prefetchSweep.setInterval(kPrefetchIdleMs / 2);
    connect(&m_prefetchSweep, &QTimer::timeout, this, [this] { m_prefetch.dropIdle(kPrefetchIdleMs); });
    m_prefetchSweep.start();
}

BashSessions::~BashSessions() = default;

qsizetype BashSessions::completeUtf8Prefix(const QByteArray &bytes)
{
    const qsizetype n = bytes.size();
    // Look back at most 3 bytes for the lead byte of a possibly unfinished sequence.
    for (qsizetype back = 1; back <= 3 && back <= n; ++back) {
        const auto c = static_cast<unsigned char>(bytes.at(n - back));
        if ((c & 0xC0) == 0x80)
            continue;   // continuation byte: keep looking for the lead
        int need = 0;
        if ((c & 0xE0) == 0xC0)
            need = 2;
        else if ((c & 0xF0) == 0xE0)
            need = 3;
        else if ((c & 0xF8) == 0xF0)
            need = 4;
        if (need > back)
            return n - back;   // the sequence starting here is not complete yet
        return n;
    }
    return n;
}

void BashSessions::runExclusive(const QString &sessionId, std::function<void(std::function<void()>)> fn)
{
    auto task = [this, sessionId, fn] {
        auto released = std::make_shared<bool>(false);
        fn([this, sessionId, released] {
            if (*released)
                return;
            *released = true;
            auto it = m_queues.find(sessionId);
            if (it == m_queues.end())
                return;
            if (it.value()->empty()) {
                m_queues.erase(it);
                return;
            }
            auto next = std::move(it.value()->front());
            it.value()->pop_front();
            QTimer::singleShot(0, this, next);
        });
    };
    auto it = m_queues.find(sessionId);
    if (it != m_queues.end()) {
        it.value()->push_back(task);
        return;
    }
    m_queues.insert(sessionId, std::make_shared<std::deque<std::function<void()>>>());
    task();
}

void BashSessions::endOnCancel(const std::shared_ptr<Wait> &w, const CancellationToken &cancel)
{
    QPointer<BashSessions> self(this);
    std::weak_ptr<Wait> weak = w;
    cancel.onCancel([self, weak] {
        const auto wait = weak.lock();
        if (!self || !wait || wait->cancelled || !wait->done)
            return;
        wait->cancelled = true;
        self->finishWait(wait, false, QStringLiteral("cancelled"), {});
    });
}

void BashSessions::start(const RunningSandbox &sandbox, const BashStartSpec &spec, SnapshotDone done,
                         const CancellationToken &cancel)
{
    auto w = std::make_shared<Wait>();
    w->clock.start();
    w->sandbox = sandbox;
    w->untilExit = true;
    w->firstSnapshot = true;
    w->yieldMs = spec.yieldMs;
    w->tickMs = kFirstTickMs;
    w->done = std::move(done);
    w->rec.id = newId("bash_");
    w->rec.sandboxId = sandbox.sandboxId;
    w->rec.command = spec.command;
    w->rec.cwd = spec.cwd;
    w->rec.startedAt = m_clock.nowMs();

    QString error;
    if (!m_repo.insert(w->rec, error))
        return w->done(false, error, {});

    QByteArray env;
    for (const auto &kv : spec.env)
        env += kv.first.toUtf8() + '=' + kv.second.toUtf8() + '\0';

    // The helper waits for a quick command's exit and answers with its first snapshot as well, as
    // the first bash_read would: one round trip for `bash` of a quick command.
    const int helperWait = static_cast<int>(std::min<qint64>(spec.yieldMs, kHelperWaitMs));
    w->startArgs = {w->rec.id.toUtf8(), spec.cwd.toUtf8(), QByteArray::number(spec.timeoutMs), spec.command.toUtf8(),
                    spec.stdinPipe ? "1" : "0", env, QByteArray::number(helperWait), QByteArray::number(kPrefetchBytes)};
    w->startTimeoutMs = kStartTimeoutMs + helperWait;
    m_launching.insert(w->rec.id, m_clock.nowMs());
    sendStart(w, false);
    endOnCancel(w, cancel);
}

// bash_start, also sent again when the first one got no answer and the session turned out never to
// have reached the helper (the channel died under it): the helper starts a session id once, so a
// start that did arrive is answered `existed` instead of running the command twice.
void BashSessions::sendStart(const std::shared_ptr<Wait> &w, bool exclusiveHeld)
{
    ++w->startAttempts;
    m_channels.channelFor(w->sandbox).request(
        QStringLiteral("bash_start"), w->startArgs, w->startTimeoutMs, [this, w, exclusiveHeld](const ChannelReply &r) {
            if (!r.channelFailure)
                m_launching.remove(w->rec.id);   // the helper has it (or refused it)
            if (w->cancelled)
                return;   // the command runs on; bash_list shows it
            if (!r.ok && !r.channelFailure) {
                QString ignored;
                m_repo.remove(w->rec.id, ignored);
                m_launching.remove(w->rec.id);
                return finishWait(w, false, QStringLiteral("cannot start the command: %1").arg(r.error), {});
            }
            w->launchUnknown = r.channelFailure;
            auto proceed = [this, w, r] {
                // An `existed` answer (a repeated start) or a helper without the snapshot: look.
                if (r.ok && r.meta.contains(QStringLiteral("state"))) {
                    w->checkedOnce = true;
                    return onRead(w, r, true, false);
                }
                tick(w);
            };
            if (exclusiveHeld)
                return proceed();
            runExclusive(w->rec.id, [this, w, proceed](std::function<void()> release) {
                w->release = std::move(release);
                if (w->cancelled)
                    return finishWait(w, false, {}, {});
                proceed();
            });
        });
}

void BashSessions::poll(const RunningSandbox &sandbox, const QString &sessionId, int yieldMs, SnapshotDone done,
                        const CancellationToken &cancel)
{
    auto w = std::make_shared<Wait>();
    w->clock.start();
    w->sandbox = sandbox;
    w->yieldMs = yieldMs;
    w->tickMs = kFirstTickMs;
    w->done = std::move(done);
    endOnCancel(w, cancel);
    runExclusive(sessionId, [this, w, sessionId](std::function<void()> release) {
        w->release = std::move(release);
        if (w->cancelled)
            return finishWait(w, false, {}, {});
        const auto rec = m_repo.find(sessionId);
        if (!rec || rec->sandboxId != w->sandbox.sandboxId)
            return finishWait(w, false,
                              QStringLiteral("no bash session %1 in sandbox %2").arg(sessionId, w->sandbox.sandboxId), {});
        w->rec = *rec;
        pollBuffered(w);
    });
}

// Output already fetched is answered at once; a poll that finds the buffer empty while a read-ahead
// is on its way waits for it instead of reading the same bytes again.
void BashSessions::pollBuffered(const std::shared_ptr<Wait> &w)
{
    if (w->cancelled)
        return;
    OutputPrefetch::Entry *e = m_prefetch.find(w->rec.id);
    if (e && e->offset != w->rec.readOffset) {
        m_prefetch.drop(w->rec.id);
        e = nullptr;
    }
    if (e && e->remaining() > 0)
        return answer(w, e->state, e->size, e->data, e->from, true);
    if (e && e->fetching) {
        e->whenFetched = [this, w] { pollBuffered(w); };
        return;
    }
    tick(w);
}

void BashSessions::scheduleTick(const std::shared_ptr<Wait> &w)
{
    const qint64 left = w->yieldMs - w->clock.elapsed();
    const int delay = static_cast<int>(std::max<qint64>(0, std::min<qint64>(w->tickMs, left)));
    w->tickMs = std::min(kMaxTickMs, w->tickMs * 2);
    QTimer::singleShot(delay, this, [this, w] {
        if (!w->cancelled)
            tick(w);
    });
}

void BashSessions::finishWait(const std::shared_ptr<Wait> &w, bool ok, const QString &error, const BashSnapshot &s)
{
    if (w->release)
        w->release();
    w->release = nullptr;
    if (w->done)
        w->done(ok, error, s);
    w->done = nullptr;
}

bool BashSessions::recordExit(BashSessionRecord &rec, const QString &state, QString &error)
{
    std::optional<int> code;
    if (!stateExited(state, code))
        return true;
    if (rec.exited)
        return true;
    if (state == QLatin1String("lost")) {
        if (!m_repo.markLost(rec.id, stopReasons::sessionLostWithoutStatus(), m_clock.nowMs(), error))
            return false;
        rec.lostReason = stopReasons::sessionLostWithoutStatus();
    } else if (!m_repo.markExited(rec.id, code, m_clock.nowMs(), error)) {
        return false;
    }
    rec.exited = true;
    rec.exitCode = code;
    return true;
}

// A failed read: retried until the yield expires while the channel restarts; a helper-reported
// error ends the wait.
static QString unreachable(const QString &why)
{
    return QStringLiteral("could not reach the sandbox: %1").arg(why);
}

void BashSessions::tick(const std::shared_ptr<Wait> &w)
{
    // The first check of `bash` and every check of `bash_poll` carry the data too (one round trip for
    // a quick command); later checks of `bash` only look at state and size until it is time to answer.
    const bool withData = !w->untilExit || !w->checkedOnce;
    w->checkedOnce = true;
    QList<QByteArray> args{w->rec.id.toUtf8(), QByteArray::number(w->rec.readOffset),
                           QByteArray::number(withData ? kPrefetchBytes : 0)};
    const qint64 left = w->yieldMs - w->clock.elapsed();
    const bool helperWaits = !withData && left > 0;
    if (helperWaits)
        args.append(QByteArray::number(std::min<qint64>(left, kHelperWaitMs)));
    m_channels.channelFor(w->sandbox).request(
        QStringLiteral("bash_read"), args,
        kReadTimeoutMs + kHelperWaitMs, [this, w, withData, helperWaits](const ChannelReply &r) {
            if (w->cancelled)
                return;
            onRead(w, r, withData, helperWaits);
        });
}

void BashSessions::onRead(const std::shared_ptr<Wait> &w, const ChannelReply &r, bool withData, bool helperWaits)
{
    if (!r.ok) {
        if (!r.channelFailure) {
            if (r.code == QLatin1String("enoent") && w->launchUnknown && w->startAttempts < kStartAttempts)
                return sendStart(w, true);
            if (r.code == QLatin1String("enoent") && w->launchUnknown) {
                QString ignored;
                m_repo.remove(w->rec.id, ignored);
                return finishWait(w, false, QStringLiteral("the command could not be started in the sandbox"), {});
            }
            if (r.code == QLatin1String("enoent"))
                return finishWait(w, false,
                                  QStringLiteral("the output of bash session %1 is no longer available in the sandbox")
                                      .arg(w->rec.id), {});
            return finishWait(w, false, r.error, {});
        }
        w->lastError = r.error;
        if (w->expired()) {
            if (w->firstSnapshot) {
                BashSnapshot s;
                s.sessionId = w->rec.id;
                return finishWait(w, true, {}, s);
            }
            return finishWait(w, false, unreachable(r.error), {});
        }
        return scheduleTick(w);
    }
    w->launchUnknown = false;
    std::optional<int> code;
    const bool exited = stateExited(r.meta.value(QStringLiteral("state")), code);
    const qint64 avail = r.meta.value(QStringLiteral("size")).toLongLong() - w->rec.readOffset;
    const bool ready = exited || avail >= kMaxOutputBytes || w->expired() || (!w->untilExit && avail > 0);
    if (!ready)
        return helperWaits ? tick(w) : scheduleTick(w);
    if (withData)
        return answerWith(w, r);
    readData(w);
}

void BashSessions::readData(const std::shared_ptr<Wait> &w)
{
    m_channels.channelFor(w->sandbox).request(
        QStringLiteral("bash_read"),
        {w->rec.id.toUtf8(), QByteArray::number(w->rec.readOffset), QByteArray::number(kPrefetchBytes)}, kReadTimeoutMs,
        [this, w](const ChannelReply &r) {
            if (w->cancelled)
                return;
            if (!r.ok) {
                if (r.channelFailure && !w->expired())
                    return scheduleTick(w);
                if (r.channelFailure && w->firstSnapshot) {
                    BashSnapshot s;
                    s.sessionId = w->rec.id;
                    return finishWait(w, true, {}, s);
                }
                return finishWait(w, false, r.channelFailure ? unreachable(r.error) : r.error, {});
            }
            answerWith(w, r);
        });
}

void BashSessions::answerWith(const std::shared_ptr<Wait> &w, const ChannelReply &r)
{
    answer(w, r.meta.value(QStringLiteral("state")), r.meta.value(QStringLiteral("size")).toLongLong(), r.data);
}

void BashSessions::readAhead(const RunningSandbox &sandbox, const QString &sessionId)
{
    OutputPrefetch::Entry *e = m_prefetch.find(sessionId);
    if (!e || e->fetching || e->remaining() >= kReadAheadBelow)
        return;
    std::optional<int> code;
    if (stateExited(e->state, code) && e->end() >= e->size)
        return;   // everything the command wrote is here already
    e->fetching = true;
    const qint64 at = e->end();
    m_channels.channelFor(sandbox).request(
        QStringLiteral("bash_read"), {sessionId.toUtf8(), QByteArray::number(at), QByteArray::number(kPrefetchBytes)},
        kReadTimeoutMs, [this, sessionId, at](const ChannelReply &r) {
            OutputPrefetch::Entry *entry = m_prefetch.find(sessionId);
            if (!entry)
                return;
            entry->fetching = false;
            if (r.ok)
                m_prefetch.append(sessionId, at, r.data, r.meta.value(QStringLiteral("size")).toLongLong(),
                                  r.meta.value(QStringLiteral("state")));
            entry = m_prefetch.find(sessionId);
            if (entry && entry->whenFetched)
                std::exchange(entry->whenFetched, nullptr)();
        });
}

// data[from...] is the output from the session's read offset on (up to kPrefetchBytes, fresh from the
// helper or from the prefetch buffer); at most kMaxOutputBytes of it are returned, the rest is kept.
void BashSessions::answer(const std::shared_ptr<Wait> &w, const QString &state, qint64 size, const QByteArray &data,
                          qsizetype from, bool fromBuffer)
{
    std::optional<int> code;
    const bool exited = stateExited(state, code);
    const qsizetype available = data.size() - from;
    const QByteArray chunk = data.mid(from, kMaxOutputBytes);
    const bool moreAfter = size > w->rec.readOffset + chunk.size();
    const qsizetype emitLen = (!exited || moreAfter) ? completeUtf8Prefix(chunk) : chunk.size();
    if (emitLen == 0 && !exited && !w->expired() && available < kMaxOutputBytes)
        return scheduleTick(w);   // only part of a character so far

    QString error;
    const qint64 newOffset = w->rec.readOffset + emitLen;
    if (newOffset != w->rec.readOffset && !m_repo.setReadOffset(w->rec.id, newOffset, error))
        return finishWait(w, false, error, {});
    w->rec.readOffset = newOffset;
    if (!recordExit(w->rec, state, error))
        return finishWait(w, false, error, {});
    const bool streaming = emitLen >= kMaxOutputBytes - 3;
    if (fromBuffer)
        m_prefetch.consume(w->rec.id, emitLen);
    else if (available > emitLen)
        m_prefetch.keep(w->rec.id, newOffset, data, from + emitLen, size, state);
    else if (streaming)
        m_prefetch.keep(w->rec.id, newOffset, {}, 0, size, state);   // empty, for readAhead to fill
    else
        m_prefetch.drop(w->rec.id);
    if (streaming)
        readAhead(w->sandbox, w->rec.id);   // fetch the next megabytes while this answer is on its way

    BashSnapshot s;
    s.sessionId = w->rec.id;
    s.exited = exited;
    s.exitCode = exited ? code : std::nullopt;
    s.timedOut = state.startsWith(QLatin1String("timedout:"));
    s.output = QString::fromUtf8(chunk.constData(), emitLen);
    s.hasMoreOutput = size > newOffset;
    s.lostReason = w->rec.lostReason;
    finishWait(w, true, {}, s);
}

void BashSessions::stop(const RunningSandbox &sandbox, const QString &sessionId, SnapshotDone done)
{
    auto rec = m_repo.find(sessionId);
    if (!rec || rec->sandboxId != sandbox.sandboxId)
        return done(false, QStringLiteral("no bash session %1 in sandbox %2").arg(sessionId, sandbox.sandboxId), {});
    if (rec->exited)
        return poll(sandbox, sessionId, 0, std::move(done));
    m_channels.channelFor(sandbox).request(
        QStringLiteral("bash_stop"), {sessionId.toUtf8()}, kStopTimeoutMs,
        [this, sandbox, sessionId, done](const ChannelReply &r) {
            if (!r.ok)
                return done(false, r.channelFailure ? unreachable(r.error) : r.error, {});
            poll(sandbox, sessionId, 0, done);
        });
}

void BashSessions::write(const RunningSandbox &sandbox, const QString &sessionId, const QByteArray &input, bool closeStdin,
                         int yieldMs, SnapshotDone done, const CancellationToken &cancel)
{
    auto rec = m_repo.find(sessionId);
    if (!rec || rec->sandboxId != sandbox.sandboxId)
        return done(false, QStringLiteral("no bash session %1 in sandbox %2").arg(sessionId, sandbox.sandboxId), {});
    if (rec->exited)
        return done(false, QStringLiteral("bash session %1 has already exited; its input is closed").arg(sessionId), {});
    m_channels.channelFor(sandbox).request(
        QStringLiteral("bash_input"), {sessionId.toUtf8(), closeStdin ? "1" : "0", input}, kStopTimeoutMs,
        [this, sandbox, sessionId, yieldMs, done, cancel](const ChannelReply &r) {
            if (!r.ok)
                return done(false, r.channelFailure ? unreachable(r.error) : r.error, {});
            poll(sandbox, sessionId, yieldMs, done, cancel);
        });
}

void BashSessions::list(const RunningSandbox &sandbox, ListDone done)
{
    const QString sandboxId = sandbox.sandboxId;
    auto finish = [this, sandboxId, done](const QList<BashSessionRecord> &records) {
        int endedShown = 0;
        for (const auto &r : records)
            endedShown += r.exited ? 1 : 0;
        done(records, qMax(0, m_repo.countEnded(sandboxId) - endedShown));
    };
    const QList<BashSessionRecord> records = m_repo.listForSandbox(sandboxId);
    QList<QByteArray> running;
    for (const auto &r : records)
        if (!r.exited)
            running << r.id.toUtf8();
    if (running.isEmpty())
        return finish(records);
    m_channels.channelFor(sandbox).request(
        QStringLiteral("bash_status"), running, kReadTimeoutMs, [this, sandboxId, finish](const ChannelReply &r) {
            QList<BashSessionRecord> out = m_repo.listForSandbox(sandboxId);
            const qint64 now = m_clock.nowMs();
            if (r.ok) {
                for (auto &rec : out) {
                    const QString state = r.meta.value(rec.id);
                    QString error;
                    if (rec.exited || state.isEmpty())
                        continue;
                    const auto launching = m_launching.find(rec.id);
                    if (launching != m_launching.end()) {
                        if (state == QLatin1String("missing") && now - *launching <= kStartTimeoutMs + kHelperWaitMs)
                            continue;   // its start is still on the way to the helper
                        m_launching.erase(launching);
                    }
                    recordExit(rec, state == QLatin1String("missing") ? QStringLiteral("lost") : state, error);
                }
            }
            finish(out);
        });
}

} // namespace chat2sbx
