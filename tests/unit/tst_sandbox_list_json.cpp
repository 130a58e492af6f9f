// SandboxListJson: sandbox_list's result written from summaries kept serialized is byte for byte the
// presenter's objects serialized, and a summary is rebuilt as soon as anything in its rows changes.
#include "ManualClock.h"

#include "config/Config.h"
#include "core/Ids.h"
#include "core/JsonText.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxListJson.h"
#include "sandbox/present/SandboxPresenter.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/Database.h"
#include "state/SandboxRepository.h"
#include "state/WorkspaceRepository.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <memory>

using namespace chat2sbx;

class TestSandboxListJson : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    Config m_config;
    ManualClock m_clock{1'800'000'000'000};
    std::unique_ptr<Database> m_db;
    std::unique_ptr<WorkspaceService> m_workspaces;
    std::unique_ptr<SbxDriver> m_sbx;
    std::unique_ptr<SandboxService> m_sandboxes;
    std::unique_ptr<SandboxRepository> m_repo;

    // What sandbox_list answered before the summaries were kept serialized.
    QByteArray presented(int limit) const
    {
        QJsonArray items;
        for (const SandboxView &v : m_sandboxes->list())
            items.append(sandboxJson(v, *m_sandboxes));
        return json::compact({{QStringLiteral("sandboxes"), items},
                              {QStringLiteral("max_active_sandboxes"), sandboxLimitJson(limit)}});
    }

    SandboxRecord addSandbox(SandboxState state)
    {
        QString error;
        const auto ws = m_workspaces->createManaged(error);
        SandboxRecord r;
        r.id = newId("sbx_");
        r.workspaceId = ws ? ws->id : QString();
        r.runtimeName = QStringLiteral("chat2sbx-%1").arg(newId("").right(16));
        r.state = state;
        r.createdAt = r.updatedAt = r.lastActivityAt = m_clock.nowMs();
        m_clock.advance(1000);
        bool limited = false;
        if (!m_repo->insertWithinLimit(r, 0, limited, error))
            qWarning("insert: %s", qPrintable(error));
        return r;
    }

private slots:
    void init()
    {
        QVERIFY(m_tmp.isValid());
        const QString base = QDir(m_tmp.path()).canonicalPath() + QStringLiteral("/") + newId("t_");
        m_config.dataRoot = base + "/home/.chat2sbx";
        m_config.stateDir = m_config.dataRoot + "/state";
        m_config.workspaceRoot = m_config.dataRoot + "/workspaces";
        m_config.databasePath = m_config.stateDir + "/chat2sbx.sqlite";
        m_config.sbxPath = base + "/no-sbx";
        QVERIFY(QDir().mkpath(m_config.stateDir));
        m_db = std::make_unique<Database>();
        QString error;
        QVERIFY2(m_db->open(m_config.databasePath, error), qPrintable(error));
        m_workspaces = std::make_unique<WorkspaceService>(m_config, *m_db, m_clock);
        m_sbx = std::make_unique<SbxDriver>(m_config.sbxPath, m_config.sbxEnv);
        m_sandboxes = std::make_unique<SandboxService>(m_config, *m_db, *m_workspaces, *m_sbx, m_clock);
        m_repo = std::make_unique<SandboxRepository>(*m_db);
    }
    void cleanup()
    {
        m_repo.reset();
        m_sandboxes.reset();
        m_sbx.reset();
        m_workspaces.reset();
        m_db.reset();
    }

    void sameBytesAsThePresenter()
    {
        SandboxListJson list;
        QCOMPARE(list.listJson({}, *m_sandboxes, 0), presented(0));   // empty: {"max_active_sandboxes":"unlimited","sandboxes":[]}
        QString error;
        const SandboxRecord running = addSandbox(SandboxState::Running);
        QVERIFY2(m_repo->renew(running.id, m_clock.nowMs(), m_clock.nowMs() + 3'600'000, error), qPrintable(error));
        QVERIFY2(m_repo->upsertPort(running.id, {3000, QStringLiteral("127.0.0.1"), 41000}, error), qPrintable(error));
        QVERIFY2(m_repo->upsertPort(running.id, {8080, QStringLiteral("0.0.0.0"), 41001}, error), qPrintable(error));
        const SandboxRecord asleep = addSandbox(SandboxState::Running);
        QVERIFY2(m_repo->markStopped(asleep.id, m_clock.nowMs(), QStringLiteral("idle \"quote\"\n\ttab é"), m_clock.nowMs(), error),
                 qPrintable(error));
        const SandboxRecord failed = addSandbox(SandboxState::Creating);
        QVERIFY2(m_repo->setState(failed.id, SandboxState::Failed,
                                  QStringLiteral("%1 failed in %2 \\ \x01").arg(running.runtimeName, m_config.workspaceRoot),
                                  m_clock.nowMs(), error),
                 qPrintable(error));
        addSandbox(SandboxState::Creating);

        for (int limit : {0, 4}) {
            const QByteArray first = list.listJson(m_sandboxes->list(), *m_sandboxes, limit);
            QCOMPARE(first, presented(limit));
            QCOMPARE(list.listJson(m_sandboxes->list(), *m_sandboxes, limit), first);   // from the cache
        }
        QCOMPARE(list.cachedCount(), 3);   // the failed one (its reason is redacted) is always built afresh
        const QJsonObject parsed = QJsonDocument::fromJson(list.listJson(m_sandboxes->list(), *m_sandboxes, 0)).object();
        QCOMPARE(parsed.value("sandboxes").toArray().size(), 4);
        QVERIFY(!parsed.value("sandboxes").toArray().at(2).toObject().value("failure_reason").toString().contains(running.runtimeName));
    }

    void aChangedRowIsSummarizedAgain()
    {
        SandboxListJson list;
        QString error;
        const SandboxRecord r = addSandbox(SandboxState::Running);
        const SandboxRecord other = addSandbox(SandboxState::Running);
        const QList<std::pair<const char *, std::function<bool()>>> changes = {
            {"idle deadline renewed", [&] { return m_repo->renew(r.id, m_clock.nowMs(), m_clock.nowMs() + 60'000, error); }},
            {"port exposed", [&] { return m_repo->upsertPort(r.id, {5000, QStringLiteral("127.0.0.1"), 42000}, error); }},
            {"port moved", [&] { return m_repo->upsertPort(r.id, {5000, QStringLiteral("127.0.0.1"), 42001}, error); }},
            {"port removed", [&] { return m_repo->removePort(r.id, 5000, error); }},
            {"asleep", [&] { return m_repo->markStopped(r.id, m_clock.nowMs(), QStringLiteral("idle"), m_clock.nowMs(), error); }},
            {"woken", [&] { return m_repo->markWoken(r.id, m_clock.nowMs(), m_clock.nowMs() + 60'000, error); }},
            {"destroying", [&] { return m_repo->setState(r.id, SandboxState::Destroying, {}, m_clock.nowMs(), error); }},
        };
        QByteArray before = list.listJson(m_sandboxes->list(), *m_sandboxes, 0);
        for (const auto &[what, change] : changes) {
            m_clock.advance(1000);
            QVERIFY2(change(), qPrintable(QStringLiteral("%1: %2").arg(what, error)));
            const QByteArray after = list.listJson(m_sandboxes->list(), *m_sandboxes, 0);
            QVERIFY2(after != before, what);
            QVERIFY2(after == presented(0), what);
            before = after;
        }

        // A sandbox that is no longer listed leaves the cache.
        QCOMPARE(list.cachedCount(), 2);
        QVERIFY2(m_repo->setState(other.id, SandboxState::Destroyed, {}, m_clock.nowMs(), error), qPrintable(error));
        QCOMPARE(list.listJson(m_sandboxes->list(), *m_sandboxes, 0), presented(0));
        QCOMPARE(list.cachedCount(), 1);
    }

    void sameViewComparesEveryField()
    {
        SandboxView base;
        base.record.id = QStringLiteral("sbx_1");
        base.workspace = Workspace{};
        base.workspace->id = QStringLiteral("ws_1");
        base.ports = {{3000, QStringLiteral("127.0.0.1"), 41000}};
        QVERIFY(SandboxListJson::sameView(base, base));
        const QList<std::pair<const char *, std::function<void(SandboxView &)>>> edits = {
            {"id", [](SandboxView &v) { v.record.id += 'x'; }},
            {"workspaceId", [](SandboxView &v) { v.record.workspaceId = "ws_2"; }},
            {"runtimeName", [](SandboxView &v) { v.record.runtimeName = "rt"; }},
            {"state", [](SandboxView &v) { v.record.state = SandboxState::Stopped; }},
            {"memory", [](SandboxView &v) { v.record.memory = "4g"; }},
            {"reason", [](SandboxView &v) { v.record.reason = "r"; }},
            {"createdAt", [](SandboxView &v) { v.record.createdAt = 1; }},
            {"updatedAt", [](SandboxView &v) { v.record.updatedAt = 1; }},
            {"lastActivityAt", [](SandboxView &v) { v.record.lastActivityAt = 1; }},
            {"idleDeadline", [](SandboxView &v) { v.record.idleDeadline = 1; }},
            {"sleptAt", [](SandboxView &v) { v.record.sleptAt = 1; }},
            {"wokeAt", [](SandboxView &v) { v.record.wokeAt = 1; }},
            {"sleepReason", [](SandboxView &v) { v.record.sleepReason = "s"; }},
            {"no workspace", [](SandboxView &v) { v.workspace.reset(); }},
            {"workspace id", [](SandboxView &v) { v.workspace->id = "ws_2"; }},
            {"workspace mode", [](SandboxView &v) { v.workspace->mode = WorkspaceMode::Direct; }},
            {"workspace hostPath", [](SandboxView &v) { v.workspace->hostPath = "/x"; }},
            {"workspace displayName", [](SandboxView &v) { v.workspace->displayName = "x"; }},
            {"workspace createdAt", [](SandboxView &v) { v.workspace->createdAt = 1; }},
            {"workspace lastUsedAt", [](SandboxView &v) { v.workspace->lastUsedAt = 1; }},
            {"workspace trashedAt", [](SandboxView &v) { v.workspace->trashedAt = 1; }},
            {"workspace revokedAt", [](SandboxView &v) { v.workspace->revokedAt = 1; }},
            {"workspace hostDevice", [](SandboxView &v) { v.workspace->hostDevice = 1; }},
            {"workspace hostInode", [](SandboxView &v) { v.workspace->hostInode = 1; }},
            {"port added", [](SandboxView &v) { v.ports.append({8080, "0.0.0.0", 41001}); }},
            {"no ports", [](SandboxView &v) { v.ports.clear(); }},
            {"sandbox port", [](SandboxView &v) { v.ports[0].sandboxPort = 3001; }},
            {"host ip", [](SandboxView &v) { v.ports[0].hostIp = "0.0.0.0"; }},
            {"host port", [](SandboxView &v) { v.ports[0].hostPort = 41002; }},
        };
        for (const auto &[what, edit] : edits) {
            SandboxView changed = base;
            edit(changed);
            QVERIFY2(!SandboxListJson::sameView(base, changed), what);
            QVERIFY2(!SandboxListJson::sameView(changed, base), what);
        }
    }
};

QTEST_GUILESS_MAIN(TestSandboxListJson)
#include "tst_sandbox_list_json.moc"
