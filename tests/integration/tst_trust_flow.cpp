// What the agent opened and what it did, against a real `chat2sbx serve` on the fake sbx:
// sandbox_expose binds 127.0.0.1 by default (the fake's call log shows the --publish spec), a
// LAN address is refused until the user allows it, host_port conflicts are readable, `listening`
// tells whether something inside listens; every tool call leaves one audit row with the client,
// a short session, the right one-line summary and no secret (an env value and a file's content
// appear nowhere in the database); `chat2sbx audit --json` and `--follow` read them from another
// process while the server runs.
#include "McpTestClient.h"
#include "TestSupport.h"

#include "state/Database.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlQuery>
#include <QTcpServer>
#include <QtTest>

#include <csignal>
#include <sys/types.h>

using namespace chat2sbx::test;

namespace {

const QString kEnvSecret = QStringLiteral("env-value-5ecret-71");
const QString kFileSecret = QStringLiteral("file-content-5ecret-42");

QJsonObject sc(const QJsonObject &result)
{
    return result.value("structuredContent").toObject();
}

QString text(const QJsonObject &result)
{
    return result.value("content").toArray().at(0).toObject().value("text").toString();
}

QStringList publishSpecs(const TestEnvironment &env)
{
    QStringList specs;
    for (const QByteArray &line : readFile(env.sbxState() + "/calls.log").split('\n')) {
        const QJsonArray argv = QJsonDocument::fromJson(line).array();
        for (int i = 0; i + 1 < argv.size(); ++i)
            if (argv.at(i).toString() == "--publish")
                specs << argv.at(i + 1).toString();
    }
    return specs;
}

QList<QJsonObject> jsonLines(const QByteArray &out)
{
    QList<QJsonObject> rows;
    for (const QByteArray &line : out.split('\n'))
        if (!line.trimmed().isEmpty())
            rows << QJsonDocument::fromJson(line).object();
    return rows;
}

} // namespace

class TrustFlowTest : public QObject {
    Q_OBJECT

private slots:
    void exposeBindsLoopbackAndReportsListening()
    {
        TestEnvironment env;
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "trust-test");
        QVERIFY(mcp.open());
        const QJsonObject created = mcp.callToolResult("sandbox_create", {});
        QVERIFY2(!created.value("isError").toBool(), qPrintable(text(created)));
        const QString id = sc(created).value("sandbox_id").toString();

        // The fake shares the host's network: a listener here is "inside" the sandbox.
        QTcpServer listener;
        QVERIFY(listener.listen(QHostAddress::LocalHost, 0));
        const int listened = listener.serverPort();
        const QJsonObject e = mcp.callToolResult("sandbox_expose", {{"sandbox_id", id}, {"port", listened}});
        QVERIFY2(!e.value("isError").toBool(), qPrintable(text(e)));
        QCOMPARE(sc(e).value("host_ip").toString(), QStringLiteral("127.0.0.1"));
        QCOMPARE(sc(e).value("lan_wide").toBool(true), false);
        QCOMPARE(sc(e).value("listening").toBool(false), true);
        const int hostPort = sc(e).value("host_port").toInt();
        QCOMPARE(sc(e).value("url").toString(), QStringLiteral("http://127.0.0.1:%1/").arg(hostPort));
        QVERIFY2(publishSpecs(env).contains(QStringLiteral("127.0.0.1:%1:%2/tcp4").arg(hostPort).arg(listened)),
                 qPrintable(publishSpecs(env).join(" | ")));

        // Nothing listens on a fresh free port.
        const int idle = freeTcpPort();
        const QJsonObject e2 = mcp.callToolResult("sandbox_expose", {{"sandbox_id", id}, {"port", idle}});
        QVERIFY2(!e2.value("isError").toBool(), qPrintable(text(e2)));
        QVERIFY(sc(e2).value("listening").isBool());
        QCOMPARE(sc(e2).value("listening").toBool(true), false);
        QVERIFY(sc(e2).value("hint").toString().contains("nothing listens"));

        // LAN-wide without the user's setting: refused, nothing published.
        const int before = static_cast<int>(publishSpecs(env).size());
        const QJsonObject lan = mcp.callToolResult("sandbox_expose", {{"sandbox_id", id}, {"port", 7001}, {"host", "0.0.0.0"}});
        QVERIFY(lan.value("isError").toBool());
        QVERIFY2(text(lan).contains("exposeAllowLan") && text(lan).contains("CHAT2SBX_EXPOSE_ALLOW_LAN"), qPrintable(text(lan)));
        QCOMPARE(static_cast<int>(publishSpecs(env).size()), before);

        // A host port already taken on this machine: a clear error.
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        const QJsonObject taken = mcp.callToolResult("sandbox_expose", {{"sandbox_id", id}, {"port", 7002}, {"host_port", squatter.serverPort()}});
        QVERIFY(taken.value("isError").toBool());
        QVERIFY2(text(taken).contains(QStringLiteral("host port %1").arg(squatter.serverPort())) && text(taken).contains("in use"),
                 qPrintable(text(taken)));

        // A free host port asked for is the one used.
        const int wanted = freeTcpPort();
        const QJsonObject chosen = mcp.callToolResult("sandbox_expose", {{"sandbox_id", id}, {"port", 7003}, {"host_port", wanted}});
        QVERIFY2(!chosen.value("isError").toBool(), qPrintable(text(chosen)));
        QCOMPARE(sc(chosen).value("host_port").toInt(), wanted);
        QVERIFY(publishSpecs(env).contains(QStringLiteral("127.0.0.1:%1:7003/tcp4").arg(wanted)));

        // sandbox_get shows the same port object shape.
        const QJsonArray ports = sc(mcp.callToolResult("sandbox_get", {{"sandbox_id", id}})).value("ports").toArray();
        QCOMPARE(ports.size(), 3);
        QCOMPARE(ports.at(0).toObject().value("host_ip").toString(), QStringLiteral("127.0.0.1"));
        QVERIFY(ports.at(0).toObject().contains("lan_wide"));
        QCOMPARE(server.terminate(), 0);
    }

    void lanExposureWhenAllowed()
    {
        TestEnvironment env;
        env.set("CHAT2SBX_EXPOSE_ALLOW_LAN", "1");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "trust-test");
        QVERIFY(mcp.open());
        const QString id = sc(mcp.callToolResult("sandbox_create", {})).value("sandbox_id").toString();
        QVERIFY(!id.isEmpty());
        const QJsonObject lan = mcp.callToolResult("sandbox_expose", {{"sandbox_id", id}, {"port", 7101}, {"host", "0.0.0.0"}});
        QVERIFY2(!lan.value("isError").toBool(), qPrintable(text(lan)));
        QCOMPARE(sc(lan).value("host_ip").toString(), QStringLiteral("0.0.0.0"));
        QCOMPARE(sc(lan).value("lan_wide").toBool(), true);
        const int hostPort = sc(lan).value("host_port").toInt();
        QVERIFY(publishSpecs(env).contains(QStringLiteral("0.0.0.0:%1:7101/tcp4").arg(hostPort)));
        // Not an address at all is still refused.
        const QJsonObject bad = mcp.callToolResult("sandbox_expose", {{"sandbox_id", id}, {"port", 7102}, {"host", "example.com"}});
        QVERIFY(bad.value("isError").toBool());
        QVERIFY(text(bad).contains("IPv4"));
        QCOMPARE(server.terminate(), 0);
    }

    void auditRowsPerToolWithoutSecrets()
    {
        TestEnvironment env;
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "trust-test");
        QVERIFY(mcp.open());
        const QString id = sc(mcp.callToolResult("sandbox_create", {})).value("sandbox_id").toString();
        QVERIFY(!id.isEmpty());

        const QString longCommand = QStringLiteral("echo start; ") + QString(600, QLatin1Char('x'));
        QVERIFY(!mcp.callToolResult("bash", {{"sandbox_id", id}, {"command", "echo \"$TOKEN_X\" >/dev/null; echo done"},
                                       {"env", QJsonArray{QJsonObject{{"name", "TOKEN_X"}, {"value", kEnvSecret}}}}}).value("isError").toBool());
        const QJsonObject longRun = mcp.callToolResult("bash", {{"sandbox_id", id}, {"command", longCommand}, {"yield_time_ms", 2000}});
        const QString sessionId = sc(longRun).value("session_id").toString();
        mcp.callToolResult("bash_poll", {{"sandbox_id", id}, {"session_id", sessionId}, {"yield_time_ms", 0}});
        QVERIFY(!mcp.callToolResult("write", {{"sandbox_id", id}, {"path", "notes/secret.txt"}, {"content", kFileSecret + "\n"}}).value("isError").toBool());
        mcp.callToolResult("read", {{"sandbox_id", id}, {"path", "notes/secret.txt"}});
        mcp.callToolResult("edit", {{"sandbox_id", id}, {"path", "notes/secret.txt"}, {"old_string", kFileSecret}, {"new_string", "changed"}});
        mcp.callToolResult("search", {{"sandbox_id", id}, {"pattern", "changed"}, {"path", "notes"}});
        mcp.callToolResult("list", {{"sandbox_id", id}, {"path", "notes"}});
        mcp.callToolResult("sandbox_expose", {{"sandbox_id", id}, {"port", 7201}});
        const QString hostDir = env.root() + "/host-project";
        QVERIFY(QDir().mkpath(hostDir));
        mcp.callToolResult("workspace_request", {{"host_path", hostDir}, {"mode", "direct"}});

        const CliResult r = runCli(env, {"audit", "--json", "--limit", "100"});
        QCOMPARE(r.exitCode, 0);
        const QList<QJsonObject> rows = jsonLines(r.out);
        QHash<QString, QJsonObject> byTool;
        for (const QJsonObject &row : rows) {
            // snake_case keys, each once (JSON objects cannot repeat keys; the set is exact).
            QCOMPARE(QStringList(row.keys()), (QStringList{"at", "client", "conversation", "duration_ms", "error", "id",
                                                           "outcome", "sandbox_id", "sandbox_name", "session", "summary", "tool"}));
            QCOMPARE(row.value("client").toString(), QStringLiteral("trust-test"));
            QCOMPARE(row.value("session").toString(), mcp.sessionId.left(8));
            if (!byTool.contains(row.value("tool").toString()) || row.value("tool").toString() != "bash")
                byTool.insert(row.value("tool").toString(), row);
        }
        QCOMPARE(byTool.value("bash").value("summary").toString(), QStringLiteral("echo \"$TOKEN_X\" >/dev/null; echo done"));
        QCOMPARE(byTool.value("bash").value("sandbox_id").toString(), id);
        // The short name people read (sandbox list's NAME): a scratch sandbox and its id's first hex digits.
        QCOMPARE(byTool.value("bash").value("sandbox_name").toString(), QStringLiteral("scratch-") + id.mid(4, 4));
        QCOMPARE(byTool.value("bash_poll").value("summary").toString(), sessionId);
        QCOMPARE(byTool.value("write").value("summary").toString(), QStringLiteral("notes/secret.txt"));
        QCOMPARE(byTool.value("read").value("summary").toString(), QStringLiteral("notes/secret.txt"));
        QCOMPARE(byTool.value("edit").value("summary").toString(), QStringLiteral("notes/secret.txt"));
        QCOMPARE(byTool.value("search").value("summary").toString(), QStringLiteral("notes"));
        QCOMPARE(byTool.value("list").value("summary").toString(), QStringLiteral("notes"));
        QCOMPARE(byTool.value("sandbox_expose").value("summary").toString(), QStringLiteral("port 7201"));
        QCOMPARE(byTool.value("workspace_request").value("summary").toString(), hostDir + " (direct)");
        QCOMPARE(byTool.value("sandbox_create").value("outcome").toString(), QStringLiteral("ok"));
        // The long command is cut at 500 characters.
        bool sawLong = false;
        for (const QJsonObject &row : rows)
            if (row.value("summary").toString().startsWith("echo start;")) {
                sawLong = true;
                QCOMPARE(row.value("summary").toString().size(), 500);
            }
        QVERIFY(sawLong);

        // No secret anywhere: CLI output, table output, the database files.
        const CliResult table = runCli(env, {"audit"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.startsWith("TIME (UTC)"));
        QVERIFY2(table.out.contains(("scratch-" + id.mid(4, 4)).toUtf8()) && !table.out.contains(id.toUtf8()), table.out.constData());
        for (const QByteArray &line : table.out.split('\n'))
            QVERIFY2(!line.endsWith(' '), line.constData());

        // A client name with a newline and terminal escapes stays one escaped line in the table.
        McpTestClient forger(env.mcpUrl(), QStringLiteral("evil\n2026-01-01 fake row\x1b[31m"));
        QVERIFY(forger.open());
        QVERIFY(!forger.callToolResult("sandbox_list", {}).value("isError").toBool());
        const CliResult forged = runCli(env, {"audit", "--limit", "1"});
        QCOMPARE(forged.out.count('\n'), 2);   // the header and one row
        QVERIFY2(!forged.out.contains('\x1b') && forged.out.contains("evil\\n"), forged.out.constData());
        QByteArray everything = r.out + table.out;
        const QString db = env.config().databasePath;
        for (const QString &f : {db, db + "-wal", db + "-audit"})
            everything += readFile(f);
        QVERIFY(!everything.contains(kEnvSecret.toUtf8()));
        QVERIFY(!everything.contains(kFileSecret.toUtf8()));

        // --sandbox filters; --since in the future finds nothing.
        const QList<QJsonObject> mine = jsonLines(runCli(env, {"audit", "--json", "--sandbox", id, "--limit", "100"}).out);
        QVERIFY(!mine.isEmpty());
        for (const QJsonObject &row : mine)
            QCOMPARE(row.value("sandbox_id").toString(), id);
        QVERIFY(jsonLines(runCli(env, {"audit", "--json", "--since", "2999-01-01T00:00:00Z"}).out).isEmpty());
        QCOMPARE(runCli(env, {"audit", "--since", "yesterday"}).exitCode, 2);
        QCOMPARE(server.terminate(), 0);
    }

    void auditRowsSurviveAKillBeforeTheyReachTheDatabase()
    {
        // The server answers a call once its row is in the audit journal and moves rows into the
        // database a moment later. Frozen (SIGSTOP) right after its answers, then killed, it has
        // rows only in the journal: the CLI shows them, and the next server adds them to the table.
        TestEnvironment env;
        const QString journal = env.config().databasePath + "-audit";
        QList<QJsonObject> before;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "kill-test");
            QVERIFY(mcp.open());
            QByteArray unfolded;
            for (int attempt = 0; attempt < 50 && unfolded.isEmpty(); ++attempt) {
                for (int i = 0; i < 3; ++i)
                    QVERIFY(!mcp.callToolResult("sandbox_list", {}).value("isError").toBool());
                QCOMPARE(::kill(pid_t(server.pid()), SIGSTOP), 0);
                unfolded = readFile(journal);
                if (unfolded.isEmpty())
                    QCOMPARE(::kill(pid_t(server.pid()), SIGCONT), 0);   // it had just folded: once more
            }
            QVERIFY2(!unfolded.isEmpty(), "every attempt found the journal just folded");
            // The server may be frozen inside a fold's transaction: the CLI must not wait for it.
            const CliResult audit = runCli(env, {"audit", "--json", "--limit", "1000"});
            server.kill9();
            QVERIFY2(audit.exitCode == 0, audit.err.constData());
            before = jsonLines(audit.out);
        }
        QVERIFY(before.size() >= 3);
        QCOMPARE(before.constLast().value("tool").toString(), QStringLiteral("sandbox_list"));
        QCOMPARE(before.constLast().value("client").toString(), QStringLiteral("kill-test"));
        QVERIFY(QFileInfo(journal).size() > 0);

        ServerProcess again(env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        QVERIFY2(again.output().contains("audit rows written before the last stop"), qPrintable(again.output()));
        QTRY_COMPARE_WITH_TIMEOUT(QFileInfo(journal).size(), 0, chat2sbx::test::scaled(5000));
        // Every row the CLI saw is in the database now, with the same ids, and new ones follow them.
        chat2sbx::Database db;
        QString error;
        QVERIFY2(db.openReadOnly(env.config().databasePath, error), qPrintable(error));
        QSqlQuery q(db.handle());
        QVERIFY(q.exec(QStringLiteral("SELECT id, tool FROM audit_log ORDER BY id")));
        QList<qint64> ids;
        while (q.next())
            ids << q.value(0).toLongLong();
        QCOMPARE(ids.size(), before.size());
        for (int i = 0; i < before.size(); ++i)
            QCOMPARE(ids.at(i), qint64(before.at(i).value("id").toDouble()));
        McpTestClient mcp(env.mcpUrl(), "after");
        QVERIFY(mcp.open());
        mcp.callToolResult("sandbox_list", {});
        const QList<QJsonObject> after = jsonLines(runCli(env, {"audit", "--json", "--limit", "1"}).out);
        QCOMPARE(after.size(), 1);
        QVERIFY(qint64(after.first().value("id").toDouble()) > ids.constLast());
        QCOMPARE(again.terminate(), 0);
    }

    void auditFollowStreamsFromAnotherProcess()
    {
        TestEnvironment env;
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "follow-test");
        QVERIFY(mcp.open());
        mcp.callToolResult("sandbox_list", {});

        QProcess follow;
        follow.setProcessEnvironment(env.processEnvironment());
        follow.start(chat2sbxBinary(), {"audit", "--follow", "--json", "--limit", "1"});
        QVERIFY(follow.waitForStarted(10000));
        QByteArray out;
        // The existing row first, then the new ones as the server writes them.
        QVERIFY(waitFor([&] { out += follow.readAllStandardOutput(); return out.contains("sandbox_list"); }, 15000));
        mcp.callToolResult("workspace_list", {});
        mcp.callToolResult("sandbox_get", {{"sandbox_id", "sbx_000000000000000000000000"}});
        QVERIFY2(waitFor([&] { out += follow.readAllStandardOutput(); return out.contains("sandbox_get"); }, 15000), out.constData());
        const QList<QJsonObject> rows = jsonLines(out);
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows.at(1).value("tool").toString(), QStringLiteral("workspace_list"));
        QCOMPARE(rows.at(2).value("outcome").toString(), QStringLiteral("error"));
        QVERIFY(rows.at(2).value("error").toString().contains("unknown sandbox_id"));
        // Idle while nothing happens: it waits on file changes and a 1 s timer, not a spin.
        follow.terminate();
        QVERIFY(follow.waitForFinished(10000));
        QCOMPARE(server.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TrustFlowTest)
#include "tst_trust_flow.moc"
