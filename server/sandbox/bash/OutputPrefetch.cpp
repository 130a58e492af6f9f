#include "sandbox/bash/OutputPrefetch.h"

#include <QStringList>

#include <algorithm>

namespace chat2sbx {

OutputPrefetch::OutputPrefetch(qint64 maxTotalBytes, std::function<qint64()> nowMs)
    : m_maxTotal(maxTotalBytes), m_nowMs(std::move(nowMs))
{
}

OutputPrefetch::Entry *OutputPrefetch::find(const QString &sessionId)
{
    const auto it = m_entries.find(sessionId);
    return it == m_entries.end() ? nullptr : &it.value();
}

void OutputPrefetch::makeRoomFor(qint64 bytes, const QString &keepId)
{
    // Bounded memory: when many sessions stream at once, other buffers go; they are re-read.
    while (m_total + bytes > m_maxTotal) {
        auto victim = std::find_if(m_entries.keyBegin(), m_entries.keyEnd(), [&](const QString &k) { return k != keepId; });
        if (victim == m_entries.keyEnd())
            return;
        drop(*victim);
    }
}

void OutputPrefetch::keep(const QString &sessionId, qint64 offset, const QByteArray &data, qsizetype from, qint64 size,
                          const QString &state)
{
    Entry *e = find(sessionId);
    const qint64 before = e ? e->data.size() : 0;
    makeRoomFor(data.size() - before, sessionId);
    e = &m_entries[sessionId];
    m_total += data.size() - e->data.size();
    e->offset = offset;
    e->data = data;
    e->from = from;
    e->size = size;
    e->state = state;
    e->usedAtMs = m_nowMs();
}

void OutputPrefetch::consume(const QString &sessionId, qsizetype bytes)
{
    if (Entry *e = find(sessionId)) {
        const qsizetype n = std::min(bytes, e->remaining());
        e->from += n;
        e->offset += n;
        e->usedAtMs = m_nowMs();
    }
}

void OutputPrefetch::append(const QString &sessionId, qint64 at, const QByteArray &more, qint64 size, const QString &state)
{
    Entry *e = find(sessionId);
    if (!e || e->end() != at)
        return;
    const QByteArray joined = e->data.mid(e->from) + more;
    keep(sessionId, e->offset, joined, 0, size, state);
}

void OutputPrefetch::dropIdle(qint64 idleMs)
{
    const qint64 now = m_nowMs();
    QStringList idle;
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it)
        if (!it->fetching && !it->whenFetched && now - it->usedAtMs >= idleMs)
            idle << it.key();
    for (const QString &id : idle)
        drop(id);
}

void OutputPrefetch::drop(const QString &sessionId)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end())
        return;
    m_total -= it->data.size();
    auto waiter = std::move(it->whenFetched);
    m_entries.erase(it);
    if (waiter)
        waiter();
}

} // namespace chat2sbx
