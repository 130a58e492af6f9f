// SandboxPresenter: the one place that turns sandboxes, workspaces and ports into what tools, the
// CLI and the tray show. Data-directory paths and runtime names are redacted for agents, a port has
// one shape, "unlimited" has one spelling.
#include "ManualClock.h"

#include "config/Config.h"
#include "core/Ids.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxPresenter.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/Database.h"
#include "state/SandboxRepository.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace chat2sbx;

class TestSandboxPresenter : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    Config m_config;
    ManualClock m_clock{1'800'000'000'000};

    static QStringList keys(const QJsonObject &o)
    {
        QStringList k = o.keys();
        k.sort();
        return k;
    }

private slots:
    void initTestCase()
    {
        const QString base = QDir(m_tmp.path()).canonicalPath();
        m_config.dataRoot = base + "/home/.chat2sbx";
        m_config.stateDir = m_config.dataRoot + "/state";
        m_config.workspaceRoot = m_config.dataRoot + "/workspaces";
        m_config.databasePath = m_config.stateDir + "/chat2sbx.sqlite";
        m_config.sbxPath = base + "/no-sbx";
    }

    void dataPathsAreRedacted_data()
    {
        QTest::addColumn<QString>("raw");
        QTest::addColumn<QString>("shown");
        QTest::newRow("managed workspace") << "cd DATA/workspaces/ws_0123456789abcdef01234567/src failed"
                                           << "cd ~/workspace/src failed";
        QTest::newRow("workspace root") << "DATA/workspaces is full" << "<chat2sbx data directory> is full";
        QTest::newRow("state dir") << "cannot open DATA/state/chat2sbx.sqlite"
                                   << "cannot open <chat2sbx data directory>/chat2sbx.sqlite";
        QTest::newRow("data root") << "DATA/AGENTS.md is a link" << "<chat2sbx data directory>/AGENTS.md is a link";
        QTest::newRow("elsewhere") << "/srv/project is not a repository" << "/srv/project is not a repository";
    }
    void dataPathsAreRedacted()
    {
        QFETCH(QString, raw);
        QFETCH(QString, shown);
        raw.replace("DATA", m_config.dataRoot);
        QCOMPARE(redactDataPaths(raw, m_config), shown);
        QCOMPARE(dataDirPlaceholder(), QStringLiteral("<chat2sbx data directory>"));
    }

    void runtimeNamesBecomeIds()
    {
        SandboxRecord known;
        known.id = QStringLiteral("sbx_0123456789abcdef01234567");
        known.runtimeName = QStringLiteral("chat2sbx-00112233445566ff");
        int asked = 0;
        auto records = [&] { ++asked; return QList<SandboxRecord>{known}; };
        const QString shown = redactForAgent(
            QStringLiteral("%1 and chat2sbx-ffeeddccbbaa9988 died in %2/x").arg(known.runtimeName, m_config.stateDir),
            m_config, records);
        QCOMPARE(shown, QStringLiteral("sbx_0123456789abcdef01234567 and <sandbox> died in <chat2sbx data directory>/x"));
        QCOMPARE(asked, 1);
        QCOMPARE(redactForAgent(QStringLiteral("plain text"), m_config, records), QStringLiteral("plain text"));
        QCOMPARE(asked, 1);   // no runtime name in the text: the records are not read
    }

    void portHasOneShape_data()
    {
        QTest::addColumn<QString>("hostIp");
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("lanWide");
        QTest::newRow("loopback") << "127.0.0.1" << "http://127.0.0.1:49152/" << false;
        QTest::newRow("all interfaces") << "0.0.0.0" << "http://127.0.0.1:49152/" << true;
        QTest::newRow("lan address") << "192.168.1.20" << "http://192.168.1.20:49152/" << true;
    }
    void portHasOneShape()
    {
        QFETCH(QString, hostIp);
        QFETCH(QString, url);
        QFETCH(bool, lanWide);
        const PortView p = presentPort(8080, hostIp, 49152);
        QCOMPARE(p.url, url);
        QCOMPARE(p.lanWide, lanWide);
        const QJsonObject j = portJson(p);
        QCOMPARE(keys(j), (QStringList{"host_ip", "host_port", "lan_wide", "sandbox_port", "url"}));
        QCOMPARE(j.value("sandbox_port").toInt(), 8080);
        QCOMPARE(j.value("host_ip").toString(), hostIp);
        QCOMPARE(j.value("host_port").toInt(), 49152);
        QCOMPARE(j.value("url").toString(), url);
        QCOMPARE(j.value("lan_wide").toBool(!lanWide), lanWide);
    }

    void unlimitedHasOneSpelling()
    {
        QCOMPARE(sandboxLimitText(0), QStringLiteral("unlimited"));
        QCOMPARE(sandboxLimitJson(0), QJsonValue(QStringLiteral("unlimited")));
        QCOMPARE(sandboxLimitText(4), QStringLiteral("4"));
        QCOMPARE(sandboxLimitJson(4), QJsonValue(4));
    }

    void workspaceShowsHostPathsOnlyToTheLocalUser()
    {
        Workspace managed;
        managed.id = QStringLiteral("ws_0123456789abcdef01234567");
        managed.mode = WorkspaceMode::Managed;
        managed.hostPath = m_config.workspaceRoot + "/" + managed.id;
        managed.displayName = managed.id;
        managed.createdAt = 1000;
        managed.lastUsedAt = 2000;
        const WorkspaceOverview m{managed, {}, 3000};
        const QJsonObject agent = workspaceJson(m);
        QCOMPARE(keys(agent), (QStringList{"display_name", "last_used_at", "mode", "path_in_sandbox", "retention_deadline",
                                           "sandbox_id", "workspace_id"}));
        QCOMPARE(agent.value("path_in_sandbox").toString(), QStringLiteral("~/workspace"));
        QCOMPARE(agent.value("retention_deadline").toString(), isoTime(3000));
        QCOMPARE(agent.value("sandbox_id"), QJsonValue());
        QVERIFY(!QJsonDocument(agent).toJson().contains(m_config.dataRoot.toUtf8()));
        const QJsonObject local = workspaceJson(m, Audience::LocalUser);
        QCOMPARE(local.value("host_path").toString(), managed.hostPath);
        QCOMPARE(local.value("created_at").toString(), isoTime(1000));

        Workspace direct = managed;
        direct.mode = WorkspaceMode::Direct;
        direct.hostPath = QStringLiteral("/srv/project");
        const QJsonObject d = workspaceJson(WorkspaceOverview{direct, QStringLiteral("sbx_0123456789abcdef01234567"), 0});
        QCOMPARE(d.value("host_path").toString(), QStringLiteral("/srv/project"));
        QCOMPARE(d.value("path_in_sandbox").toString(), QStringLiteral("/srv/project"));
        QCOMPARE(d.value("sandbox_id").toString(), QStringLiteral("sbx_0123456789abcdef01234567"));
        QVERIFY(!d.contains("retention_deadline"));
    }

    void sandboxRedactsItsReasonAndListsPorts()
    {
        Database db;
        QString error;
        QVERIFY2(db.open(m_config.databasePath, error), qPrintable(error));
        WorkspaceService workspaces(m_config, db, m_clock);
        SbxDriver sbx(m_config.sbxPath, m_config.sbxEnv);
        SandboxService sandboxes(m_config, db, workspaces, sbx, m_clock);
        const auto ws = workspaces.createManaged(error);
        QVERIFY2(ws, qPrintable(error));

        SandboxRepository repo(db);
        SandboxRecord r;
        r.id = newId("sbx_");
        r.workspaceId = ws->id;
        r.runtimeName = QStringLiteral("chat2sbx-0011223344556677");
        r.state = SandboxState::Creating;
        r.createdAt = r.updatedAt = r.lastActivityAt = 1000;
        bool limit = false;
        QVERIFY2(repo.insertWithinLimit(r, 0, limit, error), qPrintable(error));
        QVERIFY2(repo.setState(r.id, SandboxState::Failed,
                               QStringLiteral("%1 failed in %2").arg(r.runtimeName, ws->hostPath), 2000, error),
                 qPrintable(error));
        QVERIFY2(repo.upsertPort(r.id, SandboxPortRecord{3000, QStringLiteral("127.0.0.1"), 41000}, error), qPrintable(error));

        const std::optional<SandboxView> view = sandboxes.get(r.id);
        QVERIFY(view);
        const QJsonObject agent = sandboxJson(*view, sandboxes);
        QCOMPARE(agent.value("sandbox_id").toString(), r.id);
        QCOMPARE(agent.value("state").toString(), QStringLiteral("failed"));
        QCOMPARE(agent.value("memory").toString(), QStringLiteral("default"));
        QCOMPARE(agent.value("workspace_mode").toString(), QStringLiteral("managed"));
        QCOMPARE(agent.value("workspace_path").toString(), QStringLiteral("~/workspace"));
        QCOMPARE(agent.value("failure_reason").toString(), QStringLiteral("%1 failed in ~/workspace").arg(r.id));
        QVERIFY(!agent.contains("idle_deadline"));   // only a running sandbox has one
        QVERIFY(!agent.contains("workspace_host_path"));
        QCOMPARE(agent.value("ports").toArray(), QJsonArray{portJson(presentPort(3000, QStringLiteral("127.0.0.1"), 41000))});
        const QByteArray all = QJsonDocument(agent).toJson();
        QVERIFY2(!all.contains(m_config.dataRoot.toUtf8()) && !all.contains(r.runtimeName.toUtf8()), all.constData());

        const QJsonObject local = sandboxJson(*view, sandboxes, Audience::LocalUser);
        QCOMPARE(local.value("workspace_host_path").toString(), ws->hostPath);
    }
};

QTEST_GUILESS_MAIN(TestSandboxPresenter)
#include "tst_sandbox_presenter.moc"
