// The server's audit rows are written ahead of the table (AuditJournal): one line per row, folded
// into audit_log in batches. What must hold: a row appended (the call then answered) survives a
// kill -9 before any fold and reaches the table at the next start with the same id; folding twice
// adds nothing twice; a line cut short by a crash is dropped, the others kept; readers in the same
// process see every row, and readers in another process (the CLI) see the rows still in the file;
// a locked database delays the fold without losing or blocking anything; ids never go back.
#include "TestSupport.h"

#include "state/AuditJournal.h"
#include "state/AuditLogRepository.h"
#include "state/Database.h"

#include <QFile>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;

namespace {

AuditEntry row(const QString &summary, const QString &sandbox = QString())
{
    AuditEntry e;
    e.at = 1'700'000'000'000;
    e.client = QStringLiteral("client");
    e.session = QStringLiteral("0123abcd");
    e.tool = QStringLiteral("bash");
    e.sandboxId = sandbox;
    e.summary = summary;
    e.durationMs = 12;
    e.outcome = QStringLiteral("ok");
    return e;
}

QStringList summaries(const QList<AuditEntry> &rows)
{
    QStringList out;
    for (const AuditEntry &e : rows)
        out << e.summary;
    return out;
}

qint64 tableRows(Database &db)
{
    QSqlQuery q(db.handle());
    return q.exec(QStringLiteral("SELECT count(*) FROM audit_log")) && q.next() ? q.value(0).toLongLong() : -1;
}

qint64 fileSize(const QString &path)
{
    return QFileInfo(path).size();
}

// What a kill -9 leaves on disk: the database, its WAL and the journal as they are now, with
// nothing of the process's memory. Copied while the writer is idle.
void copyAsCrashed(const QString &from, const QString &to)
{
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm"), QStringLiteral("-audit")}) {
        QFile::remove(to + suffix);
        if (QFile::exists(from + suffix))
            QVERIFY(QFile::copy(from + suffix, to + suffix));
    }
}

} // namespace

class AuditJournalTest : public QObject {
    Q_OBJECT

private slots:
    void linesRoundTrip_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("plain") << QStringLiteral("ls -la");
        QTest::newRow("tab and newline") << QStringLiteral("a\tb\nc\r\nd");
        QTest::newRow("backslashes") << QStringLiteral("\\n is not a newline \\\\ \\t");
        QTest::newRow("unicode") << QStringLiteral("héllo ✓ 日本");
        QTest::newRow("empty") << QString();
        QTest::newRow("escape char") << QStringLiteral("\x1b[31mred");
    }
    void linesRoundTrip()
    {
        QFETCH(QString, text);
        AuditEntry e = row(text, text);
        e.id = 42;
        e.client = text;
        e.detail = text;
        e.conversation = text;
        const QByteArray line = AuditJournal::encode(e);
        QVERIFY(line.endsWith('\n'));
        QCOMPARE(line.count('\n'), 1);
        AuditEntry back;
        QVERIFY(AuditJournal::decode(line.chopped(1), back));
        QCOMPARE(back.id, 42);
        QCOMPARE(back.at, e.at);
        QCOMPARE(back.durationMs, e.durationMs);
        QCOMPARE(back.summary, text);
        QCOMPARE(back.client, text.left(100));
        QCOMPARE(back.sandboxId, text.left(64));
        QCOMPARE(back.detail, text);
        QCOMPARE(back.conversation, text);
        QCOMPARE(back.tool, QStringLiteral("bash"));
        QCOMPARE(back.outcome, QStringLiteral("ok"));
    }

    // A journal left by the version before the conversation column (kill -9, then an upgrade) folds.
    void versionOneLinesStillFold()
    {
        AuditEntry e;
        QVERIFY(AuditJournal::decode("1\t7\t1700000000000\t3\tclient\tsess\tbash\tsbx_1\tls\tok\t", e));
        QCOMPARE(e.id, 7);
        QCOMPARE(e.client, QStringLiteral("client"));
        QCOMPARE(e.outcome, QStringLiteral("ok"));
        QVERIFY(e.conversation.isEmpty());
    }

    void malformedLinesAreNotRows_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("cut short") << QByteArray("1\t7\t1700000000000\t3\tclient\tsess\tbash\t\tls");
        QTest::newRow("other version") << QByteArray("3\t7\t1\t3\tc\ts\tbash\t\tls\tok\t\t");
        QTest::newRow("version 2 without conversation") << QByteArray("2\t7\t1\t3\tc\ts\tbash\t\tls\tok\t");
        QTest::newRow("id not a number") << QByteArray("1\tx\t1\t3\tc\ts\tbash\t\tls\tok\t");
        QTest::newRow("id zero") << QByteArray("1\t0\t1\t3\tc\ts\tbash\t\tls\tok\t");
        QTest::newRow("bad escape") << QByteArray("1\t7\t1\t3\tc\\q\ts\tbash\t\tls\tok\t");
        QTest::newRow("dangling escape") << QByteArray("1\t7\t1\t3\tc\\\ts\tbash\t\tls\tok\t");
        QTest::newRow("no tool") << QByteArray("1\t7\t1\t3\tc\ts\t\t\tls\tok\t");
        QTest::newRow("extra field") << QByteArray("1\t7\t1\t3\tc\ts\tbash\t\tls\tok\t\tx");
    }
    void malformedLinesAreNotRows()
    {
        QFETCH(QByteArray, line);
        AuditEntry e;
        QVERIFY(!AuditJournal::decode(line, e));
    }

    void rowsAreWrittenAheadAndFoldedBeforeAnyRead()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        Database db;
        QString error;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
        AuditLogRepository repo(db);
        QVERIFY2(repo.insert(row("one"), error), qPrintable(error));
        QVERIFY2(repo.insert(row("two"), error), qPrintable(error));
        // Written ahead: in the journal, not yet in the table.
        QCOMPARE(tableRows(db), 0);
        QCOMPARE(AuditJournal::readUnfolded(AuditJournal::pathFor(path)).size(), 2);
        QCOMPARE(QFile::permissions(AuditJournal::pathFor(path)) & 0x0077, QFileDevice::Permissions());
        // A read folds them first.
        QCOMPARE(summaries(repo.recent(10)), QStringList({"two", "one"}));
        QCOMPARE(tableRows(db), 2);
        QCOMPARE(fileSize(AuditJournal::pathFor(path)), 0);
        // Unread rows are folded on their own a moment later.
        QVERIFY2(repo.insert(row("three"), error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(tableRows(db), 3, chat2sbx::test::scaled(5000));
        QCOMPARE(fileSize(AuditJournal::pathFor(path)), 0);
    }

    void aKillBeforeTheFoldLosesNothing()
    {
        QTemporaryDir dir;
        const QString live = dir.path() + "/live.sqlite";
        const QString crashed = dir.path() + "/crashed.sqlite";
        QString error;
        qint64 lastId = 0;
        {
            Database db;
            QVERIFY2(db.open(live, error), qPrintable(error));
            QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
            AuditLogRepository repo(db);
            QVERIFY2(repo.insert(row("folded"), error), qPrintable(error));
            lastId = repo.recent(1).value(0).id;   // folded by the read
            for (int i = 0; i < 3; ++i)
                QVERIFY2(repo.insert(row(QStringLiteral("acknowledged %1").arg(i), "sbx_1"), error), qPrintable(error));
            QCOMPARE(tableRows(db), 1);
            copyAsCrashed(live, crashed);
        }
        // Another process (the CLI) reading the crashed server's files sees every row.
        {
            Database cli;
            QVERIFY2(cli.open(crashed, error), qPrintable(error));
            AuditLogRepository repo(cli);
            QCOMPARE(summaries(repo.recent(2)), QStringList({"acknowledged 2", "acknowledged 1"}));
            AuditQuery query;
            query.sandboxId = QStringLiteral("sbx_1");
            query.limit = 2;
            QCOMPARE(summaries(repo.find(query, error)), QStringList({"acknowledged 1", "acknowledged 2"}));
            query.sandboxId.clear();
            query.afterId = lastId + 1;
            query.limit = 50;
            QCOMPARE(summaries(repo.find(query, error)), QStringList({"acknowledged 1", "acknowledged 2"}));
            QCOMPARE(tableRows(cli), 1);   // it only reads
        }
        // The next server folds them in, with the ids they were given, and goes on after them.
        Database next;
        QVERIFY2(next.open(crashed, error), qPrintable(error));
        QVERIFY2(next.writeAuditRowsAhead(error), qPrintable(error));
        QCOMPARE(tableRows(next), 4);
        QCOMPARE(fileSize(AuditJournal::pathFor(crashed)), 0);
        AuditLogRepository repo(next);
        const QList<AuditEntry> rows = repo.recent(10);
        QCOMPARE(summaries(rows), QStringList({"acknowledged 2", "acknowledged 1", "acknowledged 0", "folded"}));
        QCOMPARE(rows.at(0).id, lastId + 3);
        QCOMPARE(rows.at(0).sandboxId, QStringLiteral("sbx_1"));
        QVERIFY2(repo.insert(row("after"), error), qPrintable(error));
        QCOMPARE(repo.recent(1).value(0).id, lastId + 4);
    }

    void foldingTwiceAddsNothingTwiceAndACutLineIsDropped()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        QString error;
        {
            Database db;
            QVERIFY2(db.open(path, error), qPrintable(error));
            AuditEntry e = row("already in the table");
            e.id = 5;
            QVERIFY2(AuditLogRepository(db).insertWithId(e, error), qPrintable(error));
        }
        // A crash after a fold's commit and before the file was emptied, then one in the middle of a line.
        AuditEntry again = row("already in the table");
        again.id = 5;
        AuditEntry fresh = row("only in the journal");
        fresh.id = 6;
        QFile journal(AuditJournal::pathFor(path));
        QVERIFY(journal.open(QIODevice::WriteOnly));
        journal.write(AuditJournal::encode(again) + AuditJournal::encode(fresh) + AuditJournal::encode(row("cut")).left(20));
        journal.close();
        int skipped = 0;
        QCOMPARE(AuditJournal::readUnfolded(journal.fileName(), &skipped).size(), 2);
        QCOMPARE(skipped, 1);

        Database db;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
        QCOMPARE(tableRows(db), 2);
        AuditLogRepository repo(db);
        QCOMPARE(summaries(repo.recent(10)), QStringList({"only in the journal", "already in the table"}));
        QVERIFY2(repo.insert(row("next"), error), qPrintable(error));
        QCOMPARE(repo.recent(1).value(0).id, 7);
    }

    void aLockedDatabaseDelaysTheFoldWithoutWaiting()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        Database db;
        QString error;
        QVERIFY2(db.open(path, error), qPrintable(error));
        db.setBusyTimeout(Database::kServerBusyTimeoutMs);
        QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
        AuditLogRepository repo(db);
        {
            QSqlDatabase locker = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("locker"));
            locker.setDatabaseName(path);
            QVERIFY(locker.open());
            QSqlQuery q(locker);
            QVERIFY2(q.exec(QStringLiteral("BEGIN IMMEDIATE")), qPrintable(q.lastError().text()));
            QElapsedTimer t;
            t.start();
            for (int i = 0; i < 5; ++i)
                QVERIFY2(repo.insert(row(QStringLiteral("while locked %1").arg(i)), error), qPrintable(error));
            QString foldError;
            QVERIFY(!db.auditJournal()->fold(foldError));
            QVERIFY2(foldError.contains(QStringLiteral("locked")), qPrintable(foldError));
            QVERIFY2(t.elapsed() < Database::kServerBusyTimeoutMs, qPrintable(QString::number(t.elapsed())));
            QCOMPARE(AuditJournal::readUnfolded(AuditJournal::pathFor(path)).size(), 5);
            q.exec(QStringLiteral("ROLLBACK"));
            q.finish();
            locker.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("locker"));
        // Retried on its own once the lock is gone.
        QTRY_COMPARE_WITH_TIMEOUT(tableRows(db), 5, chat2sbx::test::scaled(5000));
        QCOMPARE(fileSize(AuditJournal::pathFor(path)), 0);
    }

    void rowsLeftByACrashWaitOutALockAtStart()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        QString error;
        {
            Database db;
            QVERIFY2(db.open(path, error), qPrintable(error));
        }
        AuditEntry left = row("left by a crash");
        left.id = 3;
        QFile journal(AuditJournal::pathFor(path));
        QVERIFY(journal.open(QIODevice::WriteOnly));
        journal.write(AuditJournal::encode(left));
        journal.close();

        Database db;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QSqlDatabase locker = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("locker"));
        locker.setDatabaseName(path);
        QVERIFY(locker.open());
        {
            QSqlQuery q(locker);
            QVERIFY2(q.exec(QStringLiteral("BEGIN IMMEDIATE")), qPrintable(q.lastError().text()));
        }
        db.setBusyTimeout(Database::kServerBusyTimeoutMs);
        QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));   // cannot fold yet: still works
        AuditLogRepository repo(db);
        QVERIFY2(repo.insert(row("while locked"), error), qPrintable(error));
        QCOMPARE(AuditJournal::readUnfolded(journal.fileName()).size(), 2);
        {
            QSqlQuery q(locker);
            q.exec(QStringLiteral("ROLLBACK"));
        }
        locker.close();
        locker = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("locker"));
        QTRY_COMPARE_WITH_TIMEOUT(tableRows(db), 2, chat2sbx::test::scaled(5000));   // retried on its own
        const QList<AuditEntry> rows = repo.recent(10);
        QCOMPARE(summaries(rows), QStringList({"while locked", "left by a crash"}));
        QCOMPARE(rows.at(0).id, 4);
        QCOMPARE(fileSize(journal.fileName()), 0);
    }

    void manyWaitingRowsAreFoldedFromTheFile()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        Database db;
        QString error;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
        AuditLogRepository repo(db);
        const int n = AuditJournal::kMaxRowsInMemory + 10;
        for (int i = 0; i < n; ++i)
            QVERIFY2(repo.insert(row(QString::number(i)), error), qPrintable(error));
        QCOMPARE(summaries(repo.recent(1)), QStringList({QString::number(n - 1)}));
        QCOMPARE(tableRows(db), n);
    }

    void theTimerFoldsInChunks()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        Database db;
        QString error;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
        AuditLogRepository repo(db);
        const int n = 3 * AuditJournal::kFoldChunkRows + 5;
        for (int i = 0; i < n; ++i)
            QVERIFY2(repo.insert(row(QString::number(i)), error), qPrintable(error));
        // The first chunk alone, then the rest turn by turn; the file stays whole until the end.
        QElapsedTimer deadline;
        deadline.start();
        while (tableRows(db) == 0 && deadline.elapsed() < 5000)
            QCoreApplication::processEvents();   // one pass at a time: it stops after the first chunk
        QCOMPARE(tableRows(db), qint64(AuditJournal::kFoldChunkRows));
        QVERIFY(fileSize(AuditJournal::pathFor(path)) > 0);
        QTRY_COMPARE_WITH_TIMEOUT(tableRows(db), qint64(n), chat2sbx::test::scaled(5000));
        QTRY_COMPARE_WITH_TIMEOUT(fileSize(AuditJournal::pathFor(path)), 0, chat2sbx::test::scaled(5000));
        QCOMPARE(summaries(repo.recent(1)), QStringList({QString::number(n - 1)}));
    }

    void chunksKeepUpWithManyWriters()
    {
        // Many clients write between two chunks: each chunk takes what was written since the last
        // one plus kFoldChunkRows, so the rows waiting go down every turn and the file empties.
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        Database db;
        QString error;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
        AuditLogRepository repo(db);
        qint64 written = 0;
        for (; written < 200; ++written)
            QVERIFY2(repo.insert(row(QString::number(written)), error), qPrintable(error));
        QElapsedTimer deadline;
        deadline.start();
        while (tableRows(db) == 0 && deadline.elapsed() < 5000)
            QCoreApplication::processEvents();
        qint64 waiting = written - tableRows(db);
        for (int turn = 0; turn < 8; ++turn) {
            for (int i = 0; i < 40; ++i, ++written)
                QVERIFY2(repo.insert(row(QString::number(written)), error), qPrintable(error));
            const qint64 before = tableRows(db);
            deadline.restart();
            while (tableRows(db) == before && deadline.elapsed() < 5000)
                QCoreApplication::processEvents();   // the next chunk, and only that one
            const qint64 now = written - tableRows(db);
            QCOMPARE(now, waiting - AuditJournal::kFoldChunkRows);
            waiting = now;
        }
        QTRY_COMPARE_WITH_TIMEOUT(tableRows(db), written, chat2sbx::test::scaled(5000));
        QTRY_COMPARE_WITH_TIMEOUT(fileSize(AuditJournal::pathFor(path)), 0, chat2sbx::test::scaled(5000));
    }

    void idsNeverGoBackAfterPruningEverything()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        QString error;
        qint64 last = 0;
        {
            Database db;
            QVERIFY2(db.open(path, error), qPrintable(error));
            QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
            AuditLogRepository repo(db);
            for (int i = 0; i < 3; ++i)
                QVERIFY2(repo.insert(row("old"), error), qPrintable(error));
            last = repo.recent(1).value(0).id;
            QCOMPARE(repo.prune(row("x").at + 1'000'000, 1, 0, error), 3);   // every row is older than 1 ms
            QCOMPARE(tableRows(db), 0);
        }
        // A follower that saw id `last` must not miss the next rows.
        Database db;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
        AuditLogRepository repo(db);
        QVERIFY2(repo.insert(row("new"), error), qPrintable(error));
        QCOMPARE(repo.recent(1).value(0).id, last + 1);
    }

    void closingFoldsWhatIsLeft()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/state.sqlite";
        QString error;
        {
            Database db;
            QVERIFY2(db.open(path, error), qPrintable(error));
            QVERIFY2(db.writeAuditRowsAhead(error), qPrintable(error));
            QVERIFY2(AuditLogRepository(db).insert(row("at shutdown"), error), qPrintable(error));
        }
        QCOMPARE(fileSize(AuditJournal::pathFor(path)), 0);
        Database db;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QCOMPARE(tableRows(db), 1);
    }
};

QTEST_GUILESS_MAIN(AuditJournalTest)
#include "tst_audit_journal.moc"
