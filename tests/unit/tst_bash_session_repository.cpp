// BashSessionRepository stays bounded whatever the agent runs: a stored command
// is cut, bash_list's query returns every running session and only the newest ended ones, and the
// hourly pass removes the sessions of destroyed sandboxes and those that ended long ago.
#include "TestSupport.h"

#include "core/Ids.h"
#include "state/BashSessionRepository.h"
#include "state/Database.h"
#include "state/SandboxRepository.h"
#include "state/WorkspaceRepository.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;

class TestBashSessionRepository : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    Database m_db;
    QString m_ws;

    QString addSandbox()
    {
        SandboxRecord r;
        r.id = newId("sbx_");
        r.workspaceId = m_ws;
        r.runtimeName = QStringLiteral("chat2sbx-") + randomHex(8);
        r.state = SandboxState::Running;
        r.createdAt = r.updatedAt = r.lastActivityAt = 1000;
        bool limit = false;
        QString error;
        if (!SandboxRepository(m_db).insertWithinLimit(r, 0, limit, error))
            qWarning("%s", qPrintable(error));
        return r.id;
    }

    BashSessionRecord session(const QString &sandboxId, qint64 startedAt, bool exited)
    {
        BashSessionRecord s;
        s.id = newId("bash_");
        s.sandboxId = sandboxId;
        s.command = QStringLiteral("echo %1").arg(startedAt);
        s.startedAt = startedAt;
        s.exited = exited;
        if (exited) {
            s.exitCode = 0;
            s.finishedAt = startedAt + 1;
        }
        return s;
    }

private slots:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_db.open(m_dir.path() + "/state/db.sqlite", error), qPrintable(error));
        Workspace w;
        w.id = m_ws = newId("ws_");
        w.hostPath = m_dir.path() + "/w";
        w.displayName = "w";
        QVERIFY(WorkspaceRepository(m_db).insert(w, error));
    }

    void longCommandIsStoredCut()
    {
        BashSessionRepository repo(m_db);
        BashSessionRecord s = session(addSandbox(), 10, false);
        s.command = QString(128 * 1024, QLatin1Char('x'));
        QString error;
        QVERIFY2(repo.insert(s, error), qPrintable(error));
        const auto stored = repo.find(s.id);
        QVERIFY(stored);
        QCOMPARE(stored->command.size(), BashSessionRepository::kMaxStoredCommandChars + 1);
        QVERIFY(stored->command.endsWith(QStringLiteral("…")));
    }

    void listKeepsRunningAndTheNewestEnded()
    {
        BashSessionRepository repo(m_db);
        const QString sb = addSandbox();
        QString error;
        const BashSessionRecord oldRunning = session(sb, 1, false);
        QVERIFY(repo.insert(oldRunning, error));
        for (int i = 0; i < 250; ++i)
            QVERIFY(repo.insert(session(sb, 100 + i, true), error));
        const QList<BashSessionRecord> listed = repo.listForSandbox(sb);
        QCOMPARE(listed.size(), BashSessionRepository::kMaxListedEnded + 1);
        QCOMPARE(listed.first().id, oldRunning.id);           // running: always listed, oldest first
        QCOMPARE(listed.at(1).startedAt, qint64(100 + 150));   // the 100 newest ended ones
        QCOMPARE(listed.last().startedAt, qint64(100 + 249));
        QCOMPARE(repo.countEnded(sb), 250);
    }

    void pruneRemovesDestroyedSandboxesAndOldEndedSessions()
    {
        BashSessionRepository repo(m_db);
        SandboxRepository sandboxes(m_db);
        const QString live = addSandbox(), gone = addSandbox();
        QString error;
        const BashSessionRecord recentEnded = session(live, 9000, true);
        const BashSessionRecord oldEnded = session(live, 100, true);
        const BashSessionRecord oldRunning = session(live, 50, false);
        const BashSessionRecord ofGone = session(gone, 9000, true);
        for (const auto &s : {recentEnded, oldEnded, oldRunning, ofGone})
            QVERIFY(repo.insert(s, error));
        QVERIFY(sandboxes.setState(gone, SandboxState::Destroyed, {}, 9500, error));

        QVERIFY(repo.prune(10000, 5000, error) >= 2);
        QVERIFY(repo.find(recentEnded.id));
        QVERIFY(repo.find(oldRunning.id));   // still running: never pruned
        QVERIFY(!repo.find(oldEnded.id));
        QVERIFY(!repo.find(ofGone.id));
    }
};

QTEST_GUILESS_MAIN(TestBashSessionRepository)
#include "tst_bash_session_repository.moc"
