// The approval and workspace commands against a real state database, no server running:
// human output and --json, exit 0 on success, exit 1 with exactly one clear stderr line otherwise,
// and an already-decided approval refused instead of decided twice.
#include "TestSupport.h"

#include "core/Clock.h"
#include "state/Database.h"
#include "workspace/ApprovalService.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QString oneErrorLine(const CliResult &r)
{
    const QString err = QString::fromUtf8(r.err);
    if (!err.endsWith('\n') || err.count('\n') != 1)
        return QStringLiteral("<not one line: %1>").arg(err);
    return err.trimmed();
}

QJsonDocument json(const CliResult &r)
{
    QJsonParseError e;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &e);
    if (e.error != QJsonParseError::NoError)
        qWarning("not JSON: %s", r.out.constData());
    return doc;
}

} // namespace

class TestWorkspaceCli : public QObject {
    Q_OBJECT
    std::unique_ptr<TestEnvironment> m_env;
    QString m_root;

    // Creates a pending approval the way the server does for an MCP workspace_request.
    QString requestApproval(const QString &path, WorkspaceMode mode)
    {
        const Config config = m_env->config();
        Database db;
        QString error;
        if (!db.open(config.databasePath, error))
            return QString();
        WorkspaceService ws(config, db, Clock::system());
        ApprovalService approvals(ws, db, Clock::system());
        const auto out = approvals.request(path, mode);
        return out.approval.id;
    }

private slots:
    void init()
    {
        m_env = std::make_unique<TestEnvironment>();
        QVERIFY(m_env->isValid());
        m_root = QDir(m_env->root()).canonicalPath() + "/repos";
        QVERIFY(QDir().mkpath(m_root + "/app/.git"));
        QVERIFY(QDir().mkpath(m_root + "/docs"));
        m_env->set("CHAT2SBX_ALLOWED_HOST_ROOTS", m_root + ":" + m_env->root() + "/elsewhere");
    }

    void workspaceAddAndList()
    {
        CliResult r = runCli(*m_env, {"workspace", "list"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out).trimmed(), QString("No workspaces."));
        r = runCli(*m_env, {"workspace", "list", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json(r).array(), QJsonArray());

        r = runCli(*m_env, {"workspace", "add", m_root + "/app"});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out).trimmed();
        QVERIFY2(out.startsWith("Registered clone workspace ws_") && out.endsWith(" for " + m_root + "/app"), qPrintable(out));
        QVERIFY(r.err.isEmpty());
        const QString id = out.section(' ', 3, 3);

        r = runCli(*m_env, {"workspace", "add", m_root + "/app/", "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject again = json(r).object();
        QCOMPARE(again.value("created"), QJsonValue(false));
        QCOMPARE(again.value("workspace_id").toString(), id);
        QCOMPARE(again.value("mode").toString(), QString("clone"));

        r = runCli(*m_env, {"workspace", "add", "--mode", "direct", m_root + "/docs", "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject direct = json(r).object();
        QCOMPARE(direct.value("created"), QJsonValue(true));
        QCOMPARE(direct.value("mode").toString(), QString("direct"));
        QCOMPARE(direct.value("host_path").toString(), m_root + "/docs");
        QCOMPARE(direct.value("display_name").toString(), QString("docs"));

        r = runCli(*m_env, {"workspace", "list"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(r.out).trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines.at(0).startsWith(id + "  clone "));
        QVERIFY(lines.at(0).contains(m_root + "/app"));
        QVERIFY(lines.at(1).contains("direct") && lines.at(1).contains(m_root + "/docs"));

        r = runCli(*m_env, {"workspace", "list", "--json"});
        const QJsonArray items = json(r).array();
        QCOMPARE(items.size(), 2);
        QCOMPARE(items.at(0).toObject().value("workspace_id").toString(), id);
        QCOMPARE(items.at(1).toObject().value("sandbox_id"), QJsonValue());
    }

    void workspaceAddRelativePath()
    {
        const CliResult r = runProcess(chat2sbxBinary(), {"workspace", "add", "docs", "--mode=direct"},
                                       m_env->processEnvironment(), m_root);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains((m_root + "/docs").toUtf8()));
    }

    void workspaceAddErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::addColumn<int>("code");   // 2: usage error, 1: refused
        QTest::newRow("no path") << QStringList{"workspace", "add"} << "chat2sbx: usage: chat2sbx workspace add <path> [--mode clone|direct]" << 2;
        QTest::newRow("not a repo") << QStringList{"workspace", "add", "ROOT/docs"}
                                    << "chat2sbx: cannot add the workspace: clone mode needs a git repository, but ROOT/docs has no .git at its top; give the repository's top folder or use mode direct" << 1;
        QTest::newRow("root itself") << QStringList{"workspace", "add", "ROOT", "--mode", "direct"}
                                     << "chat2sbx: cannot add the workspace: ROOT is an allowed root itself; choose a folder below it" << 1;
        QTest::newRow("missing") << QStringList{"workspace", "add", "ROOT/nope", "--mode", "direct"}
                                 << "chat2sbx: cannot add the workspace: ROOT/nope does not exist" << 1;
        QTest::newRow("bad mode") << QStringList{"workspace", "add", "ROOT/app", "--mode", "managed"}
                                  << "chat2sbx: --mode must be clone or direct (got 'managed')" << 2;
        QTest::newRow("mode without value") << QStringList{"workspace", "add", "ROOT/app", "--mode"}
                                            << "chat2sbx: Missing value after '--mode'. (see chat2sbx --help)" << 2;
        QTest::newRow("two paths") << QStringList{"workspace", "add", "ROOT/app", "ROOT/docs"}
                                   << "chat2sbx: workspace add takes one path (usage: chat2sbx workspace add <path> [--mode clone|direct])" << 2;
        QTest::newRow("list extra") << QStringList{"workspace", "list", "x"}
                                    << "chat2sbx: workspace list: unexpected argument 'x' (usage: workspace list [--json])" << 2;
        QTest::newRow("option of another command") << QStringList{"workspace", "list", "--mode", "direct"}
                                                   << "chat2sbx: --mode is not an option of workspace list (see chat2sbx --help)" << 2;
    }
    void workspaceAddErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        QFETCH(int, code);
        for (QString &a : args)
            a.replace("ROOT", m_root);
        error.replace("ROOT", m_root);
        const CliResult r = runCli(*m_env, args);
        QCOMPARE(r.exitCode, code);
        QCOMPARE(oneErrorLine(r), error);
        QVERIFY(r.out.isEmpty());
    }

    void hostAccessDisabledWithoutRoots()
    {
        m_env->unset("CHAT2SBX_ALLOWED_HOST_ROOTS");
        const CliResult r = runCli(*m_env, {"workspace", "add", m_root + "/app"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(oneErrorLine(r).startsWith("chat2sbx: cannot add the workspace: host workspaces are disabled: set CHAT2SBX_ALLOWED_HOST_ROOTS"),
                 r.err.constData());
    }

    void approvalListApproveReject()
    {
        CliResult r = runCli(*m_env, {"approval", "list"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out).trimmed(), QString("No pending approvals."));

        const QString first = requestApproval(m_root + "/app", WorkspaceMode::Clone);
        const QString second = requestApproval(m_root + "/docs", WorkspaceMode::Direct);
        QVERIFY(first.startsWith("apr_") && second.startsWith("apr_"));

        r = runCli(*m_env, {"approval", "list"});
        QCOMPARE(r.exitCode, 0);
        QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(first + "  clone   pending   " + m_root + "/app  requested "), qPrintable(out));
        QVERIFY(out.contains(second + "  direct  pending   " + m_root + "/docs"));
        QVERIFY(out.contains("chat2sbx approval approve <id>"));

        r = runCli(*m_env, {"approval", "list", "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonArray items = json(r).array();
        QCOMPARE(items.size(), 2);
        QCOMPARE(items.at(0).toObject().value("approval_id").toString(), first);
        QCOMPARE(items.at(0).toObject().value("state").toString(), QString("pending"));
        QCOMPARE(items.at(0).toObject().value("host_path").toString(), m_root + "/app");
        QCOMPARE(items.at(0).toObject().value("mode").toString(), QString("clone"));
        QCOMPARE(items.at(0).toObject().value("decided_at"), QJsonValue());

        r = runCli(*m_env, {"approval", "approve", first});
        QCOMPARE(r.exitCode, 0);
        out = QString::fromUtf8(r.out).trimmed();
        QVERIFY2(out.startsWith("Approved " + first + ": clone workspace ws_") && out.endsWith(" for " + m_root + "/app"), qPrintable(out));
        const QString wsId = out.section(' ', 4, 4);

        r = runCli(*m_env, {"approval", "approve", first});
        QCOMPARE(r.exitCode, 1);
        QString err = oneErrorLine(r);
        QVERIFY2(err.startsWith("chat2sbx: approval " + first + " was already approved at ") && err.contains("(from cli)")
                     && err.contains(wsId) && err.endsWith("a decision is final"), qPrintable(err));
        r = runCli(*m_env, {"approval", "reject", first});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(oneErrorLine(r).contains("was already approved"));

        r = runCli(*m_env, {"approval", "reject", second, "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject rejected = json(r).object();
        QCOMPARE(rejected.value("approval_id").toString(), second);
        QCOMPARE(rejected.value("state").toString(), QString("rejected"));
        QCOMPARE(rejected.value("decided_by").toString(), QString("cli"));
        r = runCli(*m_env, {"approval", "approve", second});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(oneErrorLine(r).contains("was already rejected"));

        r = runCli(*m_env, {"approval", "list"});
        QCOMPARE(QString::fromUtf8(r.out).trimmed(), QString("No pending approvals."));
        r = runCli(*m_env, {"approval", "list", "--all", "--json"});
        items = json(r).array();
        QCOMPARE(items.size(), 2);
        QCOMPARE(items.at(0).toObject().value("state").toString(), QString("approved"));
        QCOMPARE(items.at(0).toObject().value("workspace_id").toString(), wsId);
        QCOMPARE(items.at(1).toObject().value("state").toString(), QString("rejected"));
        r = runCli(*m_env, {"approval", "list", "--all"});
        QVERIFY(QString::fromUtf8(r.out).contains(first + "  clone   approved"));

        // The approved workspace is listed.
        r = runCli(*m_env, {"workspace", "list", "--json"});
        items = json(r).array();
        QCOMPARE(items.size(), 1);
        QCOMPARE(items.at(0).toObject().value("workspace_id").toString(), wsId);
    }

    void approvalErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::addColumn<int>("code");   // 2: usage error, 1: refused
        QTest::newRow("approve no id") << QStringList{"approval", "approve"} << "chat2sbx: usage: chat2sbx approval approve <id>" << 2;
        QTest::newRow("reject no id") << QStringList{"approval", "reject"} << "chat2sbx: usage: chat2sbx approval reject <id>" << 2;
        QTest::newRow("approve two ids") << QStringList{"approval", "approve", "a", "b"} << "chat2sbx: usage: chat2sbx approval approve <id>" << 2;
        QTest::newRow("unknown id") << QStringList{"approval", "approve", "apr_000000000000000000000000"}
                                    << "chat2sbx: no approval with id apr_000000000000000000000000" << 1;
        QTest::newRow("reject unknown") << QStringList{"approval", "reject", "apr_x"} << "chat2sbx: no approval with id apr_x" << 1;
        QTest::newRow("list bad option") << QStringList{"approval", "list", "--pending"}
                                         << "chat2sbx: Unknown option 'pending'. (see chat2sbx --help)" << 2;
        QTest::newRow("list extra") << QStringList{"approval", "list", "x"}
                                    << "chat2sbx: approval list: unexpected argument 'x' (usage: approval list [--all] [--json])" << 2;
    }
    void approvalErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        QFETCH(int, code);
        const CliResult r = runCli(*m_env, args);
        QCOMPARE(r.exitCode, code);
        QCOMPARE(oneErrorLine(r), error);
    }

    void approveRefusesADirectoryThatWasSwapped()
    {
        const QString id = requestApproval(m_root + "/docs", WorkspaceMode::Direct);
        QVERIFY(QDir().rename(m_root + "/docs", m_root + "/docs-moved"));
        QVERIFY(QDir().mkpath(m_root + "/docs"));
        const CliResult r = runCli(*m_env, {"approval", "approve", id});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(oneErrorLine(r), "chat2sbx: cannot approve " + id + ": " + m_root
                                      + "/docs was replaced after it was checked (it is no longer the same directory)");
        QCOMPARE(json(runCli(*m_env, {"approval", "list", "--json"})).array().size(), 1);
    }

    void helpListsTheCommandsWithoutNotImplemented()
    {
        const CliResult r = runCli(*m_env, {"--help"});
        const QString out = QString::fromUtf8(r.out);
        for (const QString &line : out.split('\n')) {
            if (line.contains("approval ") || line.contains("workspace "))
                QVERIFY2(!line.contains("not implemented"), qPrintable(line));
        }
        QVERIFY(out.contains("approval approve <id>"));
        QVERIFY(out.contains("workspace add <path> [--mode clone|direct]"));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceCli)
#include "tst_workspace_cli.moc"
