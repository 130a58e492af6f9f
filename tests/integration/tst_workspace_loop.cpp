// The host-workspace loop against a real `chat2sbx serve` and the fake sbx's clone mode: the agent
// commits and edits in a clone sandbox → show_changes lists both → `chat2sbx sandbox fetch` makes the
// branch chat2sbx/<id> in the host repository without touching its checkout → export_changes moves
// the branch → destroy saves unexported work first → a failed export makes destroy refuse unless
// force → revoking the workspace exports and destroys its sandbox and needs a new request.
#include "McpTestClient.h"
#include "TestSupport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QtTest>

using namespace chat2sbx::test;

namespace {

struct Git {
    QString repo;
    QByteArray run(const QStringList &args, int *exitCode = nullptr) const
    {
        const CliResult r = runProcess(QStringLiteral("git"), args, {}, repo);
        if (exitCode)
            *exitCode = r.exitCode;
        return r.out;
    }
    QString line(const QStringList &args) const { return QString::fromUtf8(run(args)).trimmed(); }
    // Everything of the host checkout the export must leave alone.
    QByteArray state() const
    {
        QByteArray s = run({"status", "--porcelain=v1", "--untracked-files=all"});
        s += "HEAD " + run({"rev-parse", "HEAD"});
        s += "branch " + run({"symbolic-ref", "-q", "HEAD"});
        QByteArray refs;
        for (const QByteArray &l : run({"for-each-ref", "--format=%(refname) %(objectname)"}).split('\n'))
            if (!l.startsWith("refs/heads/chat2sbx/"))
                refs += l + '\n';
        s += refs;
        s += "index " + QCryptographicHash::hash(readFile(repo + "/.git/index"), QCryptographicHash::Sha256).toHex();
        s += "\nfetch_head " + QByteArray(QFileInfo::exists(repo + "/.git/FETCH_HEAD") ? "yes" : "no");
        return s;
    }
};

bool makeRepository(const Git &git)
{
    QDir().mkpath(git.repo);
    int code = 0;
    git.run({"init", "-q", "-b", "main"}, &code);
    writeFile(git.repo + "/a.txt", "alpha\n");
    writeFile(git.repo + "/b.txt", "one\ntwo\nthree\n");
    writeFile(git.repo + "/.gitignore", "*.log\n");
    git.run({"add", "."});
    git.run({"-c", "user.name=user", "-c", "user.email=user@example.com", "commit", "-qm", "initial"}, &code);
    return code == 0;
}

QJsonObject structured(const QJsonObject &result)
{
    return result.value("structuredContent").toObject();
}

} // namespace

class TestWorkspaceLoop : public QObject {
    Q_OBJECT

    TestEnvironment *m_env = nullptr;
    ServerProcess *m_server = nullptr;
    McpTestClient *m_mcp = nullptr;
    Git m_git;
    QString m_workspaceId;

    QJsonObject bash(const QString &sandboxId, const QString &command)
    {
        const QJsonObject r = m_mcp->callToolResult("bash", QJsonObject{{"sandbox_id", sandboxId}, {"command", command},
                                                                  {"yield_time_ms", 30000}});
        const QJsonObject s = structured(r);
        if (r.value("isError").toBool() || s.value("exit_code").toInt(-1) != 0)
            qWarning("bash %s -> %s", qPrintable(command), qPrintable(McpTestClient::describe(r)));
        return s;
    }
    QString createSandbox()
    {
        const QJsonObject r = m_mcp->callToolResult("sandbox_create", QJsonObject{{"workspace_id", m_workspaceId}});
        if (r.value("isError").toBool())
            qWarning("sandbox_create: %s", qPrintable(McpTestClient::describe(r)));
        return structured(r).value("sandbox_id").toString();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "the fake sbx is not built (CHAT2SBX_FAKE_SBX unset)");
        m_env = new TestEnvironment;
        const QString root = QDir(m_env->root()).canonicalPath() + "/repos";
        m_git.repo = root + "/project";
        QVERIFY(makeRepository(m_git));
        m_env->set("CHAT2SBX_ALLOWED_HOST_ROOTS", root);
        m_server = new ServerProcess(*m_env);
        QVERIFY2(m_server->start(), qPrintable(m_server->output()));
        m_mcp = new McpTestClient(m_env->mcpUrl(), "loop-test-client");
        QVERIFY(m_mcp->open());
        for (const char *name : {"show_changes", "export_changes"})
            QVERIFY2(m_mcp->toolNames().contains(name), name);
    }

    void cleanupTestCase()
    {
        if (m_server)
            m_server->terminate();
        delete m_mcp;
        delete m_server;
        delete m_env;
    }

    void requestWithReasonShowsClientAndReason()
    {
        const QJsonObject args{{"host_path", m_git.repo}, {"mode", "clone"}, {"reason", "to fix the failing parser test"}};
        QJsonObject s = structured(m_mcp->callToolResult("workspace_request", args));
        QCOMPARE(s.value("status").toString(), QString("approval_required"));
        const QString approvalId = s.value("approval_id").toString();
        const CliResult list = runCli(*m_env, {"approval", "list"});
        QVERIFY2(list.exitCode == 0, list.err.constData());
        QVERIFY2(list.out.contains("to fix the failing parser test") && list.out.contains("loop-test-client"), list.out.constData());
        const CliResult json = runCli(*m_env, {"approval", "list", "--json"});
        const QJsonObject first = QJsonDocument::fromJson(json.out).array().first().toObject();
        QCOMPARE(first.value("reason").toString(), QString("to fix the failing parser test"));
        QCOMPARE(first.value("client").toString(), QString("loop-test-client"));
        // Too long a reason is refused with a readable error.
        const QJsonObject tooLong = m_mcp->callToolResult("workspace_request", QJsonObject{{"host_path", m_git.repo}, {"mode", "clone"},
                                                                                     {"reason", QString(501, 'x')}});
        QVERIFY2(tooLong.value("isError").toBool(), qPrintable(McpTestClient::describe(tooLong)));

        QCOMPARE(runCli(*m_env, {"approval", "approve", approvalId}).exitCode, 0);
        s = structured(m_mcp->callToolResult("workspace_request", args));
        QCOMPARE(s.value("status").toString(), QString("approved"));
        m_workspaceId = s.value("workspace_id").toString();
        QVERIFY(m_workspaceId.startsWith("ws_"));
    }

    void reviewFetchExportDestroy()
    {
        QVERIFY(!m_workspaceId.isEmpty());
        const QString id = createSandbox();
        QVERIFY(id.startsWith("sbx_"));
        const QString branch = "chat2sbx/" + id;

        // The agent: one commit, then an unstaged edit, a staged new file and an untracked one.
        QCOMPARE(bash(id, "printf 'alpha\\nbeta\\n' > a.txt && git -c user.name=agent -c user.email=agent@example.com "
                          "commit -qam 'agent: add beta'").value("exit_code").toInt(-1), 0);
        QCOMPARE(bash(id, "printf 'one\\n2\\nthree\\n' > b.txt && echo staged > s.txt && git add s.txt && echo new > c.txt "
                          "&& echo noise > build.log").value("exit_code").toInt(-1), 0);
        const QString sandboxStatus = bash(id, "git status --porcelain; git rev-parse HEAD").value("output").toString();

        // show_changes lists the commit and every kind of change, with git-apply-able headers.
        QJsonObject r = m_mcp->callToolResult("show_changes", QJsonObject{{"sandbox_id", id}});
        QVERIFY2(!r.value("isError").toBool(), qPrintable(McpTestClient::describe(r)));
        QJsonObject s = structured(r);
        QCOMPARE(s.value("commits").toArray().size(), 1);
        QCOMPARE(s.value("commits").toArray().first().toObject().value("subject").toString(), QString("agent: add beta"));
        QHash<QString, QJsonObject> files;
        for (const QJsonValue &f : s.value("files").toArray())
            files.insert(f.toObject().value("path").toString(), f.toObject());
        QCOMPARE(files.size(), 4);   // build.log is ignored
        QCOMPARE(files.value("a.txt").value("where").toArray(), QJsonArray{"committed"});
        QCOMPARE(files.value("a.txt").value("added").toInt(), 1);
        QCOMPARE(files.value("b.txt").value("where").toArray(), QJsonArray{"unstaged"});
        QCOMPARE(files.value("b.txt").value("removed").toInt(), 1);
        QCOMPARE(files.value("s.txt").value("where").toArray(), QJsonArray{"staged"});
        QCOMPARE(files.value("c.txt").value("where").toArray(), QJsonArray{"untracked"});
        QCOMPARE(files.value("c.txt").value("status").toString(), QString("added"));
        const QString diff = s.value("diff").toString();
        QVERIFY2(diff.contains("--- a/b.txt\n+++ b/b.txt") && diff.contains("+++ b/c.txt") && diff.contains("-two\n+2"), qPrintable(diff));
        // path narrows it; include_diff false leaves the diff out.
        s = structured(m_mcp->callToolResult("show_changes", QJsonObject{{"sandbox_id", id}, {"path", "b.txt"}, {"include_diff", false}}));
        QCOMPARE(s.value("files").toArray().size(), 1);
        QVERIFY(!s.contains("diff"));

        // `chat2sbx sandbox fetch` makes the branch; the host checkout is byte-identical.
        const QByteArray before = m_git.state();
        const CliResult fetch = runCli(*m_env, {"sandbox", "fetch", id, "--json"}, 120000);
        QVERIFY2(fetch.exitCode == 0, (fetch.out + fetch.err).constData());
        const QJsonObject fetched = QJsonDocument::fromJson(fetch.out).object();
        QCOMPARE(fetched.value("branch").toString(), branch);
        QCOMPARE(fetched.value("includes_uncommitted_changes").toBool(), true);
        QCOMPARE(m_git.state(), before);
        QCOMPARE(m_git.line({"log", "--format=%s", "main.." + branch}),
                 QString("chat2sbx: uncommitted changes of the sandbox (staged, unstaged and untracked files)\nagent: add beta"));
        QCOMPARE(m_git.line({"show", branch + ":b.txt"}), QString("one\n2\nthree"));
        QCOMPARE(m_git.line({"show", branch + ":c.txt"}), QString("new"));
        QCOMPARE(m_git.line({"show", branch + ":s.txt"}), QString("staged"));
        int code = 0;
        m_git.run({"cat-file", "-e", branch + ":build.log"}, &code);
        QVERIFY(code != 0);
        // ...and so is the sandbox's own index and working tree.
        QCOMPARE(bash(id, "git status --porcelain; git rev-parse HEAD").value("output").toString(), sandboxStatus);

        // export_changes again after more work moves the branch.
        const QString firstTip = m_git.line({"rev-parse", branch});
        bash(id, "git add -A && git -c user.name=agent -c user.email=agent@example.com commit -qm 'agent: the rest'");
        r = m_mcp->callToolResult("export_changes", QJsonObject{{"sandbox_id", id}});
        QVERIFY2(!r.value("isError").toBool(), qPrintable(McpTestClient::describe(r)));
        s = structured(r);
        QCOMPARE(s.value("branch").toString(), branch);
        QCOMPARE(s.value("includes_uncommitted_changes").toBool(), false);
        QVERIFY2(s.value("command").toString().contains(branch), qPrintable(s.value("command").toString()));
        QCOMPARE(m_git.line({"rev-parse", branch}), s.value("commit").toString());
        QVERIFY(m_git.line({"rev-parse", branch}) != firstTip);
        QCOMPARE(m_git.line({"log", "-1", "--format=%s", branch}), QString("agent: the rest"));
        QCOMPARE(m_git.state(), before);

        // Destroy with unexported work: the branch holds it and the result says so.
        bash(id, "echo later > d.txt");
        r = m_mcp->callToolResult("sandbox_destroy", QJsonObject{{"sandbox_id", id}});
        QVERIFY2(!r.value("isError").toBool(), qPrintable(McpTestClient::describe(r)));
        s = structured(r);
        QCOMPARE(s.value("state").toString(), QString("destroyed"));
        QCOMPARE(s.value("work_saved_on_branch").toString(), branch);
        QVERIFY2(s.value("work").toString().contains(branch), qPrintable(s.value("work").toString()));
        QCOMPARE(m_git.line({"show", branch + ":d.txt"}), QString("later"));
        QCOMPARE(m_git.state(), before);
        QVERIFY2(m_server->output().contains(branch), "the log names the branch");
    }

    void exportFailureBlocksDestroyUnlessForced()
    {
        const QString id = createSandbox();
        QVERIFY(id.startsWith("sbx_"));
        bash(id, "echo precious > e.txt");
        // Another git process "holds" the branch's lock: the fetch cannot move it.
        QDir().mkpath(m_git.repo + "/.git/refs/heads/chat2sbx");
        const QString lock = m_git.repo + "/.git/refs/heads/chat2sbx/" + id + ".lock";
        writeFile(lock, "");
        QJsonObject r = m_mcp->callToolResult("sandbox_destroy", QJsonObject{{"sandbox_id", id}});
        QVERIFY2(r.value("isError").toBool(), qPrintable(McpTestClient::describe(r)));
        const QString text = McpTestClient::describe(r);
        QVERIFY2(text.contains("was not destroyed") && text.contains("force"), qPrintable(text));
        QCOMPARE(structured(m_mcp->callToolResult("sandbox_get", QJsonObject{{"sandbox_id", id}})).value("state").toString(), QString("running"));
        QCOMPARE(bash(id, "cat e.txt").value("output").toString().trimmed(), QString("precious"));

        r = m_mcp->callToolResult("sandbox_destroy", QJsonObject{{"sandbox_id", id}, {"force", true}});
        QVERIFY2(!r.value("isError").toBool(), qPrintable(McpTestClient::describe(r)));
        QCOMPARE(structured(r).value("state").toString(), QString("destroyed"));
        QFile::remove(lock);
    }

    // The approved repository swapped for another one (a link to it): the export writes nothing
    // there, says why, and works again once the folder is back.
    void exportToASwappedFolderIsRefused()
    {
        const QString id = createSandbox();
        QVERIFY(id.startsWith("sbx_"));
        bash(id, "echo kept > s.txt");
        Git decoy;
        decoy.repo = QDir(m_env->root()).canonicalPath() + "/decoy";
        QVERIFY(makeRepository(decoy));
        QVERIFY(QDir().rename(m_git.repo, m_git.repo + ".orig"));
        QVERIFY(QFile::link(decoy.repo, m_git.repo));
        QJsonObject r = m_mcp->callToolResult("export_changes", QJsonObject{{"sandbox_id", id}});
        const QString text = McpTestClient::describe(r);
        QVERIFY2(r.value("isError").toBool() && text.contains("no longer the approved one") && text.contains("nothing was written"),
                 qPrintable(text));
        QCOMPARE(decoy.line({"branch", "--list", "chat2sbx/*"}), QString());
        QVERIFY(QFile::remove(m_git.repo));
        QVERIFY(QDir().rename(m_git.repo + ".orig", m_git.repo));
        r = m_mcp->callToolResult("export_changes", QJsonObject{{"sandbox_id", id}});
        QVERIFY2(!r.value("isError").toBool(), qPrintable(McpTestClient::describe(r)));
        QCOMPARE(m_git.line({"show", "chat2sbx/" + id + ":s.txt"}), QString("kept"));
        r = m_mcp->callToolResult("sandbox_destroy", QJsonObject{{"sandbox_id", id}});
        QVERIFY2(!r.value("isError").toBool(), qPrintable(McpTestClient::describe(r)));
    }

    void managedAndDirectWorkspaces()
    {
        const QJsonObject r = m_mcp->callToolResult("sandbox_create", QJsonObject{});
        const QString id = structured(r).value("sandbox_id").toString();
        QVERIFY2(id.startsWith("sbx_"), qPrintable(McpTestClient::describe(r)));
        QJsonObject e = m_mcp->callToolResult("export_changes", QJsonObject{{"sandbox_id", id}});
        QVERIFY(e.value("isError").toBool());
        QVERIFY2(McpTestClient::describe(e).contains("no host repository"), qPrintable(McpTestClient::describe(e)));
        e = m_mcp->callToolResult("show_changes", QJsonObject{{"sandbox_id", id}});
        QVERIFY(e.value("isError").toBool());
        QVERIFY2(McpTestClient::describe(e).contains("not a git repository"), qPrintable(McpTestClient::describe(e)));
        // After git init the managed workspace is reviewable.
        bash(id, "git init -q && echo hi > h.txt");
        const QJsonObject s = structured(m_mcp->callToolResult("show_changes", QJsonObject{{"sandbox_id", id}}));
        QCOMPARE(s.value("files").toArray().size(), 1);
        QCOMPARE(s.value("files").toArray().first().toObject().value("path").toString(), QString("h.txt"));
        QVERIFY(!m_mcp->callToolResult("sandbox_destroy", QJsonObject{{"sandbox_id", id}}).value("isError").toBool());
    }

    void revokeExportsDestroysAndNeedsANewRequest()
    {
        const QString id = createSandbox();
        QVERIFY(id.startsWith("sbx_"));
        bash(id, "echo unsaved > r.txt");
        const CliResult remove = runCli(*m_env, {"workspace", "remove", m_workspaceId}, 120000);
        QVERIFY2(remove.exitCode == 0, (remove.out + remove.err).constData());
        QVERIFY2(remove.out.contains(("chat2sbx/" + id).toUtf8()), remove.out.constData());
        QCOMPARE(m_git.line({"show", "chat2sbx/" + id + ":r.txt"}), QString("unsaved"));
        QCOMPARE(structured(m_mcp->callToolResult("sandbox_get", QJsonObject{{"sandbox_id", id}})).value("state").toString(),
                 QString("destroyed"));
        const QJsonObject r = m_mcp->callToolResult("sandbox_create", QJsonObject{{"workspace_id", m_workspaceId}});
        QVERIFY(r.value("isError").toBool());
        const QString text = McpTestClient::describe(r);
        QVERIFY2(text.contains("revoked") && text.contains("workspace_request"), qPrintable(text));
        const QJsonObject again = structured(m_mcp->callToolResult("workspace_request", QJsonObject{{"host_path", m_git.repo}, {"mode", "clone"}}));
        QCOMPARE(again.value("status").toString(), QString("approval_required"));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceLoop)
#include "tst_workspace_loop.moc"
