// Start-up honesty and CLI shape: `chat2sbx` / `chat2sbx tray` without a graphical session print
// one line and exit 2 (no Qt abort, no core dump); a command group alone lists its commands;
// `--help` after a command is that command's help.
#include "TestSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

using namespace chat2sbx::test;

namespace {

CliResult runWith(const QProcessEnvironment &env, const QStringList &args)
{
    return runProcess(chat2sbxBinary(), args, env);
}

} // namespace

class CliStartupTest : public QObject {
    Q_OBJECT

private slots:
    void noDisplayIsOneLineAndExit2_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("default") << QStringList{};
        QTest::newRow("tray") << QStringList{"tray"};
    }
    void noDisplayIsOneLineAndExit2()
    {
        QFETCH(QStringList, args);
        TestEnvironment env;
        QProcessEnvironment pe = env.processEnvironment();
        pe.remove("DISPLAY");
        pe.remove("WAYLAND_DISPLAY");
        pe.remove("QT_QPA_PLATFORM");
        const CliResult r = runWith(pe, args);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, QByteArray("no graphical session (DISPLAY/WAYLAND_DISPLAY unset): use chat2sbx serve\n"));
        QCOMPARE(r.out, QByteArray());
        // Nothing was started: no state written.
        QVERIFY(!QFile::exists(env.config().databasePath));
    }

    void groupWithoutSubcommandListsThem()
    {
        TestEnvironment env;
        const CliResult r = runCli(env, {"workspace"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("workspace add") && r.err.contains("workspace list"), r.err.constData());
        const CliResult help = runCli(env, {"approval", "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("approval approve") && help.out.contains("approval reject") && help.out.contains("approval list"));
    }

    void perCommandHelp()
    {
        TestEnvironment env;
        const CliResult r = runCli(env, {"audit", "--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("Usage: chat2sbx audit [--sandbox ID]"), r.out.constData());
        QVERIFY(r.out.contains("--follow"));
        QVERIFY(!r.out.contains("workspace add"));
        const CliResult w = runCli(env, {"help", "workspace", "add"});
        QCOMPARE(w.exitCode, 0);
        QVERIFY(w.out.contains("--mode"));
        for (const QByteArray &line : (r.out + w.out).split('\n'))
            QVERIFY2(!line.endsWith(' '), line.constData());
    }

    void statusSaysWhetherHostWorkspacesAreOn()
    {
        TestEnvironment env;
        const CliResult off = runCli(env, {"status"});
        QVERIFY2(off.out.contains("host workspaces: off"), off.out.constData());
        QVERIFY(off.out.contains("expose:     127.0.0.1 only"));
        const QString missing = env.root() + "/no-such-folder";
        env.set("CHAT2SBX_ALLOWED_HOST_ROOTS", missing + ":" + env.home());
        const CliResult on = runCli(env, {"status"});
        QVERIFY2(on.out.contains(QStringLiteral("host workspaces: on, roots %1, %2").arg(missing, env.home()).toUtf8()), on.out.constData());
        QVERIFY(on.out.contains(QStringLiteral("warning: allowed root %1 does not exist").arg(missing).toUtf8()));
        const QJsonObject json = QJsonDocument::fromJson(runCli(env, {"status", "--json"}).out).object();
        const QJsonObject hw = json.value("host_workspaces").toObject();
        QCOMPARE(hw.value("enabled").toBool(), true);
        QCOMPARE(hw.value("missing_roots").toArray(), QJsonArray{missing});
    }
};

QTEST_GUILESS_MAIN(CliStartupTest)
#include "tst_cli_startup.moc"
