// SqliteStatement: the statements of every tools/call (audit row, sandbox list) run with SQLite's
// API on the Database's QtSql connection. Values read back as QtSql reads them, NULL stays NULL,
// errors are reported, and a finished statement holds no transaction open.
#include "state/AuditLogRepository.h"
#include "state/Database.h"
#include "state/SqliteStatement.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QVariant>
#include <QtTest>

using namespace chat2sbx;

class TestSqliteStatement : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void valuesRoundTripAsQtSqlReadsThem()
    {
        Database db;
        QString error;
        QVERIFY2(db.open(m_dir.path() + "/values.sqlite", error), qPrintable(error));
        QSqlQuery create(db.handle());
        QVERIFY(create.exec("CREATE TABLE t (n INTEGER, s TEXT)"));
        const QString text = QStringLiteral("é 日本 \U0001F600 \"q\" \n");
        {
            SqliteStatement insert = db.sqlite("INSERT INTO t (n, s) VALUES (?, ?)");
            QVERIFY(insert.isValid());
            insert.bind(0, qint64(9007199254740993));
            insert.bind(1, text);
            QVERIFY(!insert.next());
            QVERIFY2(insert.ok(), qPrintable(insert.error()));
        }
        {
            SqliteStatement insert = db.sqlite("INSERT INTO t (n, s) VALUES (?, ?)");   // the cached one, bindings cleared
            insert.bindNull(0);
            insert.bind(1, QString());
            QVERIFY(!insert.next());
            QVERIFY(insert.ok());
        }
        SqliteStatement select = db.sqlite("SELECT n, s FROM t ORDER BY rowid");
        QVERIFY(select.next());
        QCOMPARE(select.value(0).toLongLong(), qint64(9007199254740993));
        QCOMPARE(select.value(1).toString(), text);
        QVERIFY(!select.value(0).isNull());
        QVERIFY(select.next());
        QVERIFY(select.value(0).isNull());
        QVERIFY(select.value(1).isNull());
        QVERIFY(select.value(1).toString().isNull());
        QCOMPARE(select.value(0).toLongLong(), 0);
        QVERIFY(!select.next());
        QVERIFY(select.ok());

        QSqlQuery check(db.handle());
        QVERIFY(check.exec("SELECT s FROM t WHERE rowid = 1") && check.next());
        QCOMPARE(check.value(0).toString(), text);
    }

    void errorsAreReported()
    {
        Database db;
        QString error;
        QVERIFY2(db.open(m_dir.path() + "/errors.sqlite", error), qPrintable(error));
        SqliteStatement bad = db.sqlite("SELEKT nothing");
        QVERIFY(!bad.isValid());
        QVERIFY(!bad.next());
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().contains("syntax error"), qPrintable(bad.error()));

        QSqlQuery create(db.handle());
        QVERIFY(create.exec("CREATE TABLE t (n INTEGER NOT NULL)"));
        SqliteStatement insert = db.sqlite("INSERT INTO t (n) VALUES (?)");
        insert.bindNull(0);
        QVERIFY(!insert.next());
        QVERIFY(!insert.ok());
        QVERIFY2(insert.error().contains("NOT NULL"), qPrintable(insert.error()));

        Database closed;
        SqliteStatement none = closed.sqlite("SELECT 1");
        QVERIFY(!none.isValid());
        QVERIFY(!none.next());
        QVERIFY(!none.ok());
    }

    // A statement left after its first row still ends its read transaction when it goes out of
    // scope: another connection's write is then fully checkpointed (no reader holds the WAL).
    void aFinishedSelectHoldsNoTransaction()
    {
        const QString path = m_dir.path() + "/wal.sqlite";
        Database db;
        QString error;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QSqlQuery create(db.handle());
        QVERIFY(create.exec("CREATE TABLE t (n INTEGER)"));
        QVERIFY(create.exec("INSERT INTO t VALUES (1), (2)"));
        {
            SqliteStatement select = db.sqlite("SELECT n FROM t");
            QVERIFY(select.next());   // one row read, the second left
        }
        Database other;
        QVERIFY2(other.open(path, error), qPrintable(error));
        QSqlQuery write(other.handle());
        QVERIFY(write.exec("INSERT INTO t VALUES (3)"));
        QSqlQuery checkpoint(other.handle());
        QVERIFY(checkpoint.exec("PRAGMA wal_checkpoint(TRUNCATE)") && checkpoint.next());
        QCOMPARE(checkpoint.value(0).toInt(), 0);   // not busy: no open read transaction
    }

    void auditRowsKeepEmptyFieldsNull()
    {
        Database db;
        QString error;
        QVERIFY2(db.open(m_dir.path() + "/audit.sqlite", error), qPrintable(error));
        AuditLogRepository repo(db);
        AuditEntry e;
        e.at = 1234;
        e.tool = QStringLiteral("sandbox_list");
        e.outcome = QStringLiteral("ok");
        e.durationMs = 7;
        e.detail = QString(5000, QLatin1Char('d'));
        QVERIFY2(repo.insert(e, error), qPrintable(error));
        QSqlQuery q(db.handle());
        QVERIFY(q.exec("SELECT at, client, session, tool, sandbox_id, summary, duration_ms, outcome, length(detail) FROM audit_log"));
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toLongLong(), 1234);
        for (int column : {1, 2, 4, 5})
            QVERIFY2(q.value(column).isNull(), qPrintable(QString::number(column)));
        QCOMPARE(q.value(3).toString(), QStringLiteral("sandbox_list"));
        QCOMPARE(q.value(6).toLongLong(), 7);
        QCOMPARE(q.value(7).toString(), QStringLiteral("ok"));
        QCOMPARE(q.value(8).toInt(), AuditLogRepository::kMaxDetail);
        e.outcome = QString();   // NOT NULL: the insert fails with SQLite's reason
        QVERIFY(!repo.insert(e, error));
        QVERIFY2(error.contains("NOT NULL"), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestSqliteStatement)
#include "tst_sqlite_statement.moc"
