// sbx as it fails in the field (reference/sbx-contract.md, "How sbx fails in the field"), through a
// real `chat2sbx serve` and the fake's fault knobs: a sandbox `sbx ls` leaves out is unreachable,
// never failed and never removed, across restarts; it comes back by itself with its files once sbx
// lists it again; an expired Docker session is shown as "sign in again"; a record an older chat2sbx
// marked failed for a listing that left it out comes back.
#include "McpTestClient.h"
#include "SandboxHarness.h"

#include "state/Database.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QJsonObject structured(const QJsonObject &result)
{
    return result.value(QStringLiteral("structuredContent")).toObject();
}

QString text(const QJsonObject &result)
{
    return McpTestClient::describe(result);
}

QJsonObject onlySandbox(McpTestClient &mcp)
{
    const QJsonArray items = structured(mcp.callToolResult(QStringLiteral("sandbox_list"))).value(QStringLiteral("sandboxes")).toArray();
    return items.size() == 1 ? items.at(0).toObject() : QJsonObject();
}

// The calls the fake logged of `command`.
int countCalls(const TestEnvironment &env, const QString &command)
{
    int n = 0;
    for (const QByteArray &line : readFile(env.sbxState() + QStringLiteral("/calls.log")).split('\n')) {
        const QJsonArray argv = QJsonDocument::fromJson(line).array();
        n += !argv.isEmpty() && argv.at(0).toString() == command;
    }
    return n;
}

// What the server's /healthz says of sbx.
QJsonObject sbxHealth(const TestEnvironment &env)
{
    const HttpResult h = httpRequest("GET", QStringLiteral("http://127.0.0.1:%1/healthz").arg(env.port()), {});
    return QJsonDocument::fromJson(h.body).object().value(QStringLiteral("sbx")).toObject();
}

void prepare(TestEnvironment &env)
{
    env.set(QStringLiteral("FAKE_SBX_TEMPLATES"), pinnedTemplate());
    env.set(QStringLiteral("FAKE_SBX_IDLE_STOP_MS"), QStringLiteral("600000"));
    env.set(QStringLiteral("CHAT2SBX_SBX_RECHECK_SECONDS"), QStringLiteral("1"));
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
}

// A sandbox made over MCP with a file in its HOME (what an agent installs lives there and in the
// VM's disk): its id.
QString sandboxWithAFile(McpTestClient &mcp)
{
    const QJsonObject created = mcp.callToolResult(QStringLiteral("sandbox_create"));
    const QString id = structured(created).value(QStringLiteral("sandbox_id")).toString();
    const QJsonObject wrote = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                 {QStringLiteral("command"), QStringLiteral("echo installed > ~/kept.txt && cat ~/kept.txt")}});
    return structured(wrote).value(QStringLiteral("output")).toString().contains(QLatin1String("installed")) ? id : QString();
}

// A serve started before this one made such a sandbox and stopped cleanly: its id, or empty.
QString madeByAnEarlierServe(const TestEnvironment &env)
{
    ServerProcess server(env);
    if (!server.start())
        return {};
    McpTestClient mcp(env.mcpUrl(), QStringLiteral("field-faults"));
    const QString id = mcp.open() ? sandboxWithAFile(mcp) : QString();
    return server.terminate() == 0 ? id : QString();
}

QString readKept(McpTestClient &mcp, const QString &id)
{
    const QJsonObject r = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                             {QStringLiteral("command"), QStringLiteral("cat ~/kept.txt")}});
    return r.value(QStringLiteral("isError")).toBool(true) ? text(r) : structured(r).value(QStringLiteral("output")).toString().trimmed();
}

} // namespace

class TestSbxFieldFaults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
        QVERIFY(!chat2sbxBinary().isEmpty());
    }

    // The reproduction: a restart while `sbx ls` lists nothing, then one once it lists the
    // sandbox again. Before, the first marked it failed for good and the second ran `sbx rm --force`.
    void anEmptyListingAcrossRestartsRemovesNothing()
    {
        TestEnvironment env;
        prepare(env);
        const QString id = madeByAnEarlierServe(env);
        QVERIFY2(!id.isEmpty(), "an earlier serve did not make a sandbox with a file");

        env.setSbxFaults({QStringLiteral("FAKE_SBX_LS_HIDE=all")});
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), QStringLiteral("field-faults"));
            QVERIFY(mcp.open());
            const QJsonObject s = onlySandbox(mcp);
            QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
            const QJsonObject unreachable = s.value(QStringLiteral("unreachable")).toObject();
            QVERIFY2(!unreachable.isEmpty(), qPrintable(mcp.lastBody));
            QVERIFY2(unreachable.value(QStringLiteral("why")).toString().contains(QLatin1String("lists none of chat2sbx's 1 sandboxes")),
                     qPrintable(mcp.lastBody));
            // A tool call on it says what is known and what brings it back.
            const QString refused = readKept(mcp, id);
            QVERIFY2(refused.contains(QLatin1String("is unreachable")) && refused.contains(QLatin1String("Nothing was removed")),
                     qPrintable(refused));
            // The user sees it too.
            const CliResult cli = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("list")});
            QVERIFY2(cli.out.contains("unreachable since"), cli.out.constData());
            QCOMPARE(server.terminate(), 0);
        }

        env.setSbxFaults({});
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), QStringLiteral("field-faults"));
            QVERIFY(mcp.open());
            const QJsonObject s = onlySandbox(mcp);
            QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
            QVERIFY2(!s.contains(QStringLiteral("unreachable")), qPrintable(mcp.lastBody));
            QCOMPARE(readKept(mcp, id), QStringLiteral("installed"));
            QCOMPARE(server.terminate(), 0);
        }
        QCOMPARE(countCalls(env, QStringLiteral("rm")), 0);
    }

    // sbx leaves the sandbox out at start-up, then lists it again: the
    // sandbox is back without a restart (serve lists again every CHAT2SBX_SBX_RECHECK_SECONDS while
    // one is left out), with its files, and nothing was removed.
    void comesBackByItselfWhileServing()
    {
        TestEnvironment env;
        prepare(env);
        const QString id = madeByAnEarlierServe(env);
        QVERIFY2(!id.isEmpty(), "an earlier serve did not make a sandbox with a file");
        env.setSbxFaults({QStringLiteral("FAKE_SBX_LS_HIDE=all")});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), QStringLiteral("field-faults"));
        QVERIFY(mcp.open());
        QVERIFY2(onlySandbox(mcp).contains(QStringLiteral("unreachable")), qPrintable(mcp.lastBody));
        // Still left out a few listings later: counted, still kept.
        QVERIFY(waitFor([&] {
            return onlySandbox(mcp).value(QStringLiteral("unreachable")).toObject().value(QStringLiteral("listings_missed")).toInt() >= 3;
        }, 20000));
        env.setSbxFaults({});
        QVERIFY(waitFor([&] { return !onlySandbox(mcp).contains(QStringLiteral("unreachable")); }, 20000));
        QCOMPARE(onlySandbox(mcp).value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        QCOMPARE(readKept(mcp, id), QStringLiteral("installed"));
        QCOMPARE(countCalls(env, QStringLiteral("rm")), 0);
        QCOMPARE(server.terminate(), 0);
    }

    // An expired Docker session (sbx lists nothing and starts a sign-in) is "sign in again", not
    // sandboxes gone.
    void anExpiredSessionIsShownAsSignInAgain()
    {
        TestEnvironment env;
        prepare(env);
        const QString id = madeByAnEarlierServe(env);
        QVERIFY2(!id.isEmpty(), "an earlier serve did not make a sandbox with a file");
        env.setSbxFaults({QStringLiteral("FAKE_SBX_SESSION_EXPIRED=1")});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), QStringLiteral("field-faults"));
        QVERIFY(mcp.open());
        const QJsonObject s = onlySandbox(mcp);
        const QString why = s.value(QStringLiteral("unreachable")).toObject().value(QStringLiteral("why")).toString();
        QVERIFY2(why.contains(QLatin1String("sign in to Docker again")) && why.contains(QLatin1String("sbx login")),
                 qPrintable(mcp.lastBody));
        QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        // Signed in again: back by itself, files intact.
        env.setSbxFaults({});
        QVERIFY(waitFor([&] { return !onlySandbox(mcp).contains(QStringLiteral("unreachable")); }, 20000));
        QCOMPARE(readKept(mcp, id), QStringLiteral("installed"));
        QCOMPARE(countCalls(env, QStringLiteral("rm")), 0);
        QCOMPARE(server.terminate(), 0);
    }

    // A record the previous version marked failed ("its runtime disappeared") whose VM sbx lists
    // again is recovered, with its files, and its VM is not removed.
    void aRecordAnOlderVersionFailedComesBack()
    {
        TestEnvironment env;
        prepare(env);
        const QString id = madeByAnEarlierServe(env);
        QVERIFY2(!id.isEmpty(), "an earlier serve did not make a sandbox with a file");
        {
            SandboxHarness old(env);
            QString error;
            QVERIFY(old.records.setState(id, SandboxState::Failed,
                                         QStringLiteral("its runtime disappeared (sbx ls no longer lists it); destroy it and "
                                                        "create a new one"),
                                         old.clock.nowMs(), error));
        }
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), QStringLiteral("field-faults"));
        QVERIFY(mcp.open());
        const QJsonObject s = onlySandbox(mcp);
        QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        QVERIFY2(!s.contains(QStringLiteral("failure_reason")), qPrintable(mcp.lastBody));
        QCOMPARE(readKept(mcp, id), QStringLiteral("installed"));
        QCOMPARE(countCalls(env, QStringLiteral("rm")), 0);
        QCOMPARE(server.terminate(), 0);
    }

    // A lock in sbx's daemon hangs every command, `sbx version` included: MCP still answers at once,
    // the sandbox records stay as they are, sbx work waits in one line instead of piling up
    // processes, status says what is wrong and what fixes it; once sbx answers, all is back.
    void aHungSbxLeavesMcpAnsweringAndPilesNothingUp()
    {
        TestEnvironment env;
        prepare(env);
        env.set(QStringLiteral("CHAT2SBX_SBX_TIMEOUT_SECONDS"), QStringLiteral("1"));
        const QString id = madeByAnEarlierServe(env);
        QVERIFY2(!id.isEmpty(), "an earlier serve did not make a sandbox with a file");
        env.setSbxFaults({QStringLiteral("FAKE_SBX_HANG_ALL=1")});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), QStringLiteral("field-faults"));
        QVERIFY(mcp.open());
        // sbx answers nothing: after a few commands ran into their deadlines the server says so.
        QVERIFY2(waitFor([&] { return sbxHealth(env).value(QStringLiteral("state")).toString() == QLatin1String("not_answering"); },
                         30000),
                 qPrintable(QJsonDocument(sbxHealth(env)).toJson()));
        QVERIFY2(sbxHealth(env).value(QStringLiteral("problem")).toString().contains(QLatin1String("stuck on a lock")),
                 qPrintable(QJsonDocument(sbxHealth(env)).toJson()));
        // MCP answers at once meanwhile.
        for (int i = 0; i < 5; ++i) {
            QElapsedTimer t;
            t.start();
            QCOMPARE(mcp.request(QStringLiteral("tools/list")).status, 200);
            const QJsonObject s = onlySandbox(mcp);
            QVERIFY2(t.elapsed() < 1000, qPrintable(QStringLiteral("tools/list and sandbox_list took %1 ms").arg(t.elapsed())));
            QVERIFY2(s.value(QStringLiteral("state")).toString() == QLatin1String("running"), qPrintable(mcp.lastBody));
        }
        // A call that needs sbx says why it cannot go on, with its deadline.
        QElapsedTimer t;
        t.start();
        const QString refused = readKept(mcp, id);
        QVERIFY2(refused.contains(QLatin1String("sbx is not available")) || refused.contains(QLatin1String("did not answer")),
                 qPrintable(refused));
        QVERIFY2(t.elapsed() < scaled(10000), qPrintable(QString::number(t.elapsed())));
        // No pile of hung sbx processes: one command of the line at a time (plus none left over).
        const QByteArray tag = "FAKE_SBX_STATE=" + env.sbxState().toUtf8();
        int most = 0;
        for (int i = 0; i < 20; ++i) {
            int hung = 0;
            for (const ProcessInfo &p : processesWithEnvironment(tag))
                hung += p.argv.size() > 1 && !p.argv.at(1).startsWith(QLatin1String("__"));
            most = qMax(most, hung);
            QTest::qWait(100);
        }
        QVERIFY2(most <= 2, qPrintable(QStringLiteral("%1 sbx processes at once").arg(most)));
        // The CLI's status tells the user too.
        const CliResult status = runCli(env, {QStringLiteral("status")});
        QVERIFY2(status.out.contains("stuck on a lock"), status.out.constData());

        // sbx answers again: back to work, nothing removed, the file intact.
        env.setSbxFaults({});
        QVERIFY2(waitFor([&] { return sbxHealth(env).value(QStringLiteral("state")).toString() == QLatin1String("ready"); }, 30000),
                 qPrintable(QJsonDocument(sbxHealth(env)).toJson()));
        QVERIFY(waitFor([&] { return readKept(mcp, id) == QLatin1String("installed"); }, 20000));
        QCOMPARE(countCalls(env, QStringLiteral("rm")), 0);
        QCOMPARE(server.terminate(), 0);
    }

    // After an update sbx asks to restart its daemon (which stops every sandbox): chat2sbx never
    // answers, the call says what restarting would do and how to do it, status shows it, and no
    // sandbox stopped until the user confirmed `chat2sbx sbx restart`. No sandbox executor: creates fail with sbx's text, the running sandbox works.
    void theUpdateQuestionIsNeverAnsweredAndNoExecutorFailsOnlyCreates()
    {
        TestEnvironment env;
        prepare(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), QStringLiteral("field-faults"));
        QVERIFY(mcp.open());
        const QString id = sandboxWithAFile(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));

        const QString vms = env.sbxState() + QStringLiteral("/sandboxes");
        const QStringList vmsBefore = QDir(vms).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(vmsBefore.size(), 1);
        env.setSbxFaults({QStringLiteral("FAKE_SBX_NO_EXECUTOR=1")});
        const QJsonObject refused = mcp.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("memory"), QStringLiteral("1g")}});
        QVERIFY2(refused.value(QStringLiteral("isError")).toBool() && text(refused).contains(QLatin1String("no sandbox executor available")),
                 qPrintable(mcp.lastBody));
        QCOMPARE(readKept(mcp, id), QStringLiteral("installed"));

        env.setSbxFaults({QStringLiteral("FAKE_SBX_UPDATE_PENDING=1")});
        const QJsonObject asked = mcp.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("memory"), QStringLiteral("1g")}});
        QVERIFY2(asked.value(QStringLiteral("isError")).toBool() && text(asked).contains(QLatin1String("never answers that question"))
                     && text(asked).contains(QLatin1String("stops every running sandbox")),
                 qPrintable(mcp.lastBody));
        QVERIFY2(waitFor([&] { return sbxHealth(env).value(QStringLiteral("state")).toString() == QLatin1String("update_pending"); }, 10000),
                 qPrintable(QJsonDocument(sbxHealth(env)).toJson()));
        // Nothing stopped the sandbox: its VM still runs and its work goes on through its channel.
        QCOMPARE(readKept(mcp, id), QStringLiteral("installed"));
        // (the fake's own `ls` asks the question too: read its records of the VMs instead)
        for (const QString &vm : vmsBefore) {
            const QJsonObject meta = QJsonDocument::fromJson(readFile(vms + QLatin1Char('/') + vm + QStringLiteral("/meta.json"))).object();
            QCOMPARE(meta.value(QStringLiteral("status")).toString(), QStringLiteral("running"));
        }

        // The user's way to answer it: `chat2sbx sbx restart` names what will stop and asks first
        // (no terminal and no --yes: nothing is restarted), then restarts on --yes.
        const CliResult confirmFirst = runCli(env, {QStringLiteral("sbx"), QStringLiteral("restart")});
        QCOMPARE(confirmFirst.exitCode, 2);
        QVERIFY2(confirmFirst.err.contains(id.toUtf8()) && confirmFirst.err.contains("nothing was restarted"), confirmFirst.err.constData());
        QCOMPARE(QJsonDocument::fromJson(readFile(vms + QLatin1Char('/') + vmsBefore.first() + QStringLiteral("/meta.json")))
                     .object().value(QStringLiteral("status")).toString(),
                 QStringLiteral("running"));
        const CliResult restarted = runCli(env, {QStringLiteral("sbx"), QStringLiteral("restart"), QStringLiteral("--yes")}, 60000);
        QVERIFY2(restarted.exitCode == 0 && restarted.out.contains("daemon restarted"), restarted.out + restarted.err);
        QCOMPARE(QJsonDocument::fromJson(readFile(vms + QLatin1Char('/') + vmsBefore.first() + QStringLiteral("/meta.json")))
                     .object().value(QStringLiteral("status")).toString(),
                 QStringLiteral("stopped"));
        // The sandbox wakes on its next call with its files.
        QVERIFY(waitFor([&] { return readKept(mcp, id) == QLatin1String("installed"); }, 30000));

        // Answered: the next command is answered, the state is back.
        env.setSbxFaults({});
        const QJsonObject made = mcp.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("memory"), QStringLiteral("1g")}});
        QVERIFY2(!made.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY2(waitFor([&] { return sbxHealth(env).value(QStringLiteral("state")).toString() == QLatin1String("ready"); }, 20000),
                 qPrintable(QJsonDocument(sbxHealth(env)).toJson()));
        // `sbx rm` ran only for the creates that failed (never for the sandbox that was there).
        QVERIFY(QDir(vms + QLatin1Char('/') + vmsBefore.first()).exists());
        QCOMPARE(countCalls(env, QStringLiteral("stop")), 0);
        QCOMPARE(server.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSbxFieldFaults)
#include "tst_sbx_field_faults.moc"
