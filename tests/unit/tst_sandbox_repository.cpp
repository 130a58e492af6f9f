// SandboxRepository: state round trip, the atomic limit (also across two connections, as the CLI
// and the server share the file), guarded transitions, idle deadlines, ports; and the argument
// helpers of the sandbox tools (memory sizes, the global AGENTS.md rules).
#include "TestSupport.h"

#include "core/Ids.h"
#include "state/Database.h"
#include "state/SandboxRepository.h"
#include "state/WorkspaceRepository.h"
#include "config/AgentsMd.h"
#include "tools/MemoryArgument.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

SandboxRecord record(const QString &ws, SandboxState state = SandboxState::Creating)
{
    SandboxRecord r;
    r.id = newId("sbx_");
    r.workspaceId = ws;
    r.runtimeName = QStringLiteral("chat2sbx-") + randomHex(8);
    r.state = state;
    r.createdAt = r.updatedAt = r.lastActivityAt = 1000;
    r.idleDeadline = 5000;
    return r;
}

bool contains(const QList<SandboxRecord> &list, const QString &id)
{
    return std::any_of(list.begin(), list.end(), [&](const SandboxRecord &x) { return x.id == id; });
}

} // namespace

class TestSandboxRepository : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;

    bool openDb(Database &db)
    {
        QString error;
        const bool ok = db.open(m_dir.path() + "/state/db.sqlite", error);
        if (!ok)
            qWarning("%s", qPrintable(error));
        return ok;
    }

private slots:
    void initTestCase()
    {
        Database db;
        QVERIFY(openDb(db));
        Workspace w;
        w.id = m_ws = newId("ws_");
        w.hostPath = m_dir.path() + "/w";
        w.displayName = "w";
        QString error;
        QVERIFY(WorkspaceRepository(db).insert(w, error));
    }

    void roundTripAndTransitions()
    {
        Database db;
        QVERIFY(openDb(db));
        SandboxRepository repo(db);
        SandboxRecord r = record(m_ws);
        r.memory = "4g";
        bool limit = false;
        QString error;
        QVERIFY(repo.insertWithinLimit(r, 0, limit, error));
        auto back = repo.find(r.id);
        QVERIFY(back);
        QCOMPARE(back->runtimeName, r.runtimeName);
        QCOMPARE(back->state, SandboxState::Creating);
        QCOMPARE(back->memory, QStringLiteral("4g"));
        QCOMPARE(back->idleDeadline, qint64(5000));
        QVERIFY(repo.transition(r.id, SandboxState::Creating, SandboxState::Running, {}, 2000, error));
        QVERIFY(!repo.transition(r.id, SandboxState::Creating, SandboxState::Running, {}, 2000, error));   // not creating any more
        QVERIFY(error.isEmpty());
        QCOMPARE(repo.findForWorkspace(m_ws, SandboxState::Running)->id, r.id);
        QVERIFY(!contains(repo.idleExpired(4999), r.id));
        QVERIFY(contains(repo.idleExpired(5000), r.id));
        QVERIFY(repo.renew(r.id, 3000, 9000, error));
        QCOMPARE(repo.find(r.id)->idleDeadline, qint64(9000));
        QVERIFY(repo.setState(r.id, SandboxState::Failed, "why", 3000, error));
        QCOMPARE(repo.find(r.id)->reason, QStringLiteral("why"));
        QVERIFY(repo.upsertPort(r.id, {8080, "0.0.0.0", 40000}, error));
        QVERIFY(repo.upsertPort(r.id, {8080, "0.0.0.0", 40001}, error));
        QCOMPARE(repo.ports(r.id).size(), 1);
        QCOMPARE(repo.findPort(r.id, 8080)->hostPort, 40001);
        QVERIFY(repo.clearPorts(r.id, error));
        QVERIFY(!repo.findPort(r.id, 8080));
        QVERIFY(repo.setState(r.id, SandboxState::Destroyed, {}, 4000, error));
        QVERIFY(!contains(repo.list(), r.id));
        QVERIFY(contains(repo.list(true), r.id));
    }

    // sandbox_list's one query: each live sandbox once, with its workspace and every port (or none), and (the
    // statement is cached) a second read sees what another connection wrote in between.
    void listViewsIsOneJoinedReadThatStaysFresh()
    {
        Database db, other;
        QVERIFY(openDb(db));
        QVERIFY(openDb(other));
        SandboxRepository repo(db), otherRepo(other);
        bool limit = false;
        QString error;
        SandboxRecord withPorts = record(m_ws, SandboxState::Running);
        SandboxRecord orphan = record(m_ws, SandboxState::Failed);   // no ports
        QVERIFY(repo.insertWithinLimit(withPorts, 0, limit, error));
        QVERIFY(repo.upsertPort(withPorts.id, {9000, "127.0.0.1", 41000}, error));
        QVERIFY(repo.upsertPort(withPorts.id, {8000, "127.0.0.1", 42000}, error));
        QVERIFY(repo.insertWithinLimit(orphan, 0, limit, error));

        auto byId = [](const QList<SandboxView> &views, const QString &id) -> const SandboxView * {
            for (const SandboxView &v : views)
                if (v.record.id == id)
                    return &v;
            return nullptr;
        };
        QList<SandboxView> views = repo.listViews();
        QCOMPARE(views.size(), repo.list().size());
        const SandboxView *a = byId(views, withPorts.id);
        QVERIFY(a);
        QVERIFY(a->workspace);
        QCOMPARE(a->workspace->id, m_ws);
        QCOMPARE(a->workspace->hostPath, m_dir.path() + "/w");
        QCOMPARE(a->ports.size(), 2);
        QCOMPARE(a->ports.at(0).sandboxPort, 8000);
        QCOMPARE(a->ports.at(1).hostPort, 41000);
        const SandboxView *b = byId(views, orphan.id);
        QVERIFY(b && b->workspace && b->ports.isEmpty());

        QVERIFY(otherRepo.setState(orphan.id, SandboxState::Destroyed, {}, 5, error));
        QVERIFY(otherRepo.clearPorts(withPorts.id, error));
        views = repo.listViews();
        QVERIFY(!byId(views, orphan.id));
        QVERIFY(byId(views, withPorts.id)->ports.isEmpty());
        QVERIFY(repo.setState(withPorts.id, SandboxState::Destroyed, {}, 6, error));   // the limit test counts active ones
    }

    // sandbox_list's pages: the newest `limit` first (oldest of them first, as the whole list is
    // ordered), then the older ones from the cursor, every live sandbox once, destroyed ones never;
    // ties on created_at are broken by id; a made-up cursor is refused.
    void pagesListTheNewestFirstThenOlderOnes()
    {
        Database db;
        QVERIFY(openDb(db));
        SandboxRepository repo(db);
        QString error;
        bool limit = false;
        const QList<SandboxView> before = repo.listViews();
        for (const SandboxView &v : before)
            QVERIFY(repo.setState(v.record.id, SandboxState::Destroyed, {}, 1, error));
        QList<QPair<qint64, QString>> made;
        for (int i = 0; i < 7; ++i) {
            SandboxRecord r = record(m_ws, SandboxState::Running);
            r.createdAt = 2000000 + (i / 2) * 10;   // pairs share a creation time
            QVERIFY(repo.insertWithinLimit(r, 0, limit, error));
            made.append({r.createdAt, r.id});
        }
        SandboxRecord gone = record(m_ws, SandboxState::Destroyed);
        gone.createdAt = 2000015;
        QVERIFY(repo.insertWithinLimit(gone, 0, limit, error));
        std::sort(made.begin(), made.end());
        QStringList ids;   // in listing order: creation time, then id
        for (const auto &m : std::as_const(made))
            ids << m.second;
        QCOMPARE(repo.countListed(), 7);
        QStringList seen;
        QString cursor;
        int pages = 0;
        for (;;) {
            const QList<SandboxView> page = repo.listViews({3, cursor});
            if (page.isEmpty())
                break;
            ++pages;
            QVERIFY(page.size() <= 3);
            QStringList pageIds;
            for (const SandboxView &v : page)
                pageIds << v.record.id;
            QVERIFY2(std::is_sorted(pageIds.cbegin(), pageIds.cend(),
                                    [&](const QString &a, const QString &b) { return ids.indexOf(a) < ids.indexOf(b); }),
                     qPrintable(pageIds.join(QLatin1Char(' '))));
            seen = pageIds + seen;
            cursor = SandboxRepository::cursorOf(page.constFirst().record);
        }
        QCOMPARE(pages, 3);
        QCOMPARE(seen, ids);
        QVERIFY(repo.listViews({3, {}}).constLast().record.id == ids.constLast());
        qint64 at = 0;
        QString id;
        QVERIFY(SandboxRepository::parseCursor(cursor, at, id));
        for (const char *bad : {"", "x", "12", "12.", ".sbx_1", "-1.sbx_1", "12.ws_1", "12.sbx_1'--", "12.sbx_1 OR 1"})
            QVERIFY2(!SandboxRepository::parseCursor(QLatin1String(bad), at, id), bad);
        for (const QString &i : ids)
            QVERIFY(repo.setState(i, SandboxState::Destroyed, {}, 2, error));
    }

    void limitIsAtomicAcrossConnections()
    {
        Database a, b;
        QVERIFY(openDb(a));
        QVERIFY(openDb(b));
        SandboxRepository ra(a), rb(b);
        const int base = ra.countActive();
        int inserted = 0, refused = 0;
        for (int i = 0; i < 10; ++i) {
            SandboxRepository &repo = (i % 2) ? rb : ra;
            bool limit = false;
            QString error;
            if (repo.insertWithinLimit(record(m_ws), base + 3, limit, error))
                ++inserted;
            else if (limit)
                ++refused;
        }
        QCOMPARE(inserted, 3);
        QCOMPARE(refused, 7);
        QCOMPARE(rb.countActive(), base + 3);
        // failed and destroyed ones do not count
        for (const SandboxRecord &r : ra.inState(SandboxState::Creating)) {
            QString error;
            ra.setState(r.id, SandboxState::Failed, "x", 1, error);
        }
        bool limit = false;
        QString error;
        QVERIFY(rb.insertWithinLimit(record(m_ws), 1, limit, error));
    }

    void memorySizes()
    {
        QString n, e;
        for (const auto &[in, out] : QList<QPair<QString, QString>>{{"512m", "512m"}, {"512M", "512m"}, {"4g", "4g"},
                                                                    {"32G", "32g"}, {"524288k", "524288k"}, {"1g", "1g"}}) {
            QVERIFY2(parseMemoryArgument(in, n, e), qPrintable(in + ": " + e));
            QCOMPARE(n, out);
        }
        for (const char *bad : {"511m", "256m", "33g", "32769m", "524287k", "0", "4", "4gb", "4 g", " 4g", "1t", "-4g", "4.5g", "999999999999999g", ""}) {
            QVERIFY2(!parseMemoryArgument(QLatin1String(bad), n, e), bad);
            QVERIFY2(e.contains(QStringLiteral("\"%1\"").arg(QLatin1String(bad))), qPrintable(e));
        }
    }

    void agentsFileRules()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/AGENTS.md";
        std::optional<QString> text;
        QString error;
        QVERIFY(readGlobalAgentsFile(path, text, error));
        QVERIFY(!text);
        QVERIFY(writeFile(path, "be kind\r\n"));
        QVERIFY(readGlobalAgentsFile(path, text, error));
        QCOMPARE(*text, QStringLiteral("be kind\r\n"));
        QVERIFY(writeFile(path, QByteArray(300 * 1024, 'x')));
        QVERIFY(!readGlobalAgentsFile(path, text, error));
        QVERIFY(error.contains("larger than"));
        QFile::remove(path);
        QVERIFY(QFile::link(dir.path() + "/missing-target", path));   // a dangling link: still a link
        QVERIFY(!readGlobalAgentsFile(path, text, error));
        QVERIFY(error.contains("symbolic link"));
        QVERIFY(!error.contains(dir.path()));
    }
};

QTEST_GUILESS_MAIN(TestSandboxRepository)
#include "tst_sandbox_repository.moc"
