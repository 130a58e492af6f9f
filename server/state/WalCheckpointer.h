#pragma once

#include <QString>

#include <condition_variable>
#include <mutex>
#include <thread>

struct sqlite3;

namespace chat2sbx {

// Moves the WAL checkpoint of a connection off its thread. SQLite's automatic checkpoint runs
// inside the commit that crosses the threshold: it copies the WAL into the database file and
// fsyncs both, on the event loop, and every request waiting behind that commit waits too (the p99
// of tools/call). Started on a connection, this turns that off and registers a WAL hook that only
// wakes a thread of its own, which runs a PASSIVE checkpoint on its own connection to the same
// file (it never blocks a writer or reader; what it cannot copy yet is copied next time). Commits
// are unaffected: each is in the WAL before it returns, so it survives a kill -9 as before.
class WalCheckpointer {
public:
    static constexpr int kThresholdPages = 1000;   // SQLite's default wal_autocheckpoint

    WalCheckpointer() = default;
    ~WalCheckpointer() { stop(); }
    WalCheckpointer(const WalCheckpointer &) = delete;
    WalCheckpointer &operator=(const WalCheckpointer &) = delete;

    // `connection` is the (open, WAL) connection whose commits are watched; `path` its file.
    bool start(sqlite3 *connection, const QString &path, QString &error);
    // Restores the automatic checkpoint on the watched connection and ends the thread (after the
    // checkpoint it may be running). Call before that connection closes.
    void stop();
    bool isRunning() const { return m_thread.joinable(); }
    // Checkpoints the thread has run (tests).
    int checkpoints() const;

private:
    static int onCommit(void *self, sqlite3 *db, const char *name, int pages);
    void run();

    sqlite3 *m_watched = nullptr;
    sqlite3 *m_own = nullptr;
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    int m_wokenAtPages = 0;   // WAL size at the last wake-up (watched connection's thread only)
    bool m_due = false;
    bool m_stopping = false;
    int m_checkpoints = 0;
};

} // namespace chat2sbx
