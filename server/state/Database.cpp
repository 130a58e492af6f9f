#include "state/Database.h"
#include "state/AuditJournal.h"
#include "state/Migrations.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>

#include <sqlite3.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace chat2sbx {
namespace {

constexpr QFileDevice::Permissions kOwnerDir = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;
constexpr QFileDevice::Permissions kOwnerFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

// Creates every missing directory of `dir` with mode 0700.
bool makePrivateDirs(const QString &dir, QString &error)
{
    QStringList missing;
    QString cur = QDir::cleanPath(dir);
    while (!cur.isEmpty() && !QFileInfo::exists(cur)) {
        missing.prepend(cur);
        const QString parent = QFileInfo(cur).path();
        if (parent == cur)
            break;
        cur = parent;
    }
    for (const QString &d : missing) {
        if (::mkdir(QFile::encodeName(d).constData(), 0700) != 0 && !QFileInfo(d).isDir()) {
            error = QStringLiteral("cannot create directory %1: %2").arg(d, QString::fromLocal8Bit(strerror(errno)));
            return false;
        }
    }
    if (!QFileInfo(dir).isDir()) {
        error = QStringLiteral("%1 is not a directory").arg(dir);
        return false;
    }
    return true;
}

QString sqlError(const QSqlQuery &q)
{
    return q.lastError().text().trimmed();
}

int readUserVersion(QSqlDatabase &db, QString &error)
{
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next()) {
        error = sqlError(q);
        return -1;
    }
    return q.value(0).toInt();
}

// The connection QtSql's SQLite driver opened; null when it is not one.
sqlite3 *sqliteHandle(const QSqlDatabase &db)
{
    const QVariant handle = db.driver() ? db.driver()->handle() : QVariant();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0)
        return nullptr;
    return *static_cast<sqlite3 *const *>(handle.constData());
}

} // namespace

Database::Database()
    : m_connectionName(QStringLiteral("chat2sbx-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
{
}

Database::~Database()
{
    close();
}

int Database::latestSchemaVersion()
{
    return static_cast<int>(schemaMigrations().size());
}

void Database::setBusyTimeout(int ms)
{
    m_busyTimeoutMs = ms;
    if (m_db.isOpen()) {
        QSqlQuery q(m_db);
        q.exec(QStringLiteral("PRAGMA busy_timeout=%1").arg(ms));
    }
}

void Database::countStatements(bool on)
{
    if (!m_sqlite)
        return;
    if (!on) {
        sqlite3_trace_v2(m_sqlite, 0, nullptr, nullptr);
        return;
    }
    m_statementsRun = 0;
    sqlite3_trace_v2(m_sqlite, SQLITE_TRACE_STMT,
                     [](unsigned, void *counter, void *, void *) {
                         ++*static_cast<qint64 *>(counter);
                         return 0;
                     },
                     &m_statementsRun);
}

bool Database::isOpen() const
{
    return m_db.isValid() && m_db.isOpen();
}

int Database::schemaVersion() const
{
    if (!isOpen())
        return -1;
    QString ignored;
    QSqlDatabase db = m_db;
    return readUserVersion(db, ignored);
}

bool Database::checkpointInBackground(QString &error)
{
    return m_checkpointer.start(m_sqlite, m_path, error);
}

bool Database::writeAuditRowsAhead(QString &error)
{
    auto journal = std::make_unique<AuditJournal>(*this);
    if (!journal->open(error))
        return false;
    m_auditJournal = std::move(journal);
    return true;
}

bool Database::inTransaction() const
{
    return m_sqlite && sqlite3_get_autocommit(m_sqlite) == 0;
}

void Database::close()
{
    m_auditJournal.reset();   // folds what it holds while the connection is still open
    m_checkpointer.stop();
    m_statements.clear();
    m_sqliteStatements.clear();
    m_sqlite = nullptr;
    if (m_db.isValid()) {
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connectionName);
    }
}

bool Database::open(const QString &path, QString &error)
{
    close();
    m_path = QFileInfo(path).absoluteFilePath();
    const QString dir = QFileInfo(m_path).path();
    if (!makePrivateDirs(dir, error))
        return false;
    QFile::setPermissions(dir, kOwnerDir);

    const QByteArray nativePath = QFile::encodeName(m_path);
    const bool existed = QFileInfo::exists(m_path);
    if (!existed) {
        const int fd = ::open(nativePath.constData(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0) {
            error = QStringLiteral("cannot create database %1: %2").arg(m_path, QString::fromLocal8Bit(strerror(errno)));
            return false;
        }
        ::close(fd);
    }

    // Check the schema version read-only first, so a database from a newer build is left untouched.
    if (existed) {
        const QString probeName = m_connectionName + QStringLiteral("-probe");
        int version = 0;
        QString probeError;
        {
            QSqlDatabase probe = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), probeName);
            probe.setDatabaseName(m_path);
            probe.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"));
            if (!probe.open()) {
                probeError = probe.lastError().text();
                version = -1;
            } else {
                version = readUserVersion(probe, probeError);
            }
            probe.close();
        }
        QSqlDatabase::removeDatabase(probeName);
        if (version < 0) {
            error = QStringLiteral("cannot read database %1: %2 (is it a SQLite file?)").arg(m_path, probeError);
            return false;
        }
        if (version > latestSchemaVersion()) {
            error = QStringLiteral("database %1 has schema version %2, newer than this chat2sbx knows (%3); "
                                   "it was left untouched: upgrade chat2sbx or point CHAT2SBX_DATABASE_PATH elsewhere")
                        .arg(m_path).arg(version).arg(latestSchemaVersion());
            return false;
        }
    }
    ::chmod(nativePath.constData(), 0600);

    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    m_db.setDatabaseName(m_path);
    m_db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
    if (!m_db.open()) {
        error = QStringLiteral("cannot open database %1: %2").arg(m_path, m_db.lastError().text());
        close();
        return false;
    }
    const QStringList pragmas = {
        QStringLiteral("PRAGMA journal_mode=WAL"),
        // In WAL mode NORMAL keeps every committed transaction across a crash of this process
        // (kill -9); only an OS crash or power loss can lose the last ones. FULL paid one fsync
        // per tools/call for its audit row.
        QStringLiteral("PRAGMA synchronous=NORMAL"),
        QStringLiteral("PRAGMA foreign_keys=ON"),
        QStringLiteral("PRAGMA busy_timeout=%1").arg(m_busyTimeoutMs),
    };
    for (const QString &p : pragmas) {
        QSqlQuery q(m_db);
        if (!q.exec(p)) {
            error = QStringLiteral("cannot configure database %1 (%2): %3").arg(m_path, p, sqlError(q));
            close();
            return false;
        }
    }
    for (const QString &suffix : {QStringLiteral("-wal"), QStringLiteral("-shm")}) {
        if (QFileInfo::exists(m_path + suffix))
            QFile::setPermissions(m_path + suffix, kOwnerFile);
    }
    if (!migrate(error)) {
        close();
        return false;
    }
    m_sqlite = sqliteHandle(m_db);
    return true;
}

bool Database::openReadOnly(const QString &path, QString &error)
{
    close();
    m_path = QFileInfo(path).absoluteFilePath();
    if (!QFileInfo(m_path).isFile()) {
        error = QStringLiteral("no database at %1").arg(m_path);
        return false;
    }
    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    m_db.setDatabaseName(m_path);
    m_db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
    if (!m_db.open()) {
        error = QStringLiteral("cannot open database %1: %2").arg(m_path, m_db.lastError().text());
        close();
        return false;
    }
    const int version = schemaVersion();
    if (version != latestSchemaVersion()) {
        error = QStringLiteral("database %1 has schema version %2, this chat2sbx reads version %3")
                    .arg(m_path).arg(version).arg(latestSchemaVersion());
        close();
        return false;
    }
    m_sqlite = sqliteHandle(m_db);
    return true;
}

bool Database::migrate(QString &error)
{
    // An up-to-date database needs no write lock: a reader (`chat2sbx audit`, `status`) must open it
    // while the server is inside a write transaction, even a frozen one, instead of waiting for it.
    QString readError;
    const int current = readUserVersion(m_db, readError);
    if (current < 0) {
        error = QStringLiteral("cannot read the schema version of database %1: %2").arg(m_path, readError);
        return false;
    }
    if (current == latestSchemaVersion())
        return true;
    // A migration may rebuild a table others reference (SQLite's way to change a constraint): that
    // needs foreign keys off, which only takes effect outside a transaction; they are checked
    // before the commit and switched on again afterwards.
    QSqlQuery fkOff(m_db);
    fkOff.exec(QStringLiteral("PRAGMA foreign_keys=OFF"));
    const bool ok = migrateLocked(error);
    QSqlQuery fkOn(m_db);
    if (!fkOn.exec(QStringLiteral("PRAGMA foreign_keys=ON")) && ok) {
        error = QStringLiteral("cannot configure database %1: %2").arg(m_path, sqlError(fkOn));
        return false;
    }
    return ok;
}

bool Database::migrateLocked(QString &error)
{
    QSqlQuery begin(m_db);
    if (!begin.exec(QStringLiteral("BEGIN IMMEDIATE"))) {
        error = QStringLiteral("cannot lock database %1 for migration: %2").arg(m_path, sqlError(begin));
        return false;
    }
    auto rollback = [this] {
        QSqlQuery r(m_db);
        r.exec(QStringLiteral("ROLLBACK"));
    };
    const int current = readUserVersion(m_db, error);
    if (current < 0) {
        rollback();
        return false;
    }
    const int latest = latestSchemaVersion();
    if (current > latest) {
        rollback();
        error = QStringLiteral("database %1 has schema version %2, newer than this chat2sbx knows (%3)")
                    .arg(m_path).arg(current).arg(latest);
        return false;
    }
    if (current == latest) {
        rollback();   // nothing to do: an up-to-date reopen writes nothing
        return true;
    }
    const auto &migrations = schemaMigrations();
    for (int v = current; v < latest; ++v) {
        for (const QString &statement : migrations.at(v)) {
            QSqlQuery q(m_db);
            if (!q.exec(statement)) {
                const QString why = sqlError(q);
                rollback();
                error = QStringLiteral("migration to schema version %1 failed: %2").arg(v + 1).arg(why);
                return false;
            }
        }
    }
    QSqlQuery fkCheck(m_db);
    if (!fkCheck.exec(QStringLiteral("PRAGMA foreign_key_check")) || fkCheck.next()) {
        const QString why = fkCheck.isActive() ? QStringLiteral("a row refers to one that no longer exists (table %1)")
                                                     .arg(fkCheck.value(0).toString())
                                               : sqlError(fkCheck);
        rollback();
        error = QStringLiteral("migration to schema version %1 failed its foreign key check: %2").arg(latest).arg(why);
        return false;
    }
    fkCheck.finish();
    QSqlQuery setVersion(m_db);
    if (!setVersion.exec(QStringLiteral("PRAGMA user_version = %1").arg(latest))) {
        const QString why = sqlError(setVersion);
        rollback();
        error = QStringLiteral("cannot record schema version %1: %2").arg(latest).arg(why);
        return false;
    }
    QSqlQuery commit(m_db);
    if (!commit.exec(QStringLiteral("COMMIT"))) {
        const QString why = sqlError(commit);
        rollback();
        error = QStringLiteral("cannot commit migration: %1").arg(why);
        return false;
    }
    return true;
}

} // namespace chat2sbx
