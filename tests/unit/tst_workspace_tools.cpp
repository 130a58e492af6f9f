// workspace_list and workspace_request as the MCP endpoint calls them: definitions (strict input
// schemas, output schemas, explicit annotations), approval_required with a stable id, approved
// with the workspace id, rejected, refusals as isError with the exact reason, and no host
// data-directory path in any result.
#include "mcp/ToolRegistry.h"
#include "ManualClock.h"
#include "ToolCallSupport.h"
#include "state/Database.h"
#include "tools/WorkspaceTools.h"
#include "workspace/ApprovalService.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace chat2sbx;

class TestWorkspaceTools : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_tmp;
    Config m_config;
    ManualClock m_clock{1'800'000'000'000};
    QString m_root;
    std::unique_ptr<Database> m_db;
    std::unique_ptr<WorkspaceService> m_ws;
    std::unique_ptr<ApprovalService> m_approvals;
    std::unique_ptr<ToolRegistry> m_tools;

    ToolResult call(const QString &tool, const QJsonObject &args)
    {
        const ToolRegistry::Entry *entry = m_tools->find(tool);
        if (!entry)
            qFatal("no tool %s", qPrintable(tool));
        if (const auto invalid = test::schemaViolation(*entry, args))
            return *invalid;
        ToolResult result;
        bool done = false;
        ToolCall c;
        c.toolName = tool;
        c.arguments = args;
        c.responder = ToolResponder([&](const ToolResult &r) { result = r; done = true; });
        entry->handler(c);
        if (!done)
            qFatal("%s did not answer synchronously", qPrintable(tool));
        return result;
    }
    static QString text(const ToolResult &r)
    {
        return QString::fromUtf8(QJsonDocument(r.structured).toJson(QJsonDocument::Compact)) + r.message;
    }

private slots:
    void init()
    {
        m_tmp = std::make_unique<QTemporaryDir>();
        const QString base = QDir(m_tmp->path()).canonicalPath();
        m_config = Config();
        m_config.dataRoot = base + "/home/.chat2sbx";
        m_config.stateDir = m_config.dataRoot + "/state";
        m_config.workspaceRoot = m_config.dataRoot + "/workspaces";
        m_config.databasePath = m_config.stateDir + "/chat2sbx.sqlite";
        m_root = base + "/home";   // the data root lies below the allowed root
        m_config.allowedHostRoots = {m_root};
        QVERIFY(QDir().mkpath(m_root + "/repo/.git"));
        QVERIFY(QDir().mkpath(m_root + "/dir"));
        m_db = std::make_unique<Database>();
        QString error;
        QVERIFY(m_db->open(m_config.databasePath, error));
        m_ws = std::make_unique<WorkspaceService>(m_config, *m_db, m_clock);
        m_approvals = std::make_unique<ApprovalService>(*m_ws, *m_db, m_clock);
        m_tools = std::make_unique<ToolRegistry>();
        registerWorkspaceTools(*m_tools, *m_ws, *m_approvals);
    }
    void cleanup()
    {
        m_tools.reset();
        m_approvals.reset();
        m_ws.reset();
        m_db.reset();
    }

    void definitionsAreStrictAndAnnotated()
    {
        const ToolRegistry::Entry *list = m_tools->find("workspace_list");
        const ToolRegistry::Entry *request = m_tools->find("workspace_request");
        QVERIFY(list && request);
        for (const ToolRegistry::Entry *e : {list, request}) {
            QCOMPARE(e->definition.inputSchema.value("type").toString(), QString("object"));
            QCOMPARE(e->definition.inputSchema.value("additionalProperties"), QJsonValue(false));
            QCOMPARE(e->definition.outputSchema.value("additionalProperties"), QJsonValue(false));
            QVERIFY(!e->definition.outputSchema.isEmpty());
            QVERIFY(!e->definition.description.isEmpty());
        }
        QVERIFY(list->definition.annotations.readOnly);
        QVERIFY(!list->definition.annotations.destructive);
        QVERIFY(!list->definition.annotations.openWorld);
        QVERIFY(!request->definition.annotations.readOnly);
        QVERIFY(!request->definition.annotations.destructive);
        QVERIFY(request->definition.annotations.idempotent);
        const QJsonObject props = request->definition.inputSchema.value("properties").toObject();
        QCOMPARE(props.value("mode").toObject().value("enum").toArray(), (QJsonArray{"clone", "direct"}));
        QCOMPARE(request->definition.inputSchema.value("required").toArray(), QJsonArray{"host_path"});
        QCOMPARE(props.value("host_path").toObject().value("maxLength").toInt(), 4096);
    }

    void requestNeedsApprovalAndIsStable()
    {
        const ToolResult first = call("workspace_request", {{"host_path", m_root + "/repo"}});
        QVERIFY2(!first.isError, qPrintable(first.message));
        QCOMPARE(first.structured.value("status").toString(), QString("approval_required"));
        QCOMPARE(first.structured.value("mode").toString(), QString("clone"));   // the default
        QCOMPARE(first.structured.value("canonical_path").toString(), m_root + "/repo");
        const QString id = first.structured.value("approval_id").toString();
        QVERIFY(id.startsWith("apr_"));
        QCOMPARE(first.structured.value("how_to_approve").toString(),
                 "ask the user to approve it in the chat2sbx tray or with `chat2sbx approval approve " + id + "`");
        QVERIFY(!first.structured.contains("workspace_id"));
        QVERIFY(m_ws->list().isEmpty());   // never grants access by itself

        const ToolResult again = call("workspace_request", {{"host_path", m_root + "/repo/"}, {"mode", "clone"}});
        QCOMPARE(again.structured.value("approval_id").toString(), id);
        QCOMPARE(m_approvals->pending().size(), 1);

        QString error;
        const auto ws = m_approvals->approve(id, "tray", error);
        QVERIFY2(ws, qPrintable(error));
        const ToolResult approved = call("workspace_request", {{"host_path", m_root + "/repo"}});
        QCOMPARE(approved.structured.value("status").toString(), QString("approved"));
        QCOMPARE(approved.structured.value("workspace_id").toString(), ws->id);
    }

    void rejectedIsReported()
    {
        const QString id = call("workspace_request", {{"host_path", m_root + "/dir"}, {"mode", "direct"}}).structured.value("approval_id").toString();
        QString error;
        QVERIFY(m_approvals->reject(id, "cli", error));
        const ToolResult r = call("workspace_request", {{"host_path", m_root + "/dir"}, {"mode", "direct"}});
        QVERIFY(!r.isError);
        QCOMPARE(r.structured.value("status").toString(), QString("rejected"));
        QCOMPARE(r.structured.value("approval_id").toString(), id);
    }

    void refusalsAreErrorsWithTheReason_data()
    {
        QTest::addColumn<QJsonObject>("args");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not a repo") << QJsonObject{{"host_path", "/ROOT/dir"}} << "clone mode needs a git repository";
        QTest::newRow("root") << QJsonObject{{"host_path", "/ROOT"}, {"mode", "direct"}} << "is an allowed root itself";
        QTest::newRow("outside") << QJsonObject{{"host_path", "/etc"}, {"mode", "direct"}} << "is not below an allowed root";
        QTest::newRow("dotdot") << QJsonObject{{"host_path", "/ROOT/dir/../repo"}} << "contains a '..' component";
        QTest::newRow("credential") << QJsonObject{{"host_path", "/ROOT/cred/.ssh"}, {"mode", "direct"}} << "credential folder .ssh";
        QTest::newRow("data dir") << QJsonObject{{"host_path", "/ROOT/.chat2sbx/workspaces"}, {"mode", "direct"}} << "inside chat2sbx's own data directory";
        QTest::newRow("data dir echoed") << QJsonObject{{"host_path", "/ROOT/.chat2sbx/state/../x"}, {"mode", "direct"}} << "<chat2sbx data directory>";
        QTest::newRow("bad mode") << QJsonObject{{"host_path", "/ROOT/repo"}, {"mode", "managed"}} << R"(invalid argument "mode": must be one of "clone", "direct", got "managed")";
        QTest::newRow("not string") << QJsonObject{{"host_path", 5}} << R"(invalid argument "host_path": must be a string, got an integer)";
    }
    void refusalsAreErrorsWithTheReason()
    {
        QFETCH(QJsonObject, args);
        QFETCH(QString, reason);
        if (args.value("host_path").isString())
            args.insert("host_path", args.value("host_path").toString().replace("/ROOT", m_root));
        QVERIFY(QDir().mkpath(m_root + "/cred/.ssh"));
        QVERIFY(QDir().mkpath(m_config.workspaceRoot));
        const ToolResult r = call("workspace_request", args);
        QVERIFY(r.isError);
        QVERIFY2(r.message.contains(reason), qPrintable(r.message));
        QVERIFY2(!r.message.contains(m_config.dataRoot), qPrintable(r.message));
        QVERIFY(m_approvals->list().isEmpty());
    }

    void listShowsModesSandboxesAndDeadlinesButNoDataPaths()
    {
        QString error;
        const auto managed = m_ws->createManaged(error);
        const auto direct = m_ws->registerHost(m_root + "/dir", WorkspaceMode::Direct, error);
        QVERIFY2(managed && direct, qPrintable(error));
        QSqlQuery q(m_db->handle());
        QVERIFY(q.exec(QString("INSERT INTO sandboxes (id, workspace_id, runtime_name, state, created_at, updated_at, last_activity_at)"
                               " VALUES ('sbx_1', '%1', 'chat2sbx-secret-runtime', 'running', 1, 1, 1)").arg(direct->id)));
        const ToolResult r = call("workspace_list", {});
        QVERIFY(!r.isError);
        const QJsonArray items = r.structured.value("workspaces").toArray();
        QCOMPARE(items.size(), 2);
        const int managedIndex = items.at(0).toObject().value("mode").toString() == "managed" ? 0 : 1;
        const QJsonObject m = items.at(managedIndex).toObject();
        QCOMPARE(m.value("workspace_id").toString(), managed->id);
        QCOMPARE(m.value("mode").toString(), QString("managed"));
        QCOMPARE(m.value("path_in_sandbox").toString(), QString("~/workspace"));
        QVERIFY(!m.contains("host_path"));
        QCOMPARE(m.value("sandbox_id"), QJsonValue());
        QCOMPARE(m.value("retention_deadline").toString(), isoTime(m_clock.nowMs() + 30LL * 24 * 3600 * 1000));
        const QJsonObject d = items.at(1 - managedIndex).toObject();
        QCOMPARE(d.value("mode").toString(), QString("direct"));
        QCOMPARE(d.value("host_path").toString(), m_root + "/dir");
        QCOMPARE(d.value("display_name").toString(), QString("dir"));
        QCOMPARE(d.value("sandbox_id").toString(), QString("sbx_1"));
        QVERIFY(!d.contains("retention_deadline"));
        const QString all = text(r);
        QVERIFY2(!all.contains(m_config.dataRoot), qPrintable(all));
        QVERIFY(!all.contains("chat2sbx-secret-runtime"));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceTools)
#include "tst_workspace_tools.moc"
