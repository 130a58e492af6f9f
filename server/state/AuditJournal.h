#pragma once

#include "state/AuditEntry.h"

#include <QList>
#include <QString>
#include <QTimer>

namespace chat2sbx {

class Database;

// The server's audit rows are written ahead of the audit_log table, into a file of their own
// (`<database>-audit`, mode 0600), one line per row, with the row's id. Why: a tool call's answer
// may only leave once its row survives a kill -9, and one append is a single small write while
// an SQLite commit writes four pages to the WAL (the row, AUTOINCREMENT's counter and two
// indexes), the largest cost of a quick call. The lines are folded into the table a moment later
// (kFoldDelayMs), up to kFoldChunkRows per transaction and event-loop turn (so no request waits
// behind a long fold), and all at once before any read of the table in this process
// (AuditLogRepository), at shutdown, and at the next start after a crash. The file is emptied
// when every line is in the table. Folding inserts each id once (INSERT OR IGNORE), so a fold
// interrupted at any point is simply done again.
//
// Only the process holding the server lock owns a journal; others read its unfolded lines
// (readUnfolded) so that `chat2sbx audit` shows every acknowledged call.
class AuditJournal {
public:
    static constexpr int kFoldDelayMs = 25;
    static constexpr int kFoldAtRows = 256;         // fold at once (next turn) past this many lines
    static constexpr int kRetryMs = 1000;            // after a failed fold (e.g. the database is locked)
    static constexpr qint64 kMaxBytes = 32 << 20;    // past this, rows go straight to the table
    static constexpr int kMaxRowsInMemory = 4096;    // past this, a fold reads them back from the file
    static constexpr int kFoldChunkRows = 16;        // rows per transaction when the timer folds

    explicit AuditJournal(Database &db);
    ~AuditJournal();
    AuditJournal(const AuditJournal &) = delete;
    AuditJournal &operator=(const AuditJournal &) = delete;

    static QString pathFor(const QString &databasePath) { return databasePath + QStringLiteral("-audit"); }

    // Opens (creating) the journal beside the database, folds what a previous server left in it and
    // takes the next row id from the table. False with an error: rows then go straight to the table.
    bool open(QString &error);
    bool isOpen() const { return m_fd >= 0; }
    // Gives `entry` the next id and appends it. True once the line is written (the kernel has it).
    bool append(const AuditEntry &entry, QString &error);
    // Moves every line into the table and empties the file. Not inside another transaction (it
    // would commit that one): then it only schedules itself.
    bool fold(QString &error);
    qint64 unfoldedRows() const { return m_unfolded; }

    // The rows of the journal at `path`, oldest first: lines that do not parse (a line cut short by
    // a crash) are skipped and counted in `skipped`. At most kMaxBytes are read.
    static QList<AuditEntry> readUnfolded(const QString &path, int *skipped = nullptr);
    // One row as one line (ends with '\n'), and back.
    static QByteArray encode(const AuditEntry &entry);
    static bool decode(const QByteArray &line, AuditEntry &entry);

private:
    // `all` false: one chunk (kFoldChunkRows) per call, the next one in the next event-loop turn.
    bool foldRows(QString &error, bool all);
    bool foldFile(QString &error, bool all);
    bool insertRows(const QList<AuditEntry> &rows, qsizetype from, qsizetype count, QString &error);
    bool emptyFile(QString &error);
    void scheduleFold(int delayMs);
    qint64 nextIdFromTable(QString &error);

    // Outlives this: the Database owns its journal.
    Database &m_db;
    QString m_path;
    int m_fd = -1;
    qint64 m_nextId = 1;
    qint64 m_unfolded = 0;     // lines appended since the last fold
    qint64 m_bytes = 0;        // size of the file
    // The rows of the file, kept so that a fold need not read it back; unless m_foldFromFile (rows
    // a previous server left, or more than kMaxRowsInMemory waiting).
    QList<AuditEntry> m_rows;
    qsizetype m_rowsFolded = 0;   // m_rows before this index are in the table already
    bool m_chunking = false;      // a fold is under way, one chunk per turn
    qsizetype m_appendedSinceChunk = 0;
    bool m_foldFromFile = false;
    bool m_failing = false;    // the last fold failed (warned once until one succeeds)
    QTimer m_timer;
};

} // namespace chat2sbx
