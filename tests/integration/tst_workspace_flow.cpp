// The approval flow through a running Controller: workspace_request (as the MCP endpoint calls it)
// only creates a pending approval; `chat2sbx approval approve` in another process decides it; the
// running server notices without restart (approvalsChanged) and workspace_request then answers with
// the workspace id, which workspace_list shows.
#include "TestSupport.h"
#include "ToolCallSupport.h"

#include "mcp/ToolRegistry.h"
#include "runtime/Controller.h"
#include "workspace/ApprovalService.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QJsonArray>
#include <QSignalSpy>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

ToolResult callTool(Controller &c, const QString &name, const QJsonObject &args)
{
    ToolResult result;
    bool done = false;
    const ToolRegistry::Entry *entry = c.tools().find(name);
    if (!entry)
        return ToolResult::error(QStringLiteral("no tool ") + name);
    if (const auto invalid = schemaViolation(*entry, args))
        return *invalid;
    ToolCall call;
    call.toolName = name;
    call.arguments = args;
    call.responder = ToolResponder([&](const ToolResult &r) { result = r; done = true; });
    entry->handler(call);
    waitFor([&] { return done; }, 10000);
    return result;
}

} // namespace

class TestWorkspaceFlow : public QObject {
    Q_OBJECT

private slots:
    void requestApproveByCliThenUse_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("clone") << "clone";
        QTest::newRow("direct") << "direct";
    }
    void requestApproveByCliThenUse()
    {
        QFETCH(QString, mode);
        TestEnvironment env;
        const QString root = QDir(env.root()).canonicalPath() + "/repos";
        QVERIFY(QDir().mkpath(root + "/project/.git"));
        env.set("CHAT2SBX_ALLOWED_HOST_ROOTS", root);

        Controller controller(env.config());
        QSignalSpy started(&controller, &Controller::started);
        QSignalSpy failed(&controller, &Controller::failed);
        controller.start();
        QVERIFY(waitFor([&] { return started.count() > 0 || failed.count() > 0; }, 20000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));

        QSignalSpy requested(&controller.approvals(), &ApprovalService::approvalRequested);
        QSignalSpy changed(&controller.approvals(), &ApprovalService::approvalsChanged);
        const QJsonObject args{{"host_path", root + "/project"}, {"mode", mode}};
        const ToolResult pending = callTool(controller, "workspace_request", args);
        QVERIFY2(!pending.isError, qPrintable(pending.message));
        QCOMPARE(pending.structured.value("status").toString(), QString("approval_required"));
        const QString approvalId = pending.structured.value("approval_id").toString();
        QCOMPARE(requested.count(), 1);
        QCOMPARE(callTool(controller, "workspace_request", args).structured.value("approval_id").toString(), approvalId);
        QCOMPARE(callTool(controller, "workspace_list", {}).structured.value("workspaces").toArray().size(), 0);

        changed.clear();
        const CliResult approve = runCli(env, {"approval", "approve", approvalId});
        QCOMPARE(approve.exitCode, 0);
        // The running server made the CLI's decision itself (on its control channel).
        QVERIFY(waitFor([&] { return changed.count() > 0; }, 10000));
        QCOMPARE(controller.approvals().find(approvalId)->state, ApprovalState::Approved);

        const ToolResult approved = callTool(controller, "workspace_request", args);
        QCOMPARE(approved.structured.value("status").toString(), QString("approved"));
        const QString workspaceId = approved.structured.value("workspace_id").toString();
        QVERIFY(workspaceId.startsWith("ws_"));
        const QJsonArray list = callTool(controller, "workspace_list", {}).structured.value("workspaces").toArray();
        QCOMPARE(list.size(), 1);
        QCOMPARE(list.at(0).toObject().value("workspace_id").toString(), workspaceId);
        QCOMPARE(list.at(0).toObject().value("mode").toString(), mode);
        QCOMPARE(list.at(0).toObject().value("host_path").toString(), root + "/project");

        const std::optional<Workspace> ws = controller.workspaces().find(workspaceId);
        QVERIFY(ws);
        QString error;
        QVERIFY2(controller.workspaces().checkBeforeUse(*ws, error), qPrintable(error));

        QSignalSpy stopped(&controller, &Controller::stopped);
        controller.stop();
        QVERIFY(waitFor([&] { return stopped.count() > 0; }, 10000));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceFlow)
#include "tst_workspace_flow.moc"
