// Clone mode is git, not a copy (sbx-contract.md behaviour 4), end to end through a real
// `chat2sbx serve` and MCP: a clone sandbox of a repository has the committed files at the checked-out
// commit, and none of the host's untracked, ignored or uncommitted changes.
#include "McpTestClient.h"
#include "TestSupport.h"

#include <QDir>
#include <QProcess>
#include <QtTest>

using namespace chat2sbx::test;

namespace {

int git(const QString &repo, const QStringList &args)
{
    return runProcess(QStringLiteral("git"), args, {}, repo).exitCode;
}

QJsonObject structured(const QJsonObject &result)
{
    return result.value(QStringLiteral("structuredContent")).toObject();
}

} // namespace

class TestCloneUntracked : public QObject {
    Q_OBJECT
private slots:
    void onlyCommittedWorkIsCloned()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "the fake sbx is not built (CHAT2SBX_FAKE_SBX unset)");
        TestEnvironment env;
        env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
        const QString root = QDir(env.root()).canonicalPath() + QStringLiteral("/repos");
        const QString repo = root + QStringLiteral("/project");
        QVERIFY(QDir().mkpath(repo));
        QCOMPARE(git(repo, {"init", "-q", "-b", "main"}), 0);
        writeFile(repo + "/tracked.txt", "committed\n");
        writeFile(repo + "/.gitignore", "*.log\n");
        QCOMPARE(git(repo, {"add", "."}), 0);
        QCOMPARE(git(repo, {"-c", "user.name=user", "-c", "user.email=user@example.com", "commit", "-qm", "initial"}), 0);
        writeFile(repo + "/tracked.txt", "edited, not committed\n");
        writeFile(repo + "/untracked.txt", "only on the host\n");
        writeFile(repo + "/build.log", "ignored\n");
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), root);

        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl());
        QVERIFY(mcp.open());
        const QJsonObject request{{"host_path", repo}, {"mode", "clone"}};
        QJsonObject s = structured(mcp.callToolResult(QStringLiteral("workspace_request"), request));
        QCOMPARE(s.value("status").toString(), QStringLiteral("approval_required"));
        QCOMPARE(runCli(env, {"approval", "approve", s.value("approval_id").toString()}).exitCode, 0);
        s = structured(mcp.callToolResult(QStringLiteral("workspace_request"), request));
        QCOMPARE(s.value("status").toString(), QStringLiteral("approved"));
        const QJsonObject created = mcp.callToolResult(QStringLiteral("sandbox_create"), {{"workspace_id", s.value("workspace_id")}});
        QVERIFY2(!created.value("isError").toBool(), qPrintable(McpTestClient::describe(created)));
        const QString id = structured(created).value("sandbox_id").toString();

        const QJsonObject listing = structured(mcp.callToolResult(QStringLiteral("bash"),
            {{"sandbox_id", id}, {"command", "ls -A | grep -v '^.git$'; echo ---; cat tracked.txt; git status --porcelain"}}));
        QCOMPARE(listing.value("exit_code").toInt(-1), 0);
        QCOMPARE(listing.value("output").toString(), QStringLiteral(".gitignore\ntracked.txt\n---\ncommitted\n"));
        // The host checkout is the read-only source: untouched.
        QCOMPARE(readFile(repo + "/untracked.txt"), QByteArray("only on the host\n"));
        QCOMPARE(readFile(repo + "/tracked.txt"), QByteArray("edited, not committed\n"));
        QCOMPARE(server.terminate(), 0);
    }
};

QTEST_MAIN(TestCloneUntracked)
#include "tst_clone_untracked.moc"
