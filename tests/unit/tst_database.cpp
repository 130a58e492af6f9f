// Migrations: fresh database, up-to-date reopen, upgrade from version 1, refusal of a newer
// database (file untouched byte for byte), file and directory modes.
#include "state/Database.h"
#include "state/Migrations.h"
#include "TestSupport.h"

#include <QCryptographicHash>
#include <QSqlQuery>
#include <QtTest>

#include <sys/stat.h>

using namespace chat2sbx;

namespace {

int mode(const QString &path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return static_cast<int>(st.st_mode & 0777);
}

QByteArray digest(const QString &path)
{
    return QCryptographicHash::hash(test::readFile(path), QCryptographicHash::Sha256).toHex();
}

QStringList tables(Database &db)
{
    QStringList names;
    QSqlQuery q(db.handle());
    q.exec("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
    while (q.next())
        names << q.value(0).toString();
    return names;
}

// Builds a database at schema version 1 only, as an older chat2sbx would have left it.
void createVersion1(const QString &path)
{
    QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "v1");
    db.setDatabaseName(path);
    QVERIFY(db.open());
    for (const QString &s : schemaMigrations().first()) {
        QSqlQuery q(db);
        QVERIFY2(q.exec(s), qPrintable(s));
    }
    QSqlQuery q(db);
    QVERIFY(q.exec("PRAGMA user_version = 1"));
    QVERIFY(q.exec("INSERT INTO workspaces VALUES ('ws_1','managed',NULL,'w',1,1,NULL)"));
    QVERIFY(q.exec("INSERT INTO sandboxes (id,workspace_id,runtime_name,state,created_at,updated_at,last_activity_at)"
                   " VALUES ('sbx_1','ws_1','chat2sbx-a','running',1,1,1000)"));
    db.close();
    db = QSqlDatabase();
    QSqlDatabase::removeDatabase("v1");
}

} // namespace

class TestDatabase : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString dbPath(const QString &name) { return m_dir.path() + "/" + name + "/state/chat2sbx.sqlite"; }

private slots:
    void freshDatabaseHasTheLatestSchemaAndPrivateModes()
    {
        Database db;
        QString error;
        const QString path = dbPath("fresh");
        QVERIFY2(db.open(path, error), qPrintable(error));
        QCOMPARE(db.schemaVersion(), Database::latestSchemaVersion());
        QVERIFY(Database::latestSchemaVersion() >= 2);
        const QStringList expected{"approvals", "audit_log", "bash_sessions", "checkpoints", "cloud_warm_sandboxes", "export_requests", "network_requests", "network_rules", "public_port_requests",
                                   "sandbox_forks", "sandbox_moves", "sandbox_ports", "sandbox_restores", "sandboxes", "settings", "warm_sandboxes", "workspaces"};
        QCOMPARE(tables(db), expected);
        QCOMPARE(mode(path), 0600);
        QCOMPARE(mode(QFileInfo(path).path()), 0700);
        QCOMPARE(mode(QFileInfo(QFileInfo(path).path()).path()), 0700);
        QSqlQuery q(db.handle());
        QVERIFY(q.exec("PRAGMA journal_mode") && q.next());
        QCOMPARE(q.value(0).toString(), QStringLiteral("wal"));
        QVERIFY(q.exec("PRAGMA busy_timeout") && q.next());
        QVERIFY(q.value(0).toInt() >= 1000);
        QVERIFY(q.exec("PRAGMA foreign_keys") && q.next());
        QCOMPARE(q.value(0).toInt(), 1);
        if (QFileInfo::exists(path + "-wal"))
            QCOMPARE(mode(path + "-wal"), 0600);
    }

    void reopeningAnUpToDateDatabaseChangesNothing()
    {
        const QString path = dbPath("reopen");
        {
            Database db;
            QString error;
            QVERIFY2(db.open(path, error), qPrintable(error));
            QSqlQuery q(db.handle());
            QVERIFY(q.exec("INSERT INTO workspaces (id, mode, host_path, display_name, created_at, last_used_at, trashed_at)"
                           " VALUES ('ws_x','managed',NULL,'x',1,1,NULL)"));
            QVERIFY(q.exec("PRAGMA wal_checkpoint(TRUNCATE)"));
        }
        const QByteArray before = digest(path);
        {
            Database db;
            QString error;
            QVERIFY2(db.open(path, error), qPrintable(error));
            QCOMPARE(db.schemaVersion(), Database::latestSchemaVersion());
            QSqlQuery q(db.handle());
            QVERIFY(q.exec("SELECT COUNT(*) FROM workspaces") && q.next());
            QCOMPARE(q.value(0).toInt(), 1);
        }
        QCOMPARE(digest(path), before);
    }

    void upToDateOpenWaitsForNoWriter()
    {
        // The server may be inside a write transaction (or frozen there) when a CLI command opens
        // the database: opening an up-to-date one must not wait for the write lock.
        const QString path = dbPath("writer");
        Database writer;
        QString error;
        QVERIFY2(writer.open(path, error), qPrintable(error));
        QSqlQuery w(writer.handle());
        QVERIFY(w.exec("INSERT INTO workspaces (id, mode, host_path, display_name, created_at, last_used_at, trashed_at)"
                       " VALUES ('ws_committed','managed',NULL,'c',1,1,NULL)"));
        QVERIFY(w.exec("BEGIN IMMEDIATE"));
        QVERIFY(w.exec("INSERT INTO workspaces (id, mode, host_path, display_name, created_at, last_used_at, trashed_at)"
                       " VALUES ('ws_pending','managed',NULL,'p',1,1,NULL)"));
        QElapsedTimer t;
        t.start();
        Database reader;
        QVERIFY2(reader.open(path, error), qPrintable(error));
        QVERIFY2(t.elapsed() < reader.busyTimeout() / 2, qPrintable(QString::number(t.elapsed())));
        QSqlQuery r(reader.handle());
        QVERIFY(r.exec("SELECT id FROM workspaces ORDER BY id") && r.next());
        QCOMPARE(r.value(0).toString(), QStringLiteral("ws_committed"));
        QVERIFY(!r.next());
        QVERIFY(w.exec("COMMIT"));
    }

    void upgradeFromVersion1KeepsData()
    {
        const QString path = dbPath("upgrade");
        QDir().mkpath(QFileInfo(path).path());
        createVersion1(path);
        Database db;
        QString error;
        QVERIFY2(db.open(path, error), qPrintable(error));
        QCOMPARE(db.schemaVersion(), Database::latestSchemaVersion());
        QSqlQuery q(db.handle());
        QVERIFY(q.exec("SELECT id, state, idle_deadline FROM sandboxes") && q.next());
        QCOMPARE(q.value(0).toString(), QStringLiteral("sbx_1"));
        QCOMPARE(q.value(1).toString(), QStringLiteral("running"));
        QCOMPARE(q.value(2).toLongLong(), 1000 + 86400000LL);
        QVERIFY(tables(db).contains("sandbox_ports"));
        QCOMPARE(mode(path), 0600);
    }

    void failedMigrationRollsBackEverything()
    {
        // A v1 database that already has a table named like one migration 2 creates: migration 2 fails
        // part-way and must leave the schema at version 1 with nothing of migration 2 applied.
        const QString path = dbPath("rollback");
        QDir().mkpath(QFileInfo(path).path());
        createVersion1(path);
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase("QSQLITE", "raw");
            raw.setDatabaseName(path);
            QVERIFY(raw.open());
            QSqlQuery q(raw);
            QVERIFY(q.exec("CREATE INDEX audit_log_by_time ON audit_log(at)"));
            raw.close();
        }
        QSqlDatabase::removeDatabase("raw");
        Database db;
        QString error;
        QVERIFY(!db.open(path, error));
        QVERIFY2(error.contains("migration to schema version 2"), qPrintable(error));
        Database check;
        QSqlDatabase raw = QSqlDatabase::addDatabase("QSQLITE", "raw2");
        raw.setDatabaseName(path);
        QVERIFY(raw.open());
        QSqlQuery q(raw);
        QVERIFY(q.exec("PRAGMA user_version") && q.next());
        QCOMPARE(q.value(0).toInt(), 1);
        QVERIFY(q.exec("SELECT COUNT(*) FROM sqlite_master WHERE name='sandbox_ports'") && q.next());
        QCOMPARE(q.value(0).toInt(), 0);
        raw.close();
        raw = QSqlDatabase();
        QSqlDatabase::removeDatabase("raw2");
    }

    void newerDatabaseIsRefusedAndLeftUntouched()
    {
        const QString path = dbPath("newer");
        {
            Database db;
            QString error;
            QVERIFY2(db.open(path, error), qPrintable(error));
            QSqlQuery q(db.handle());
            QVERIFY(q.exec(QStringLiteral("PRAGMA user_version = %1").arg(Database::latestSchemaVersion() + 5)));
            QVERIFY(q.exec("PRAGMA journal_mode=DELETE"));
        }
        const QByteArray before = digest(path);
        const QDateTime mtime = QFileInfo(path).lastModified();
        Database db;
        QString error;
        QVERIFY(!db.open(path, error));
        QVERIFY2(error.contains("newer than this chat2sbx knows"), qPrintable(error));
        QVERIFY2(error.contains(QString::number(Database::latestSchemaVersion() + 5)), qPrintable(error));
        QVERIFY(!db.isOpen());
        QCOMPARE(digest(path), before);
        QCOMPARE(QFileInfo(path).lastModified(), mtime);
        QVERIFY(!QFileInfo::exists(path + "-wal"));
    }

    void garbageFileIsAClearError()
    {
        const QString path = dbPath("garbage");
        test::writeFile(path, QByteArray("this is not sqlite at all, just text ").repeated(200));
        Database db;
        QString error;
        QVERIFY(!db.open(path, error));
        QVERIFY2(error.contains(path), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestDatabase)
#include "tst_database.moc"
