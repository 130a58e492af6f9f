// Checkpoints of a clone sandbox (issue 45) through a real `chat2sbx serve` and MCP, against the fake
// sbx (whose template keeps HOME and whose `create --clone` makes a fresh clone of the host
// repository): the clone's commits, branches, HEAD, staged, unstaged and untracked files survive a
// checkpoint, a restore (made on a fresh clone) and two forks; each fork's work comes home on its own
// branch chat2sbx/<fork id>; the host repository is only read; a checkpoint whose base commit the
// host no longer has is refused before anything changes.
#include "McpTestClient.h"
#include "TestSupport.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx::test;

namespace {

QByteArray git(const QString &repo, const QStringList &args)
{
    const CliResult r = runProcess(QStringLiteral("git"), args, {}, repo);
    return r.exitCode == 0 ? r.out : QByteArray("git failed: ") + r.err;
}

QJsonObject structured(const QJsonObject &result)
{
    return result.value(QStringLiteral("structuredContent")).toObject();
}

const QString kIdentity = QStringLiteral("export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@example.com "
                                         "GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@example.com; ");

// What a clone looks like, in one string a test can compare: branches, HEAD, status, files, HOME.
const QString kDescribe = QStringLiteral(
    "git for-each-ref --format='%(refname:short) %(subject)' refs/heads/; echo HEAD $(git symbolic-ref -q --short HEAD);"
    " git status --porcelain; echo ---; cat a.txt b.txt notes.txt 2>&1; echo ---; git diff --cached --stat | tail -1;"
    " cat \"$HOME/.installed\" 2>&1");

} // namespace

class TestCheckpointClone : public QObject {
    Q_OBJECT

    std::unique_ptr<TestEnvironment> env;
    std::unique_ptr<ServerProcess> server;
    std::unique_ptr<McpTestClient> mcp;
    QString repo, id;

    QString sh(const QString &sandboxId, const QString &command)
    {
        const QJsonObject r = mcp->callToolResult(QStringLiteral("bash"), {{"sandbox_id", sandboxId}, {"command", kIdentity + command}});
        const QJsonObject s = structured(r);
        if (r.value("isError").toBool() || s.value("exit_code").toInt(-1) != 0)
            return QStringLiteral("FAILED: ") + McpTestClient::describe(r);
        return s.value("output").toString();
    }
    QJsonObject call(const QString &tool, const QJsonObject &args)
    {
        return mcp->callToolResult(tool, args, 120000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "the fake sbx is not built (CHAT2SBX_FAKE_SBX unset)");
        env = std::make_unique<TestEnvironment>();
        env->set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
        const QString root = QDir(env->root()).canonicalPath() + QStringLiteral("/repos");
        repo = root + QStringLiteral("/project");
        QVERIFY(QDir().mkpath(repo));
        git(repo, {"init", "-q", "-b", "main"});
        writeFile(repo + "/a.txt", "a1\n");
        writeFile(repo + "/b.txt", "b1\n");
        writeFile(repo + "/.gitignore", "*.log\n");
        git(repo, {"add", "."});
        git(repo, {"-c", "user.name=user", "-c", "user.email=user@example.com", "commit", "-qm", "initial"});
        env->set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), root);

        server = std::make_unique<ServerProcess>(*env);
        QVERIFY2(server->start(), qPrintable(server->output()));
        mcp = std::make_unique<McpTestClient>(env->mcpUrl());
        QVERIFY(mcp->open());
        const QJsonObject request{{"host_path", repo}, {"mode", "clone"}};
        QJsonObject s = structured(mcp->callToolResult(QStringLiteral("workspace_request"), request));
        QCOMPARE(runCli(*env, {"approval", "approve", s.value("approval_id").toString()}).exitCode, 0);
        s = structured(mcp->callToolResult(QStringLiteral("workspace_request"), request));
        QCOMPARE(s.value("status").toString(), QStringLiteral("approved"));
        const QJsonObject created = call(QStringLiteral("sandbox_create"), {{"workspace_id", s.value("workspace_id")}});
        QVERIFY2(!created.value("isError").toBool(), qPrintable(McpTestClient::describe(created)));
        id = structured(created).value("sandbox_id").toString();
    }

    void cleanupTestCase()
    {
        if (server)
            QCOMPARE(server->terminate(), 0);
    }

    void commitsAndUncommittedChangesSurviveCheckpointRestoreAndFork()
    {
        // The agent's work: a commit on main, a branch with its own commit, a staged change, an
        // unstaged one, an untracked file, an ignored one, and a "package" in HOME.
        QVERIFY(!sh(id, "echo a2 > a.txt && git commit -qam 'agent: a2' && git checkout -qb topic && echo t > t.txt && git add t.txt"
                        " && git commit -qm 'agent: topic' && git checkout -q main && echo staged >> a.txt && git add a.txt"
                        " && echo unstaged >> b.txt && echo untracked > notes.txt && echo noise > build.log"
                        " && echo 'left-pad 1.3' > \"$HOME/.installed\"")
                     .startsWith("FAILED"));
        const QString before = sh(id, kDescribe);
        QVERIFY2(before.contains("main agent: a2") && before.contains("topic agent: topic") && before.contains("M  a.txt")
                     && before.contains(" M b.txt") && before.contains("?? notes.txt") && before.contains("left-pad 1.3"),
                 qPrintable(before));

        const QJsonObject saved = call(QStringLiteral("sandbox_checkpoint"), {{"sandbox_id", id}, {"label", "before the rewrite"}});
        QVERIFY2(!saved.value("isError").toBool(), qPrintable(McpTestClient::describe(saved)));
        const QJsonObject ckp = structured(saved);
        const QString checkpointId = ckp.value("checkpoint_id").toString();
        QCOMPARE(ckp.value("state").toString(), QStringLiteral("ready"));
        QVERIFY(ckp.value("clone_state_kept").toBool());
        QVERIFY2(QJsonDocument(ckp.value("kept").toArray()).toJson().contains("untracked"), qPrintable(McpTestClient::describe(saved)));
        QVERIFY2(QJsonDocument(ckp.value("not_kept").toArray()).toJson().contains("ignores"), qPrintable(McpTestClient::describe(saved)));
        QVERIFY(ckp.value("size_bytes").toDouble() > 0);
        // The sandbox itself is as it was (the save only reads the clone).
        QCOMPARE(sh(id, kDescribe), before);

        // The risky thing: history rewritten, a branch deleted, files gone, HOME changed.
        QVERIFY(!sh(id, "git reset -q --hard HEAD~1 && git branch -qD topic && git clean -fdqx && echo broken > a.txt"
                        " && git commit -qam 'agent: broken' && echo 'left-pad 2.0' > \"$HOME/.installed\"")
                     .startsWith("FAILED"));
        QVERIFY(sh(id, kDescribe) != before);

        const QJsonObject restored = call(QStringLiteral("sandbox_restore"), {{"sandbox_id", id}, {"checkpoint_id", checkpointId}});
        QVERIFY2(!restored.value("isError").toBool(), qPrintable(McpTestClient::describe(restored)));
        QCOMPARE(structured(restored).value("state").toString(), QStringLiteral("restored"));
        const QString undo = structured(restored).value("undo_checkpoint_id").toString();
        QVERIFY2(QJsonDocument(structured(restored).value("restored").toArray()).toJson().contains("untracked"),
                 qPrintable(McpTestClient::describe(restored)));
        QCOMPARE(sh(id, kDescribe), before);
        QCOMPARE(sh(id, "cat build.log 2>/dev/null || echo absent"), QStringLiteral("absent\n"));   // ignored: not kept

        // The work before the restore is the undo checkpoint, pinned: restoring it brings it back.
        const QJsonArray listed = structured(call(QStringLiteral("sandbox_checkpoints"), {{"sandbox_id", id}})).value("checkpoints").toArray();
        bool undoPinned = false;
        for (const QJsonValue &v : listed)
            undoPinned |= v.toObject().value("checkpoint_id").toString() == undo && v.toObject().value("pinned").toBool();
        QVERIFY2(undoPinned, QJsonDocument(listed).toJson().constData());
        const QJsonObject back = call(QStringLiteral("sandbox_restore"), {{"sandbox_id", id}, {"checkpoint_id", undo}});
        QVERIFY2(!back.value("isError").toBool(), qPrintable(McpTestClient::describe(back)));
        const QString afterUndo = sh(id, kDescribe);
        QVERIFY2(afterUndo.contains("main agent: broken") && !afterUndo.contains("topic") && afterUndo.contains("left-pad 2.0"),
                 qPrintable(afterUndo));
        QVERIFY(!call(QStringLiteral("sandbox_restore"), {{"sandbox_id", id}, {"checkpoint_id", checkpointId}}).value("isError").toBool());
        QCOMPARE(sh(id, kDescribe), before);

        // Two forks of the checkpoint: each a clone of the same repository holding the same work.
        QStringList forks;
        for (const QString &name : {QStringLiteral("try sqlite"), QStringLiteral("try postgres")}) {
            const QJsonObject forked = call(QStringLiteral("sandbox_fork"), {{"checkpoint_id", checkpointId}, {"name", name}});
            QVERIFY2(!forked.value("isError").toBool(), qPrintable(McpTestClient::describe(forked)));
            const QString fork = structured(forked).value("sandbox_id").toString();
            QVERIFY(!fork.isEmpty() && fork != id && !forks.contains(fork));
            QCOMPARE(structured(forked).value("workspace_mode").toString(), QStringLiteral("clone"));
            QCOMPARE(sh(fork, kDescribe), before);
            forks << fork;
        }
        // Asking for a sandbox of the workspace again gives the parent, not a fork.
        const QJsonObject again = call(QStringLiteral("sandbox_create"), {{"workspace_id", structured(call(QStringLiteral("sandbox_get"),
                                                                                 {{"sandbox_id", id}})).value("workspace_id")}});
        QCOMPARE(structured(again).value("sandbox_id").toString(), id);
        // They diverge, and neither touches the parent.
        QVERIFY(!sh(forks[0], "git add -A && git commit -qm 'fork: sqlite'").startsWith("FAILED"));
        QVERIFY(!sh(forks[1], "echo pg > pg.txt && git add pg.txt && git commit -qm 'fork: postgres' && echo wip >> b.txt")
                     .startsWith("FAILED"));
        QCOMPARE(sh(id, kDescribe), before);

        // Each fork's work comes home on its own branch when it is destroyed, on top of the
        // checkpoint's commits; the host's own branches and files are untouched.
        for (const QString &fork : forks) {
            const QJsonObject destroyed = call(QStringLiteral("sandbox_destroy"), {{"sandbox_id", fork}});
            QVERIFY2(!destroyed.value("isError").toBool(), qPrintable(McpTestClient::describe(destroyed)));
            QCOMPARE(structured(destroyed).value("work_saved_on_branch").toString(), QStringLiteral("chat2sbx/") + fork);
        }
        const QByteArray sqlite = git(repo, {"log", "--format=%s", "chat2sbx/" + forks[0]});
        QVERIFY2(sqlite.startsWith("fork: sqlite\nagent: a2\ninitial"), sqlite.constData());
        QCOMPARE(git(repo, {"show", "chat2sbx/" + forks[0] + ":notes.txt"}), QByteArray("untracked\n"));
        const QByteArray postgres = git(repo, {"log", "--format=%s", "chat2sbx/" + forks[1]});
        QVERIFY2(postgres.contains("fork: postgres\nagent: a2\ninitial"), postgres.constData());
        QVERIFY(git(repo, {"show", "chat2sbx/" + forks[1] + ":b.txt"}).contains("wip"));
        QCOMPARE(git(repo, {"log", "--format=%s", "main"}), QByteArray("initial\n"));
        QCOMPARE(readFile(repo + "/a.txt"), QByteArray("a1\n"));
        QVERIFY(git(repo, {"status", "--porcelain"}).isEmpty());

        // The parent's work comes home on its own branch too, whole.
        const QJsonObject exported = call(QStringLiteral("export_changes"), {{"sandbox_id", id}});
        QVERIFY2(!exported.value("isError").toBool(), qPrintable(McpTestClient::describe(exported)));
        QVERIFY(git(repo, {"log", "--format=%s", "chat2sbx/" + id}).contains("agent: a2\ninitial"));
    }

    void aDetachedHeadComesBackDetached()
    {
        QVERIFY(!sh(id, "git add -A && git commit -qm wip && git checkout -q --detach HEAD~1 && echo detached-work > d.txt")
                     .startsWith("FAILED"));
        const QString describe = QStringLiteral("git rev-parse HEAD; git symbolic-ref -q HEAD || echo detached; git status --porcelain");
        const QString before = sh(id, describe);
        QVERIFY2(before.contains("detached\n") && before.contains("?? d.txt"), qPrintable(before));
        const QJsonObject saved = call(QStringLiteral("sandbox_checkpoint"), {{"sandbox_id", id}});
        QVERIFY2(!saved.value("isError").toBool(), qPrintable(McpTestClient::describe(saved)));
        QVERIFY(!sh(id, "rm d.txt && git checkout -q main").startsWith("FAILED"));
        const QJsonObject restored =
            call(QStringLiteral("sandbox_restore"), {{"sandbox_id", id}, {"checkpoint_id", structured(saved).value("checkpoint_id")}});
        QVERIFY2(!restored.value("isError").toBool(), qPrintable(McpTestClient::describe(restored)));
        QCOMPARE(sh(id, describe), before);
        QVERIFY(!sh(id, "rm d.txt && git checkout -q main").startsWith("FAILED"));
    }

    void aCheckpointWhoseBaseTheHostLostIsRefusedBeforeAnythingChanges()
    {
        const QJsonObject saved = call(QStringLiteral("sandbox_checkpoint"), {{"sandbox_id", id}});
        QVERIFY2(!saved.value("isError").toBool(), qPrintable(McpTestClient::describe(saved)));
        const QString checkpointId = structured(saved).value("checkpoint_id").toString();
        const QString now = sh(id, kDescribe);
        // The host rewrites its history: the commit the sandbox started from is gone for good.
        git(repo, {"checkout", "-q", "--orphan", "fresh"});
        git(repo, {"-c", "user.name=user", "-c", "user.email=user@example.com", "commit", "-qm", "rewritten"});
        for (const QString &branch : QString::fromUtf8(git(repo, {"for-each-ref", "--format=%(refname:short)", "refs/heads/"})).split('\n'))
            if (!branch.isEmpty() && branch != QLatin1String("fresh"))
                git(repo, {"branch", "-qD", branch});
        git(repo, {"reflog", "expire", "--expire=now", "--all"});
        git(repo, {"gc", "-q", "--prune=now"});

        const QJsonObject refused = call(QStringLiteral("sandbox_restore"), {{"sandbox_id", id}, {"checkpoint_id", checkpointId}});
        QVERIFY(refused.value("isError").toBool());
        QVERIFY2(McpTestClient::describe(refused).contains("no longer has the commits"), qPrintable(McpTestClient::describe(refused)));
        QCOMPARE(sh(id, kDescribe), now);   // nothing changed: not even an undo checkpoint was needed
        const QJsonObject fork = call(QStringLiteral("sandbox_fork"), {{"checkpoint_id", checkpointId}});
        QVERIFY(fork.value("isError").toBool());
        QVERIFY2(McpTestClient::describe(fork).contains("no fork was made"), qPrintable(McpTestClient::describe(fork)));
    }
};

QTEST_MAIN(TestCheckpointClone)
#include "tst_checkpoint_clone.moc"
