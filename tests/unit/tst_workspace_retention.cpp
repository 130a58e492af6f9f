// Retention with an injected clock: a managed workspace without a sandbox is kept
// workspaceRetentionDays after its last use or its last sandbox's end, then MOVED (never deleted)
// to <data root>/trash/<ws_id>-<timestamp> and marked trashed; an active sandbox keeps it; host
// workspaces are never moved.
#include "ManualClock.h"
#include "state/Database.h"
#include "workspace/WorkspaceRetention.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QSignalSpy>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace chat2sbx;

namespace {
constexpr qint64 kDay = 24LL * 3600 * 1000;
const qint64 kStart = 1'800'000'000'000;   // 2027-01-15T08:00:00Z
} // namespace

class TestWorkspaceRetention : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_tmp;
    Config m_config;
    ManualClock m_clock{kStart};
    std::unique_ptr<Database> m_db;
    std::unique_ptr<WorkspaceService> m_ws;
    std::unique_ptr<WorkspaceRetention> m_retention;

    void addSandbox(const QString &id, const QString &workspaceId, const QString &state, qint64 updatedAt)
    {
        QSqlQuery q(m_db->handle());
        q.prepare("INSERT INTO sandboxes (id, workspace_id, runtime_name, state, created_at, updated_at, last_activity_at)"
                  " VALUES (?,?,?,?,?,?,?)");
        for (const QVariant &v : {QVariant(id), QVariant(workspaceId), QVariant("chat2sbx-" + id), QVariant(state),
                                  QVariant(updatedAt), QVariant(updatedAt), QVariant(updatedAt)})
            q.addBindValue(v);
        QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
    }
    void setSandboxState(const QString &id, const QString &state, qint64 at)
    {
        QSqlQuery q(m_db->handle());
        q.prepare("UPDATE sandboxes SET state = ?, updated_at = ? WHERE id = ?");
        q.addBindValue(state);
        q.addBindValue(at);
        q.addBindValue(id);
        QVERIFY(q.exec());
    }
    QStringList trashEntries() const { return QDir(m_config.trashDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot); }

private slots:
    void init()
    {
        m_tmp = std::make_unique<QTemporaryDir>();
        const QString base = QDir(m_tmp->path()).canonicalPath();
        m_config = Config();
        m_config.dataRoot = base + "/data";
        m_config.stateDir = m_config.dataRoot + "/state";
        m_config.workspaceRoot = m_config.dataRoot + "/workspaces";
        m_config.databasePath = m_config.stateDir + "/chat2sbx.sqlite";
        m_config.allowedHostRoots = {base + "/repos"};
        QVERIFY(QDir().mkpath(base + "/repos/site"));
        m_clock.set(kStart);
        m_db = std::make_unique<Database>();
        QString error;
        QVERIFY2(m_db->open(m_config.databasePath, error), qPrintable(error));
        m_ws = std::make_unique<WorkspaceService>(m_config, *m_db, m_clock);
        m_retention = std::make_unique<WorkspaceRetention>(*m_ws, m_clock);
    }
    void cleanup()
    {
        m_retention.reset();
        m_ws.reset();
        m_db.reset();
    }

    void keptForTheRetentionPeriodThenMovedToTheTrash()
    {
        QString error;
        const auto w = m_ws->createManaged(error);
        QVERIFY2(w, qPrintable(error));
        QVERIFY(test_writeFile(w->hostPath + "/notes.txt", "keep me"));
        QCOMPARE(m_ws->overview().first().retentionDeadline, kStart + 30 * kDay);

        m_clock.advance(30 * kDay - 1);
        QVERIFY(m_retention->sweep().trashed.isEmpty());
        QVERIFY(QFileInfo(w->hostPath).isDir());

        QSignalSpy changed(m_ws.get(), &WorkspaceService::workspacesChanged);
        m_clock.advance(1);
        const WorkspaceRetention::Report report = m_retention->sweep();
        QCOMPARE(report.trashed, QStringList{w->id});
        QVERIFY(report.failed.isEmpty());
        QCOMPARE(changed.count(), 1);
        QVERIFY(!QFileInfo::exists(w->hostPath));
        const QString expectedName = w->id + "-20270214T080000Z";   // kStart + 30 days, UTC
        QCOMPARE(trashEntries(), QStringList{expectedName});
        const QString moved = m_config.trashDir() + "/" + expectedName;
        QFile f(moved + "/notes.txt");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("keep me"));
        QCOMPARE(QFileInfo(m_config.trashDir()).permissions() & 0x0077, QFileDevice::Permissions());

        const auto record = m_ws->find(w->id);
        QCOMPARE(record->trashedAt, m_clock.nowMs());
        QCOMPARE(record->hostPath, moved);
        QVERIFY(m_ws->list().isEmpty());
        QVERIFY(!m_ws->checkBeforeUse(*record, error));
        QVERIFY(error.contains("was moved to the trash"));
        // A second sweep has nothing left to do.
        QVERIFY(m_retention->sweep().trashed.isEmpty());
        QCOMPARE(trashEntries().size(), 1);
    }

    void useRenewsTheDeadline()
    {
        QString error;
        const auto w = m_ws->createManaged(error);
        m_clock.advance(20 * kDay);
        m_ws->touch(w->id);
        m_clock.advance(20 * kDay);
        QVERIFY(m_retention->sweep().trashed.isEmpty());
        QCOMPARE(m_ws->overview().first().retentionDeadline, kStart + 50 * kDay);
        m_clock.advance(10 * kDay);
        QCOMPARE(m_retention->sweep().trashed.size(), 1);
    }

    void anActiveSandboxKeepsItAndItsEndStartsTheClock()
    {
        QString error;
        const auto w = m_ws->createManaged(error);
        addSandbox("sbx_a", w->id, "running", kStart);
        m_clock.advance(90 * kDay);
        QVERIFY(m_retention->sweep().trashed.isEmpty());
        QCOMPARE(m_ws->overview().first().activeSandboxId, QString("sbx_a"));
        QCOMPARE(m_ws->overview().first().retentionDeadline, 0);
        for (const char *state : {"creating", "destroying"}) {
            setSandboxState("sbx_a", state, m_clock.nowMs());
            QVERIFY(m_retention->sweep().trashed.isEmpty());
        }
        const qint64 ended = m_clock.nowMs();
        setSandboxState("sbx_a", "destroyed", ended);
        QCOMPARE(m_ws->overview().first().retentionDeadline, ended + 30 * kDay);
        m_clock.advance(30 * kDay - 1);
        QVERIFY(m_retention->sweep().trashed.isEmpty());
        m_clock.advance(1);
        QCOMPARE(m_retention->sweep().trashed, QStringList{w->id});
    }

    // stopped: the sandbox sleeps and wakes on the next tool call; its workspace is in use.
    void aSleepingSandboxKeepsIt()
    {
        QString error;
        const auto w = m_ws->createManaged(error);
        addSandbox("sbx_a", w->id, "stopped", kStart);
        m_clock.advance(90 * kDay);
        QCOMPARE(m_ws->overview().first().activeSandboxId, QString("sbx_a"));
        QCOMPARE(m_ws->overview().first().retentionDeadline, 0);
        QVERIFY(m_retention->sweep().trashed.isEmpty());
        QVERIFY(trashEntries().isEmpty());
    }

    void hostWorkspacesAreNeverMoved()
    {
        QString error;
        const auto host = m_ws->registerHost(m_config.allowedHostRoots.first() + "/site", WorkspaceMode::Direct, error);
        QVERIFY2(host, qPrintable(error));
        QVERIFY(test_writeFile(host->hostPath + "/index.html", "hi"));
        m_clock.advance(3650 * kDay);
        QVERIFY(m_retention->sweep().trashed.isEmpty());
        QVERIFY(QFileInfo(host->hostPath + "/index.html").isFile());
        QCOMPARE(m_ws->find(host->id)->trashedAt, 0);
        QCOMPARE(m_ws->overview().first().retentionDeadline, 0);
        QVERIFY(!QFileInfo::exists(m_config.trashDir()));
    }

    void aMissingFolderIsJustMarked()
    {
        QString error;
        const auto w = m_ws->createManaged(error);
        QVERIFY(QDir(w->hostPath).removeRecursively());
        m_clock.advance(31 * kDay);
        QCOMPARE(m_retention->sweep().trashed, QStringList{w->id});
        QVERIFY(m_ws->find(w->id)->trashedAt > 0);
        QVERIFY(trashEntries().isEmpty());
    }

    void retentionIsConfigurable()
    {
        m_config.workspaceRetentionDays = 2;
        QString error;
        const auto w = m_ws->createManaged(error);
        m_clock.advance(2 * kDay - 1);
        QVERIFY(m_retention->sweep().trashed.isEmpty());
        m_clock.advance(1);
        QCOMPARE(m_retention->sweep().trashed, QStringList{w->id});
    }

    void startSweepsOnTheEventLoop()
    {
        QString error;
        const auto w = m_ws->createManaged(error);
        m_clock.advance(31 * kDay);
        QSignalSpy swept(m_retention.get(), &WorkspaceRetention::swept);
        m_retention->start();
        QVERIFY(swept.wait(5000));
        QCOMPARE(swept.first().first().toInt(), 1);
        m_retention->stop();
    }

private:
    static bool test_writeFile(const QString &path, const QByteArray &data)
    {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceRetention)
#include "tst_workspace_retention.moc"
