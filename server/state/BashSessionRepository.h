#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace chat2sbx {

class Database;

// One row of bash_sessions: a command started detached inside a sandbox. read_offset is how many
// bytes of its output file have been returned to the model.
struct BashSessionRecord {
    QString id;              // bash_ + random
    QString sandboxId;
    QString command;
    QString cwd;             // as requested (empty: the workspace)
    bool exited = false;
    std::optional<int> exitCode;
    qint64 startedAt = 0;
    qint64 finishedAt = 0;
    qint64 readOffset = 0;
    QString lostReason;      // set when the command's processes died without an exit status (status `lost`)
};

// Rows of bash_sessions. Every write is committed before it returns.
class BashSessionRepository {
public:
    explicit BashSessionRepository(Database &db) : m_db(db) {}

    bool insert(const BashSessionRecord &s, QString &error);
    bool remove(const QString &id, QString &error);
    std::optional<BashSessionRecord> find(const QString &id) const;
    // Every running session and the `maxEnded` most recently started ended ones, oldest first.
    QList<BashSessionRecord> listForSandbox(const QString &sandboxId, int maxEnded = kMaxListedEnded) const;
    // How many ended sessions the sandbox has in all (bash_list says how many it left out).
    int countEnded(const QString &sandboxId) const;
    // Deletes the sessions of destroyed sandboxes and ended sessions that finished before
    // `nowMs - maxEndedAgeMs`; returns how many rows went (-1 on error).
    int prune(qint64 nowMs, qint64 maxEndedAgeMs, QString &error);

    static constexpr int kMaxListedEnded = 100;
    // The command is stored for bash_list and the tray only; it already ran, so a long one is cut.
    static constexpr int kMaxStoredCommandChars = 4000;
    bool setReadOffset(const QString &id, qint64 offset, QString &error);
    bool markExited(const QString &id, std::optional<int> exitCode, qint64 finishedAt, QString &error);
    // The command's processes are gone and its exit status with them (the VM stopped): `lost`.
    bool markLost(const QString &id, const QString &reason, qint64 finishedAt, QString &error);
    // Every running session of the sandbox started at or before `startedBefore`; returns how many (-1: error).
    int markSandboxSessionsLost(const QString &sandboxId, const QString &reason, qint64 startedBefore, qint64 finishedAt,
                                QString &error);
    bool hasRunning(const QString &sandboxId) const;

private:
    // Outlives this: a repository is a member or a local of the database's user.
    Database &m_db;
};

} // namespace chat2sbx
