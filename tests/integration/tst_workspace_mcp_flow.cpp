// The whole host-workspace flow as ChatGPT and the user live it, against a real `chat2sbx serve`:
// MCP workspace_request → approval_required → `chat2sbx approval approve <id>` (another process)
// → workspace_request answers approved with the workspace_id → sandbox_create on it → the fake sbx
// received `create ... --clone shell <path>` (clone) or `create ... shell <path>` without --clone
// (direct: the path is mounted read-write at the same absolute path).
#include "McpTestClient.h"
#include "TestSupport.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

using namespace chat2sbx::test;

class TestWorkspaceMcpFlow : public QObject {
    Q_OBJECT

private slots:
    void requestApproveCreate_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("clone") << "clone";
        QTest::newRow("direct") << "direct";
    }
    void requestApproveCreate()
    {
        QFETCH(QString, mode);
        QVERIFY2(!fakeSbxPath().isEmpty(), "the fake sbx is not built (CHAT2SBX_FAKE_SBX unset)");
        TestEnvironment env;
        const QString root = QDir(env.root()).canonicalPath() + "/repos";
        const QString project = root + "/project";
        QVERIFY(makeGitRepository(project));
        env.set("CHAT2SBX_ALLOWED_HOST_ROOTS", root);
        env.set("FAKE_SBX_TEMPLATES", QStringLiteral("chat2sbx-shell:" CHAT2SBX_VERSION));   // as if setup had run

        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "flow-test");
        QVERIFY(mcp.open());
        const QStringList tools = mcp.toolNames();
        for (const char *name : {"workspace_request", "workspace_list", "sandbox_create"})
            QVERIFY2(tools.contains(name), qPrintable(tools.join(',')));

        // 1. The request only creates a pending approval.
        const QJsonObject args{{"host_path", project}, {"mode", mode}};
        QJsonObject r = mcp.callToolResult("workspace_request", args);
        QCOMPARE(r.value("isError"), QJsonValue(false));
        QJsonObject s = r.value("structuredContent").toObject();
        QCOMPARE(s.value("status").toString(), QString("approval_required"));
        const QString approvalId = s.value("approval_id").toString();
        QVERIFY(approvalId.startsWith("apr_"));
        QCOMPARE(s.value("canonical_path").toString(), project);
        QCOMPARE(mcp.callToolResult("workspace_request", args).value("structuredContent").toObject().value("approval_id").toString(), approvalId);

        // 2. The user approves from the command line; the running server sees it.
        const CliResult approve = runCli(env, {"approval", "approve", approvalId});
        QVERIFY2(approve.exitCode == 0, approve.err.constData());
        r = mcp.callToolResult("workspace_request", args);
        s = r.value("structuredContent").toObject();
        QCOMPARE(s.value("status").toString(), QString("approved"));
        const QString workspaceId = s.value("workspace_id").toString();
        QVERIFY(workspaceId.startsWith("ws_"));

        // 3. A sandbox on the new workspace.
        r = mcp.callToolResult("sandbox_create", QJsonObject{{"workspace_id", workspaceId}});
        QVERIFY2(r.value("isError") == QJsonValue(false), QJsonDocument(r).toJson().constData());
        s = r.value("structuredContent").toObject();
        QCOMPARE(s.value("workspace_id").toString(), workspaceId);
        const QString sandboxId = s.value("sandbox_id").toString();
        QVERIFY(sandboxId.startsWith("sbx_"));

        // 4. What the fake sbx was asked to do.
        // calls.log: one JSON array of arguments per invocation.
        QList<QStringList> creates;
        for (const QByteArray &line : readFile(env.sbxState() + "/calls.log").split('\n')) {
            QStringList argv;
            for (const QJsonValue &v : QJsonDocument::fromJson(line).array())
                argv << v.toString();
            if (!argv.isEmpty() && argv.first() == "create")
                creates << argv;
        }
        QCOMPARE(creates.size(), 1);
        const QStringList create = creates.first();
        QCOMPARE(create.mid(create.size() - 2), (QStringList{"shell", project}));   // mounted / cloned at the same path
        QCOMPARE(create.contains("--clone"), mode == "clone");

        // 5. workspace_list shows the workspace with its running sandbox.
        const QJsonArray list = mcp.callToolResult("workspace_list", {}).value("structuredContent").toObject().value("workspaces").toArray();
        QCOMPARE(list.size(), 1);
        QCOMPARE(list.at(0).toObject().value("workspace_id").toString(), workspaceId);
        QCOMPARE(list.at(0).toObject().value("sandbox_id").toString(), sandboxId);
        QCOMPARE(list.at(0).toObject().value("mode").toString(), mode);

        QCOMPARE(server.terminate(), 0);
    }

    void aDirectorySwappedAfterApprovalIsRefusedAtSandboxCreate()
    {
        TestEnvironment env;
        const QString root = QDir(env.root()).canonicalPath() + "/repos";
        const QString dir = root + "/site";
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(QDir().mkpath(env.root() + "/elsewhere"));
        env.set("CHAT2SBX_ALLOWED_HOST_ROOTS", root);
        env.set("FAKE_SBX_TEMPLATES", QStringLiteral("chat2sbx-shell:" CHAT2SBX_VERSION));
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "flow-test");
        QVERIFY(mcp.open());
        const QJsonObject args{{"host_path", dir}, {"mode", "direct"}};
        const QString approvalId = mcp.callToolResult("workspace_request", args).value("structuredContent").toObject().value("approval_id").toString();
        QCOMPARE(runCli(env, {"approval", "approve", approvalId}).exitCode, 0);
        const QString workspaceId = mcp.callToolResult("workspace_request", args).value("structuredContent").toObject().value("workspace_id").toString();
        QVERIFY(workspaceId.startsWith("ws_"));

        // The approved directory is replaced by a symlink to somewhere else.
        QVERIFY(QDir().rename(dir, root + "/site-old"));
        QVERIFY(QFile::link(env.root() + "/elsewhere", dir));
        const QJsonObject r = mcp.callToolResult("sandbox_create", QJsonObject{{"workspace_id", workspaceId}});
        QCOMPARE(r.value("isError"), QJsonValue(true));
        const QString text = r.value("content").toArray().at(0).toObject().value("text").toString();
        QVERIFY2(text.contains("workspace " + workspaceId + " cannot be used: ") && text.contains("leads outside the allowed roots"),
                 qPrintable(text));
        for (const QByteArray &line : readFile(env.sbxState() + "/calls.log").split('\n'))
            QVERIFY2(!line.startsWith("[\"create\""), line.constData());
        QCOMPARE(server.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceMcpFlow)
#include "tst_workspace_mcp_flow.moc"
