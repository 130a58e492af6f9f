#include "state/WalCheckpointer.h"

#include <QFile>

#include <sqlite3.h>

namespace chat2sbx {

bool WalCheckpointer::start(sqlite3 *connection, const QString &path, QString &error)
{
    stop();
    if (!connection) {
        error = QStringLiteral("no SQLite connection to watch");
        return false;
    }
    sqlite3 *own = nullptr;
    if (sqlite3_open_v2(QFile::encodeName(path).constData(), &own, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr)
        != SQLITE_OK) {
        error = QStringLiteral("cannot open a checkpoint connection to %1: %2")
                    .arg(path, QString::fromUtf8(own ? sqlite3_errmsg(own) : "out of memory"));
        sqlite3_close(own);
        return false;
    }
    // Never wait for a lock: a PASSIVE checkpoint does what it can and the next one does the rest.
    sqlite3_busy_timeout(own, 0);
    m_own = own;
    m_watched = connection;
    m_due = false;
    m_stopping = false;
    m_wokenAtPages = 0;
    m_thread = std::thread([this] { run(); });
    // Replaces the automatic checkpoint (which is itself a WAL hook) on the watched connection.
    sqlite3_wal_hook(m_watched, &WalCheckpointer::onCommit, this);
    return true;
}

void WalCheckpointer::stop()
{
    if (!m_thread.joinable())
        return;
    sqlite3_wal_autocheckpoint(m_watched, kThresholdPages);   // also removes our hook
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_one();
    m_thread.join();
    sqlite3_close(m_own);
    m_own = nullptr;
    m_watched = nullptr;
}

int WalCheckpointer::checkpoints() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_checkpoints;
}

int WalCheckpointer::onCommit(void *self, sqlite3 *, const char *, int pages)
{
    // Runs in every commit of the watched connection (its thread): wakes the checkpoint thread
    // once when the WAL passes the threshold, and again only if it grows by another threshold
    // (a checkpoint that could not finish). Once a checkpoint is complete the next commit starts
    // the WAL from the beginning, and the count with it.
    auto *me = static_cast<WalCheckpointer *>(self);
    if (pages < kThresholdPages) {
        me->m_wokenAtPages = 0;
        return SQLITE_OK;
    }
    if (me->m_wokenAtPages > 0 && pages < me->m_wokenAtPages + kThresholdPages)
        return SQLITE_OK;
    me->m_wokenAtPages = pages;
    {
        std::lock_guard<std::mutex> lock(me->m_mutex);
        me->m_due = true;
    }
    me->m_wake.notify_one();
    return SQLITE_OK;
}

void WalCheckpointer::run()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_due || m_stopping; });
        if (m_stopping)
            return;
        m_due = false;
        lock.unlock();
        sqlite3_wal_checkpoint_v2(m_own, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        lock.lock();
        ++m_checkpoints;
    }
}

} // namespace chat2sbx
