// The real binary: --help/--version, serve start-up and clean SIGTERM shutdown, status in both
// output modes, and start-up refusing an invalid configuration with one line.
#include "TestSupport.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestServeStatus : public QObject {
    Q_OBJECT
private slots:
    void helpAndVersion()
    {
        TestEnvironment env;
        CliResult help = runCli(env, {"--help"});
        QCOMPARE(help.exitCode, 0);
        for (const char *word : {"serve", "status", "setup", "workspace list", "approval approve", "sandbox list"})
            QVERIFY2(help.out.contains(word), word);
        CliResult version = runCli(env, {"--version"});
        QCOMPARE(version.exitCode, 0);
        QCOMPARE(version.out.trimmed(), QByteArray("chat2sbx " CHAT2SBX_VERSION));
        CliResult unknown = runCli(env, {"frobnicate"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("unknown command 'frobnicate'"));
        QCOMPARE(unknown.err.count('\n'), 1);
        // Usage errors exit 2 with one line: an unknown option, extra words, --serve with a command.
        for (const QStringList &args : {QStringList{"status", "--frobnicate"}, QStringList{"status", "now"},
                                        QStringList{"--serve", "status"}, QStringList{"status", "--all"}}) {
            const CliResult bad = runCli(env, args);
            QVERIFY2(bad.exitCode == 2, qPrintable(args.join(' ') + ": " + bad.err));
            QCOMPARE(bad.err.count('\n'), 1);
            QVERIFY(bad.out.isEmpty());
        }
    }

    void statusWithoutServer()
    {
        TestEnvironment env;
        CliResult human = runCli(env, {"status"});
        QCOMPARE(human.exitCode, 1);
        QVERIFY(human.out.contains("server:     not running"));
        QVERIFY(human.out.contains(env.dataRoot().toUtf8()));
        QVERIFY(human.err.contains("server is not running"));
        CliResult json = runCli(env, {"status", "--json"});
        QCOMPARE(json.exitCode, 1);
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(o.value("server").toObject().value("running").toBool(), false);
        QCOMPARE(o.value("config").toObject().value("port").toInt(), int(env.port()));
        QCOMPARE(o.value("tunnel").toObject().value("enabled").toBool(), false);
        QCOMPARE(o.value("sandboxes").toObject().value("limit").toString(), QStringLiteral("unlimited"));
        for (const QString &key : {QStringLiteral("pending_approvals"), QStringLiteral("data_root"), QStringLiteral("host_workspaces")})
            QVERIFY2(o.contains(key), qPrintable(key));
        QVERIFY2(!json.out.contains("Approvals\"") && !json.out.contains("dataRoot") && !json.out.contains("uptimeMs"), json.out.constData());
    }

    void serveThenStatusThenSigterm()
    {
        TestEnvironment env;
        env.set("CHAT2SBX_MAX_ACTIVE_SANDBOXES", "4");
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        const QString pidFile = env.dataRoot() + "/state/chat2sbx.pid";
        QCOMPARE(readFile(pidFile).split('\n').first().toLongLong(), server.pid());   // a QLockFile: the PID first

        CliResult human = runCli(env, {"status"});
        QVERIFY2(human.exitCode == 0, human.err.constData());
        QVERIFY(human.out.contains("healthy"));
        QVERIFY(human.out.contains("limit 4"));
        CliResult json = runCli(env, {"status", "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject s = QJsonDocument::fromJson(json.out).object().value("server").toObject();
        QCOMPARE(s.value("healthy").toBool(), true);
        QCOMPARE(s.value("pid").toInteger(), server.pid());
        QCOMPARE(QJsonDocument::fromJson(json.out).object().value("sandboxes").toObject().value("active").toInt(), 0);

        // A second server on the same data root is refused.
        CliResult second = runCli(env, {"serve"}, 10000);
        QCOMPARE(second.exitCode, 1);
        QVERIFY2(second.err.contains("already running"), second.err.constData());

        QCOMPARE(server.terminate(), 0);
        QVERIFY(!QFileInfo::exists(pidFile));
    }

    void invalidConfigStopsStartup()
    {
        TestEnvironment env;
        env.set("CHAT2SBX_PORT", "70000");
        CliResult r = runCli(env, {"serve"});
        QVERIFY(r.exitCode != 0);
        QCOMPARE(r.err.trimmed(), QByteArray("chat2sbx: invalid CHAT2SBX_PORT=70000: must be an integer from 1 to 65535"));
    }
};

QTEST_GUILESS_MAIN(TestServeStatus)
#include "tst_serve_status.moc"
