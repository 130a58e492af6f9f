#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

#include <functional>

namespace chat2sbx {

// Bash output read from the helper ahead of the polls that return it, by session. A poll carries at
// most 60,000 bytes, but one helper round trip fetches megabytes: the rest waits here. An entry is
// only used when it continues exactly at the session's persisted read offset, so losing it (restart,
// eviction) loses nothing: the offset only ever advances over output that was returned.
class OutputPrefetch {
public:
    struct Entry {
        qint64 offset = 0;     // output offset of data[from]
        QByteArray data;       // shared, never copied per poll: consuming only moves `from`
        qsizetype from = 0;
        qint64 size = 0;       // the output file's size at the last read
        QString state;         // the session state seen before that read
        bool fetching = false; // a read-ahead is on its way
        std::function<void()> whenFetched;   // a poll waiting for that read-ahead
        qint64 usedAtMs = 0;   // last keep/consume/append, for dropIdle()

        qsizetype remaining() const { return data.size() - from; }
        qint64 end() const { return offset + remaining(); }
    };

    // `nowMs` stamps each use (a steady clock; tests pass their own).
    explicit OutputPrefetch(qint64 maxTotalBytes, std::function<qint64()> nowMs);

    Entry *find(const QString &sessionId);
    // Replaces the entry's content (a pending read-ahead stays pending; its result is used only if
    // it still continues the new content).
    void keep(const QString &sessionId, qint64 offset, const QByteArray &data, qsizetype from, qint64 size,
              const QString &state);
    void consume(const QString &sessionId, qsizetype bytes);
    // A read-ahead's result for output offset `at`; ignored unless it continues the entry.
    void append(const QString &sessionId, qint64 at, const QByteArray &more, qint64 size, const QString &state);
    // Removes the entry; a waiting poll is resumed (it then reads from the helper itself).
    void drop(const QString &sessionId);
    // Drops buffers nobody used for `idleMs` (a client that stopped polling a stream).
    void dropIdle(qint64 idleMs);
    qint64 totalBytes() const { return m_total; }

private:
    void makeRoomFor(qint64 bytes, const QString &keepId);

    QHash<QString, Entry> m_entries;
    qint64 m_total = 0;
    qint64 m_maxTotal;
    std::function<qint64()> m_nowMs;
};

} // namespace chat2sbx
