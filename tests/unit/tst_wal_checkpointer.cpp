// WalCheckpointer: the server's commits no longer checkpoint the WAL themselves; a thread of its
// own does, on its own connection, once the WAL passes the threshold. Nothing committed is lost.
#include "state/Database.h"
#include "TestSupport.h"
#include "state/WalCheckpointer.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QVariant>
#include <QtTest>

using namespace chat2sbx;

namespace {

// Commits `n` rows of 4 KiB each, one transaction per row (at least one WAL page per commit).
bool commitRows(Database &db, int n)
{
    for (int i = 0; i < n; ++i) {
        SqliteStatement insert = db.sqlite("INSERT INTO t (b) VALUES (zeroblob(4096))");
        insert.next();
        if (!insert.ok())
            return false;
    }
    return true;
}

// The connection's automatic checkpoint threshold in pages; 0 when it is off (another WAL hook).
int autoCheckpoint(Database &db)
{
    QSqlQuery q(db.handle());
    return q.exec(QStringLiteral("PRAGMA wal_autocheckpoint")) && q.next() ? q.value(0).toInt() : -1;
}

bool allBackfilled(Database &db)
{
    QSqlQuery q(db.handle());
    if (!q.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)")) || !q.next())
        return false;
    return q.value(1).toInt() == q.value(2).toInt();   // every frame of the log is in the database
}

} // namespace

class TestWalCheckpointer : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void theThreadCheckpointsInsteadOfTheCommits()
    {
        const QString path = m_dir.path() + "/bg.sqlite";
        Database db;
        QString error;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QSqlQuery create(db.handle());
        QVERIFY(create.exec(QStringLiteral("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)")));
        QCOMPARE(autoCheckpoint(db), WalCheckpointer::kThresholdPages);   // SQLite's own, in the commit
        QVERIFY2(db.checkpointInBackground(error), qPrintable(error));
        QVERIFY(db.isCheckpointingInBackground());
        QCOMPARE(autoCheckpoint(db), 0);                                  // the commits no longer checkpoint

        QVERIFY(commitRows(db, 100));   // below the threshold: the thread is not woken
        QTest::qWait(100);
        QCOMPARE(db.backgroundCheckpoints(), 0);
        QVERIFY(commitRows(db, WalCheckpointer::kThresholdPages));
        QTRY_VERIFY_WITH_TIMEOUT(db.backgroundCheckpoints() > 0, chat2sbx::test::scaled(5000));
        QTRY_VERIFY_WITH_TIMEOUT(allBackfilled(db), chat2sbx::test::scaled(5000));

        db.close();   // ends the thread, then the connection
        QVERIFY(!db.isCheckpointingInBackground());
        Database again;
        QVERIFY2(again.open(path, error), qPrintable(error));
        QCOMPARE(autoCheckpoint(again), WalCheckpointer::kThresholdPages);
        QSqlQuery count(again.handle());
        QVERIFY(count.exec(QStringLiteral("SELECT COUNT(*) FROM t")) && count.next());
        QCOMPARE(count.value(0).toInt(), 100 + WalCheckpointer::kThresholdPages);
    }

    void stoppingRestoresTheAutomaticCheckpoint()
    {
        Database db;
        QString error;
        QVERIFY2(db.open(m_dir.path() + "/stop.sqlite", error), qPrintable(error));
        WalCheckpointer none;
        QVERIFY(!none.start(nullptr, m_dir.path() + "/stop.sqlite", error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!none.isRunning());
        QVERIFY2(db.checkpointInBackground(error), qPrintable(error));
        QVERIFY2(db.checkpointInBackground(error), qPrintable(error));   // again: the first thread ends first
        QCOMPARE(autoCheckpoint(db), 0);
    }
};

QTEST_GUILESS_MAIN(TestWalCheckpointer)
#include "tst_wal_checkpointer.moc"
