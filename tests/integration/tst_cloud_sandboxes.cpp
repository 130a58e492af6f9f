// Sandboxes in Docker's cloud (reference/sbx-cloud.md), through a real `chat2sbx serve` over MCP
// against the fake sbx's cloud store:
// - a cloud scratch sandbox: bash, write and read, a long command polled, destroy; placement, size
//   and expiry shown; nothing of it in the local `sbx ls`, no internal name in any answer;
// - refusals that name the setting: cloud sandboxes off, a size over cloudMaxSize, size or ttl for a
//   local sandbox, a ttl past 24 h;
// - `auto` placement goes to the cloud when local sbx does not answer, and that host serves sandboxes;
// - expiry seen by the reconciler: stopped by the cloud (then started again on the next call), or
//   deleted by it (marked gone, never made again);
// - kill -9 of serve during a cloud create: the next start removes what the cloud made.
#include "CloudSupport.h"
#include "McpTestClient.h"
#include "SandboxHarness.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QJsonObject listed(const TestEnvironment &env, const QString &id)
{
    const CliResult r = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("list"), QStringLiteral("--json")});
    for (const QJsonValue &v : QJsonDocument::fromJson(r.out).object().value(QStringLiteral("sandboxes")).toArray())
        if (v.toObject().value(QStringLiteral("sandbox_id")).toString() == id)
            return v.toObject();
    return {};
}

void enableCloud(TestEnvironment &env)
{
    env.set(QStringLiteral("FAKE_SBX_TEMPLATES"), pinnedTemplate());
    env.set(QStringLiteral("CHAT2SBX_CLOUD_SANDBOXES"), QStringLiteral("1"));
    env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
    env.set(QStringLiteral("CHAT2SBX_SBX_RECHECK_SECONDS"), QStringLiteral("1"));
}

// Calls bash until its output starts with `expected`: a stopped cloud sandbox first answers that it is
// being started again, to call again.
bool bashAnswers(McpTestClient &mcp, const QString &id, const QString &command, const QString &expected)
{
    return waitFor([&] {
        const QJsonObject r = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                        {QStringLiteral("command"), command}});
        return !r.value(QStringLiteral("isError")).toBool() && structured(r).value(QStringLiteral("output")).toString().startsWith(expected);
    }, 20000);
}

QJsonObject bashIn(McpTestClient &mcp, const QString &id, const QString &command)
{
    return structured(mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                 {QStringLiteral("command"), command},
                                                                 {QStringLiteral("yield_time_ms"), 30000}}));
}

const QString kAgentCommits = QStringLiteral("printf 'alpha\\nbeta\\n' > a.txt && git -c user.name=agent -c user.email=agent@example.com "
                                             "commit -qam 'agent: add beta' && echo draft > notes.txt");

} // namespace

class TestCloudSandboxes : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
    }

    void aCloudScratchSandboxWorksAndGoes()
    {
        TestEnvironment env;
        enableCloud(env);
        env.set(QStringLiteral("CHAT2SBX_CLOUD_MAX_SIZE"), QStringLiteral("medium"));
        SandboxHarness observer(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());

        const QJsonObject made = mcp.callToolResult(QStringLiteral("sandbox_create"),
                                                    {{QStringLiteral("placement"), QStringLiteral("cloud")},
                                                     {QStringLiteral("size"), QStringLiteral("micro")},
                                                     {QStringLiteral("ttl"), QStringLiteral("2h")}});
        QVERIFY2(!made.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        const QJsonObject s = structured(made);
        const QString id = s.value(QStringLiteral("sandbox_id")).toString();
        QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        QCOMPARE(s.value(QStringLiteral("placement")).toString(), QStringLiteral("cloud"));
        QCOMPARE(s.value(QStringLiteral("cloud")).toObject().value(QStringLiteral("size")).toString(), QStringLiteral("micro"));
        QVERIFY2(!s.value(QStringLiteral("cloud")).toObject().value(QStringLiteral("expires_at")).toString().isEmpty(), qPrintable(mcp.lastBody));
        QCOMPARE(s.value(QStringLiteral("workspace_path")).toString(), QStringLiteral("~/workspace"));
        observer.checkLeaks(mcp.lastBody);
        // Its scratch is in the VM: no folder of this computer was made for it.
        const CliResult workspaces = runCli(env, {QStringLiteral("workspace"), QStringLiteral("list"), QStringLiteral("--json")});
        QString hostPath;
        for (const QJsonValue &v : QJsonDocument::fromJson(workspaces.out).array())
            if (v.toObject().value(QStringLiteral("workspace_id")) == s.value(QStringLiteral("workspace_id")))
                hostPath = v.toObject().value(QStringLiteral("host_path")).toString();
        QVERIFY2(!hostPath.isEmpty(), workspaces.out.constData());
        QVERIFY2(!QFileInfo::exists(hostPath), qPrintable(hostPath));
        // In the cloud's list, with the size asked for and the time-to-live; not in the local one.
        const QJsonArray rows = cloudRows(env);
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows.first().toObject().value(QStringLiteral("memory_mib")).toInt(), 2048);
        QVERIFY(observer.runtimes().isEmpty());

        const QJsonObject bash = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                          {QStringLiteral("command"), QStringLiteral("echo hi > f.txt; cat f.txt; pwd")}});
        QVERIFY2(!bash.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY2(structured(bash).value(QStringLiteral("output")).toString().startsWith(QLatin1String("hi\n")), qPrintable(mcp.lastBody));
        observer.checkLeaks(mcp.lastBody);
        const QJsonObject wrote = mcp.callToolResult(QStringLiteral("write"), {{QStringLiteral("sandbox_id"), id},
                                                                            {QStringLiteral("path"), QStringLiteral("notes/plan.md")},
                                                                            {QStringLiteral("content"), QStringLiteral("step 1\n")}});
        QVERIFY2(!wrote.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        const QJsonObject read = mcp.callToolResult(QStringLiteral("read"), {{QStringLiteral("sandbox_id"), id},
                                                                          {QStringLiteral("path"), QStringLiteral("~/workspace/notes/plan.md")}});
        QVERIFY2(text(read).contains(QLatin1String("step 1")), qPrintable(mcp.lastBody));

        // A long command: answered while it runs, then polled to its end.
        const QJsonObject started = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                             {QStringLiteral("command"), QStringLiteral("sleep 1.5; echo done")},
                                                                             {QStringLiteral("yield_time_ms"), 200}});
        QCOMPARE(structured(started).value(QStringLiteral("status")).toString(), QStringLiteral("running"));
        const QString session = structured(started).value(QStringLiteral("session_id")).toString();
        QString status, output;
        QVERIFY(waitFor([&] {
            const QJsonObject p = mcp.callToolResult(QStringLiteral("bash_poll"), {{QStringLiteral("sandbox_id"), id},
                                                                                 {QStringLiteral("session_id"), session},
                                                                                 {QStringLiteral("yield_time_ms"), 1000}});
            status = structured(p).value(QStringLiteral("status")).toString();
            output += structured(p).value(QStringLiteral("output")).toString();
            return status == QLatin1String("exited");
        }, 30000));
        QVERIFY2(output.contains(QLatin1String("done")), qPrintable(output));

        QCOMPARE(listed(env, id).value(QStringLiteral("placement")).toString(), QStringLiteral("cloud"));
        const QJsonObject destroyed = mcp.callToolResult(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}});
        QVERIFY2(!destroyed.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY(cloudRows(env).isEmpty());
        QCOMPARE(server.terminate(), 0);
    }

    // Pause works on a cloud sandbox as on a local one: `sbx --cloud stop`, then the next call starts it
    // again there (billing stops meanwhile).
    // A cloud sandbox's port is a public URL only once the user approved it: sandbox_expose waits
    // (approval_id), `chat2sbx approval approve pub_…` publishes it and prints the URL, the next
    // sandbox_expose returns it, sandbox_unexpose takes it off the internet (the cloud lists it no
    // more), and a rejected request is told to the agent.
    void aPublicPortWaitsForTheUserAndIsUnpublished()
    {
        TestEnvironment env;
        enableCloud(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const QString id = createInCloud(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        const QJsonObject port{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("port"), 3000}};

        // Host bindings do not exist in the cloud.
        QVERIFY(mcp.callToolResult(QStringLiteral("sandbox_expose"), {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("port"), 3000},
                                                                       {QStringLiteral("host_port"), 8080}})
                    .value(QStringLiteral("isError")).toBool());
        const QJsonObject asked = structured(mcp.callToolResult(QStringLiteral("sandbox_expose"), port));
        QCOMPARE(asked.value(QStringLiteral("status")).toString(), QStringLiteral("waiting_for_user"));
        QCOMPARE(asked.value(QStringLiteral("public")).toBool(), true);
        const QString approval = asked.value(QStringLiteral("approval_id")).toString();
        QVERIFY2(approval.startsWith(QLatin1String("pub_")), qPrintable(mcp.lastBody));
        QVERIFY(!asked.contains(QStringLiteral("url")));
        // Asking again is the same request; nothing is published yet.
        QCOMPARE(structured(mcp.callToolResult(QStringLiteral("sandbox_expose"), port)).value(QStringLiteral("approval_id")).toString(),
                 approval);
        QVERIFY(cloudRows(env).first().toObject().value(QStringLiteral("ports")).toArray().isEmpty());
        const CliResult listed = runCli(env, {QStringLiteral("approval"), QStringLiteral("list"), QStringLiteral("--json")});
        QVERIFY2(listed.out.contains(approval.toUtf8()) && listed.out.contains("\"public_port\""), listed.out.constData());

        const CliResult approved = runCli(env, {QStringLiteral("approval"), QStringLiteral("approve"), approval}, 90000);
        QVERIFY2(approved.exitCode == 0 && approved.out.contains("is public at https://"), (approved.out + approved.err).constData());
        const QJsonObject published = structured(mcp.callToolResult(QStringLiteral("sandbox_expose"), port));
        QCOMPARE(published.value(QStringLiteral("status")).toString(), QStringLiteral("published"));
        const QString url = published.value(QStringLiteral("url")).toString();
        QVERIFY2(url.startsWith(QLatin1String("https://")), qPrintable(mcp.lastBody));
        QVERIFY2(QJsonDocument(cloudRows(env)).toJson().contains(url.toUtf8()), qPrintable(url));

        const QJsonObject off = mcp.callToolResult(QStringLiteral("sandbox_unexpose"), port);
        QVERIFY2(!off.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QVERIFY(!QJsonDocument(cloudRows(env)).toJson().contains(url.toUtf8()));
        QVERIFY(mcp.callToolResult(QStringLiteral("sandbox_unexpose"), port).value(QStringLiteral("isError")).toBool());

        // Asked again: a new request; rejected, the agent is told not to ask again.
        const QString again = structured(mcp.callToolResult(QStringLiteral("sandbox_expose"), port)).value(QStringLiteral("approval_id")).toString();
        QVERIFY2(again.startsWith(QLatin1String("pub_")) && again != approval, qPrintable(mcp.lastBody));
        QCOMPARE(runCli(env, {QStringLiteral("approval"), QStringLiteral("reject"), again}).exitCode, 0);
        const QJsonObject refused = mcp.callToolResult(QStringLiteral("sandbox_expose"), port);
        QVERIFY(refused.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(refused).contains(QLatin1String("did not allow")), qPrintable(text(refused)));
        QVERIFY(!mcp.callToolResult(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}}).value(QStringLiteral("isError")).toBool(true));
    }

    // A cloud sandbox's network approval goes to the cloud's own policy store, one pattern a call,
    // never to this computer's; an always rule (this computer's store) is refused for it.
    void aCloudSandboxesNetworkRuleGoesToTheCloudStore()
    {
        TestEnvironment env;
        enableCloud(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const QString id = createInCloud(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        const QJsonObject args{{QStringLiteral("sandbox_id"), id},
                               {QStringLiteral("hosts"), QJsonArray{QStringLiteral("api.example.com"), QStringLiteral("cdn.example.com")}}};
        const QString request = structured(mcp.callToolResult(QStringLiteral("network_request"), args)).value(QStringLiteral("request_id")).toString();
        QVERIFY2(request.startsWith(QLatin1String("net_")), qPrintable(mcp.lastBody));
        const CliResult always = runCli(env, {QStringLiteral("network"), QStringLiteral("allow"), request, QStringLiteral("--always")});
        QVERIFY2(always.exitCode != 0 && always.err.contains("Docker's cloud"), (always.out + always.err).constData());
        const CliResult allowed = runCli(env, {QStringLiteral("network"), QStringLiteral("allow"), request});
        QVERIFY2(allowed.exitCode == 0, (allowed.out + allowed.err).constData());
        QCOMPARE(structured(mcp.callToolResult(QStringLiteral("network_request"), args)).value(QStringLiteral("status")).toString(),
                 QStringLiteral("allowed"));
        const QByteArray cloudRules = runFakeSbx(env, {QStringLiteral("--cloud"), QStringLiteral("policy"), QStringLiteral("ls")}).out;
        QVERIFY2(cloudRules.contains("api.example.com") && cloudRules.contains("cdn.example.com"), cloudRules.constData());
        const QByteArray localRules = runFakeSbx(env, {QStringLiteral("policy"), QStringLiteral("ls")}).out;
        QVERIFY2(!localRules.contains("api.example.com"), localRules.constData());
        QVERIFY(!mcp.callToolResult(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}}).value(QStringLiteral("isError")).toBool(true));
    }

    void aCloudSandboxPausesAndComesBack()
    {
        TestEnvironment env;
        enableCloud(env);
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const QString id = createInCloud(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QVERIFY(!mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                           {QStringLiteral("command"), QStringLiteral("echo kept > k.txt")}})
                     .value(QStringLiteral("isError")).toBool(true));
        const CliResult paused = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("pause"), id});
        QVERIFY2(paused.exitCode == 0, paused.err.constData());
        QCOMPARE(listed(env, id).value(QStringLiteral("state")).toString(), QStringLiteral("stopped"));
        QCOMPARE(cloudRows(env).first().toObject().value(QStringLiteral("status")).toString(), QStringLiteral("stopped"));
        QVERIFY(bashAnswers(mcp, id, QStringLiteral("cat k.txt"), QStringLiteral("kept")));
        QCOMPARE(cloudRows(env).first().toObject().value(QStringLiteral("status")).toString(), QStringLiteral("running"));
        QCOMPARE(server.terminate(), 0);
    }

    void refusalsNameTheSetting()
    {
        TestEnvironment env;
        enableCloud(env);
        env.set(QStringLiteral("CHAT2SBX_CLOUD_SANDBOXES"), QStringLiteral("0"));
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const auto create = [&](const QJsonObject &args) { return mcp.callToolResult(QStringLiteral("sandbox_create"), args); };
        QJsonObject r = create({{QStringLiteral("placement"), QStringLiteral("cloud")}});
        QVERIFY(r.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(r).contains(QLatin1String("cloudSandboxes")) && text(r).contains(QLatin1String("billed")), qPrintable(text(r)));
        r = create({{QStringLiteral("size"), QStringLiteral("micro")}});
        QVERIFY2(r.value(QStringLiteral("isError")).toBool() && text(r).contains(QLatin1String("placement cloud")), qPrintable(text(r)));
        QVERIFY(cloudRows(env).isEmpty());
        QCOMPARE(server.terminate(), 0);

        env.set(QStringLiteral("CHAT2SBX_CLOUD_SANDBOXES"), QStringLiteral("1"));
        ServerProcess again(env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        McpTestClient mcp2(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp2.open());
        r = mcp2.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("placement"), QStringLiteral("cloud")},
                                                                 {QStringLiteral("size"), QStringLiteral("large")}});
        QVERIFY2(r.value(QStringLiteral("isError")).toBool() && text(r).contains(QLatin1String("cloudMaxSize")), qPrintable(text(mcp2.callToolResult(QStringLiteral("sandbox_list")))));
        r = mcp2.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("placement"), QStringLiteral("cloud")},
                                                                 {QStringLiteral("ttl"), QStringLiteral("25h")}});
        QVERIFY2(r.value(QStringLiteral("isError")).toBool() && text(r).contains(QLatin1String("24 hours")), qPrintable(text(r)));
        QVERIFY(cloudRows(env).isEmpty());
        QCOMPARE(again.terminate(), 0);
    }

    // `chat2sbx status`: an optional row, off by default; once on, `sbx --cloud diagnose` decides.
    void statusSaysWhetherTheCloudIsUsable()
    {
        TestEnvironment env;
        env.set(QStringLiteral("CHAT2SBX_ENABLE_TUNNEL"), QStringLiteral("0"));
        CliResult r = runCli(env, {QStringLiteral("status"), QStringLiteral("--json")});
        QCOMPARE(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("cloud")).toObject().value(QStringLiteral("state")).toString(),
                 QStringLiteral("off"));
        QVERIFY(runCli(env, {QStringLiteral("status")}).out.contains("cloud:      off"));
        enableCloud(env);
        env.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_NO_PLAN=1")});
        r = runCli(env, {QStringLiteral("status")});
        QVERIFY2(r.out.contains("cloud:      not usable") && r.out.contains("Agentic Platform"), r.out.constData());
        QVERIFY2(r.err.contains("Docker's cloud is not usable"), r.err.constData());
        // The first-run guide's row says it too, with the command that tells which check fails.
        QVERIFY2(r.out.contains("[to do] Docker cloud sandboxes") && r.out.contains("sbx --cloud diagnose"), r.out.constData());
        env.setSbxFaults({});
        r = runCli(env, {QStringLiteral("status"), QStringLiteral("--json")});
        QCOMPARE(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("cloud")).toObject().value(QStringLiteral("state")).toString(),
                 QStringLiteral("ready"));
        QVERIFY2(runCli(env, {QStringLiteral("status")}).out.contains("[done] Docker cloud sandboxes"), r.out.constData());

        // A running server's own check (the tray's guide reads it): cloud ready, and a host whose local
        // sbx does not answer but makes its sandboxes in the cloud needs nothing more.
        env.set(QStringLiteral("CHAT2SBX_DEFAULT_PLACEMENT"), QStringLiteral("cloud"));
        env.setSbxFaults({QStringLiteral("FAKE_SBX_UPDATE_PENDING=1")});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        QString text;
        QVERIFY2(waitFor([&] {
            text = QString::fromUtf8(runCli(env, {QStringLiteral("status")}).out);
            // Right after the start the server may not have looked at sbx yet: its row says [checking]
            // (and the steps after it [blocked]) while the cloud's may already be done.
            return text.contains(QLatin1String("[done] Docker cloud sandboxes")) && !text.contains(QLatin1String("[checking]"));
        }, 20000), qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("[to do]")) && !text.contains(QLatin1String("[blocked]")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("[optional] Sandbox template prepared")) &&
                     text.contains(QLatin1String("Not needed while sandboxes are made in Docker's cloud")), qPrintable(text));
        // The check found the question, and the cloud's diagnose (which needs no local daemon)
        // answering does not hide it; the check then stays on its schedule.
        const QJsonObject sbx = QJsonDocument::fromJson(runCli(env, {QStringLiteral("status"), QStringLiteral("--json")}).out)
                                    .object().value(QStringLiteral("sbx")).toObject();
        QVERIFY2(sbx.value(QStringLiteral("state")).toString() == QLatin1String("update_pending")
                     && sbx.value(QStringLiteral("version")).toString() == QLatin1String("v0.47.0"),
                 QJsonDocument(sbx).toJson().constData());
        const SandboxHarness observer(env);
        const int versionsAsked = observer.countCalls(QStringLiteral("version"));
        QTest::qWait(2000);
        QCOMPARE(observer.countCalls(QStringLiteral("version")), versionsAsked);
        QCOMPARE(server.terminate(), 0);
    }

    // A host whose local sbx does not answer (no KVM, no local runtime) but whose cloud does.
    void autoPlacementServesFromTheCloudWhenLocalSbxFails()
    {
        TestEnvironment env;
        enableCloud(env);
        env.set(QStringLiteral("CHAT2SBX_DEFAULT_PLACEMENT"), QStringLiteral("auto"));
        env.setSbxFaults({QStringLiteral("FAKE_SBX_FAIL_LS=ERROR: 500 Internal Server Error: failed to start runtime: no sandbox executor available")});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const QJsonObject made = mcp.callToolResult(QStringLiteral("sandbox_create"));
        QVERIFY2(!made.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(structured(made).value(QStringLiteral("placement")).toString(), QStringLiteral("cloud"));
        const QString id = structured(made).value(QStringLiteral("sandbox_id")).toString();
        const QJsonObject bash = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                          {QStringLiteral("command"), QStringLiteral("echo from the cloud")}});
        QVERIFY2(structured(bash).value(QStringLiteral("output")).toString().contains(QLatin1String("from the cloud")), qPrintable(mcp.lastBody));
        QCOMPARE(server.terminate(), 0);
    }

    void expiryIsSeenNeverRecreated()
    {
        TestEnvironment env;
        enableCloud(env);
        // An hour of the cloud's time is 3.6 s here.
        env.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_TIME_SCALE=0.001")});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const QString id = createInCloud(mcp, {{QStringLiteral("ttl"), QStringLiteral("1h")}});
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        // Stopped by the cloud (--on-timeout stop): seen within a few listings, files kept.
        QVERIFY2(waitFor([&] { return listed(env, id).value(QStringLiteral("state")).toString() == QLatin1String("stopped"); }, 20000),
                 qPrintable(QJsonDocument(listed(env, id)).toJson()));
        QVERIFY(QJsonDocument(listed(env, id)).toJson().contains("time-to-live"));
        QVERIFY2(listed(env, id).value(QStringLiteral("cloud")).toObject().value(QStringLiteral("at_end")).toString()
                     .startsWith(QLatin1String("stopped, its files kept")), qPrintable(QJsonDocument(listed(env, id)).toJson()));
        QCOMPARE(cloudRows(env).size(), 1);
        // The next call starts it again in the cloud (it says to call again meanwhile).
        QVERIFY(bashAnswers(mcp, id, QStringLiteral("echo back"), QStringLiteral("back")));
        QCOMPARE(cloudRows(env).size(), 1);   // the same sandbox, not a new one
        QCOMPARE(server.terminate(), 0);

        // An account that cannot stop: expiry deletes, and the record says it is gone.
        TestEnvironment env2;
        enableCloud(env2);
        env2.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_TIME_SCALE=0.001"), QStringLiteral("FAKE_SBX_CLOUD_NO_STOP=1")});
        ServerProcess server2(env2);
        QVERIFY2(server2.start(), qPrintable(server2.output()));
        McpTestClient mcp2(env2.mcpUrl(), "cloud-test");
        QVERIFY(mcp2.open());
        const QString id2 = createInCloud(mcp2, {{QStringLiteral("ttl"), QStringLiteral("1h")}});
        QVERIFY2(!id2.isEmpty(), qPrintable(mcp2.lastBody));
        // The create's answer says what its end does on this account.
        QVERIFY2(mcp2.lastBody.contains("deleted with its files: this Docker account cannot stop cloud sandboxes"),
                 qPrintable(mcp2.lastBody));
        QVERIFY2(waitFor([&] { return listed(env2, id2).isEmpty(); }, 20000), qPrintable(QJsonDocument(listed(env2, id2)).toJson()));
        const QJsonObject gone = mcp2.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id2}});
        QVERIFY2(QJsonDocument(gone).toJson().contains("gone from Docker's cloud"), qPrintable(mcp2.lastBody));
        QTest::qWait(2500);   // more listings: still nothing made again
        QVERIFY(cloudRows(env2).isEmpty());
        QCOMPARE(server2.terminate(), 0);
    }

    // A clone workspace in the cloud: no host mount there, so the repository's checked-out commit goes
    // in (its branch name, its history); the agent's commit and uncommitted file come home as branch
    // chat2sbx/<id> through export_changes, and again through the destroy guard. The host checkout is
    // left as it was; a direct folder is refused with the reason.
    void aCloneWorkspaceInTheCloudComesHome()
    {
        TestEnvironment env;
        enableCloud(env);
        const QString repo = QDir(env.root()).canonicalPath() + QStringLiteral("/repos/project");
        const QString workspaceId = cloneWorkspace(env, repo);
        QVERIFY(workspaceId.startsWith(QLatin1String("ws_")));
        const QString hostHead = gitLine(repo, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());

        const QJsonObject made = mcp.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("placement"), QStringLiteral("cloud")},
                                                                                    {QStringLiteral("workspace_id"), workspaceId}}, 120000);
        QVERIFY2(!made.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        const QString id = structured(made).value(QStringLiteral("sandbox_id")).toString();
        QCOMPARE(structured(made).value(QStringLiteral("workspace_mode")).toString(), QStringLiteral("clone"));
        QVERIFY2(structured(made).value(QStringLiteral("cloud")).toObject().value(QStringLiteral("work_lives")).toString()
                     .contains(QStringLiteral("chat2sbx/") + id), qPrintable(mcp.lastBody));
        QVERIFY(SandboxHarness(env).runtimes().isEmpty());   // nothing of it on this computer
        // The clone in the VM: the host's commit, on its branch, clean.
        const QJsonObject seen = bashIn(mcp, id, QStringLiteral("git rev-parse HEAD; git symbolic-ref --short HEAD; git status --porcelain; cat a.txt"));
        QCOMPARE(seen.value(QStringLiteral("output")).toString(), hostHead + QStringLiteral("\nmain\nalpha\n"));

        QCOMPARE(bashIn(mcp, id, kAgentCommits).value(QStringLiteral("exit_code")).toInt(-1), 0);
        const QJsonObject changes = structured(mcp.callToolResult(QStringLiteral("show_changes"), {{QStringLiteral("sandbox_id"), id}}));
        QCOMPARE(changes.value(QStringLiteral("commits")).toArray().size(), 1);
        const QJsonObject exported = mcp.callToolResult(QStringLiteral("export_changes"), {{QStringLiteral("sandbox_id"), id}}, 120000);
        QVERIFY2(!exported.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        const QString branch = QStringLiteral("chat2sbx/") + id;
        QCOMPARE(gitLine(repo, {QStringLiteral("log"), QStringLiteral("--format=%s"), QStringLiteral("main..") + branch}),
                 QStringLiteral("chat2sbx: uncommitted changes of the sandbox (staged, unstaged and untracked files)\nagent: add beta"));
        QCOMPARE(gitLine(repo, {QStringLiteral("show"), branch + QStringLiteral(":notes.txt")}), QStringLiteral("draft"));
        QCOMPARE(gitLine(repo, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")}), hostHead);
        QCOMPARE(gitLine(repo, {QStringLiteral("status"), QStringLiteral("--porcelain")}), QString());

        // More work, then destroy: the guard brings it home first.
        QCOMPARE(bashIn(mcp, id, QStringLiteral("echo more >> notes.txt")).value(QStringLiteral("exit_code")).toInt(-1), 0);
        const QJsonObject destroyed = mcp.callToolResult(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}}, 120000);
        QVERIFY2(!destroyed.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(gitLine(repo, {QStringLiteral("show"), branch + QStringLiteral(":notes.txt")}), QStringLiteral("draft\nmore"));
        QVERIFY(cloudRows(env).isEmpty());

        // A direct folder cannot go to the cloud: refused with the reason, nothing made.
        const QString folder = QFileInfo(repo).absolutePath() + QStringLiteral("/notes");
        QVERIFY(QDir().mkpath(folder));
        const CliResult direct = runCli(env, {QStringLiteral("workspace"), QStringLiteral("add"), folder, QStringLiteral("--mode"), QStringLiteral("direct")});
        const QString directId = QString::fromUtf8(direct.out).trimmed().section(QLatin1Char(' '), 3, 3);
        QVERIFY2(directId.startsWith(QLatin1String("ws_")), (direct.out + direct.err).constData());
        const QJsonObject refused = mcp.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("placement"), QStringLiteral("cloud")},
                                                                                       {QStringLiteral("workspace_id"), directId}});
        QVERIFY(refused.value(QStringLiteral("isError")).toBool());
        QVERIFY2(text(refused).contains(QLatin1String("no host mount")), qPrintable(text(refused)));
        QVERIFY(cloudRows(env).isEmpty());
        QCOMPARE(server.terminate(), 0);
    }

    // A cloud clone left alone: when its end is near (the warning), its work goes home as
    // chat2sbx/<id>; then the cloud deletes it (an account that cannot stop), the reconciler marks it
    // gone and nothing is made again, and the work is on the host.
    void aCloudClonesWorkGoesHomeBeforeItsEnd()
    {
        TestEnvironment env;
        enableCloud(env);
        // An hour of the cloud's is 36 s here; the warning 20 s before the end, and an extension on use
        // only once less than 20 s is left (half of cloudDefaultTtl).
        env.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_TIME_SCALE=0.01"), QStringLiteral("FAKE_SBX_CLOUD_NO_STOP=1")});
        env.set(QStringLiteral("CHAT2SBX_CLOUD_WARN_BEFORE"), QStringLiteral("20"));
        env.set(QStringLiteral("CHAT2SBX_CLOUD_DEFAULT_TTL"), QStringLiteral("40"));
        const QString repo = QDir(env.root()).canonicalPath() + QStringLiteral("/repos/project");
        const QString workspaceId = cloneWorkspace(env, repo);
        QVERIFY(workspaceId.startsWith(QLatin1String("ws_")));
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const QString id = createInCloud(mcp, {{QStringLiteral("workspace_id"), workspaceId}, {QStringLiteral("ttl"), QStringLiteral("1h")}});
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QCOMPARE(bashIn(mcp, id, kAgentCommits).value(QStringLiteral("exit_code")).toInt(-1), 0);
        // A last call after the work: if the end was near already, it moves it and warns again.
        QVERIFY(!mcp.callToolResult(QStringLiteral("show_changes"), {{QStringLiteral("sandbox_id"), id}}).value(QStringLiteral("isError")).toBool(true));
        const QString branch = QStringLiteral("chat2sbx/") + id;
        QVERIFY2(waitFor([&] { return gitLine(repo, {QStringLiteral("show"), branch + QStringLiteral(":notes.txt")}) == QLatin1String("draft"); },
                         60000), qPrintable(server.output()));
        QCOMPARE(gitLine(repo, {QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s"), branch + QStringLiteral("~1")}),
                 QStringLiteral("agent: add beta"));
        // The end: deleted by the cloud, marked gone, never made again.
        QVERIFY2(waitFor([&] { return listed(env, id).isEmpty(); }, 90000), qPrintable(QJsonDocument(listed(env, id)).toJson()));
        const QJsonObject gone = mcp.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}});
        QVERIFY2(QJsonDocument(gone).toJson().contains("gone from Docker's cloud"), qPrintable(mcp.lastBody));
        QTest::qWait(2500);
        QVERIFY(cloudRows(env).isEmpty());
        QCOMPARE(gitLine(repo, {QStringLiteral("show"), branch + QStringLiteral(":notes.txt")}), QStringLiteral("draft"));
        QCOMPARE(server.terminate(), 0);
    }

    // cloudWarmSandboxes: a cloud sandbox made ahead of need is not listed, is handed over by a cloud
    // sandbox_create with the default size and time-to-live (the sandbox is that VM: destroying it
    // removes it from the cloud), another is made in its place, and a restart keeps the one waiting.
    void aWarmCloudSandboxIsHandedOver()
    {
        TestEnvironment env;
        enableCloud(env);
        env.set(QStringLiteral("CHAT2SBX_CLOUD_WARM_SANDBOXES"), QStringLiteral("1"));
        const auto names = [&env] {
            QStringList out;
            for (const QJsonValue &v : cloudRows(env))
                out << v.toObject().value(QStringLiteral("name")).toString();
            out.sort();
            return out;
        };
        QStringList waiting;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "cloud-test");
            QVERIFY(mcp.open());
            QVERIFY2(waitFor([&] { return names().size() == 1; }, 30000), qPrintable(names().join(QLatin1Char(','))));
            const QStringList warm = names();
            const QJsonObject none = structured(mcp.callToolResult(QStringLiteral("sandbox_list"), {}));
            QCOMPARE(none.value(QStringLiteral("sandboxes")).toArray().size(), 0);   // no one's yet

            const QString id = createInCloud(mcp);
            QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
            QVERIFY(bashAnswers(mcp, id, QStringLiteral("echo warm"), QStringLiteral("warm")));
            // `status` counts the cloud apart: the sandbox, and the warm one once it is made again.
            QString status;
            QVERIFY2(waitFor([&] {
                status = QString::fromUtf8(runCli(env, {QStringLiteral("status")}).out);
                return status.contains(QLatin1String("1 active (1 in Docker's cloud)")) && status.contains(QLatin1String("and 1 in the cloud"));
            }, 30000), qPrintable(status));
            // Another is made in its place; the handed-over one is still there.
            QVERIFY2(waitFor([&] { return names().size() == 2; }, 30000), qPrintable(names().join(QLatin1Char(','))));
            QVERIFY(names().contains(warm.first()));
            const QJsonObject destroyed = mcp.callToolResult(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}});
            QVERIFY2(!destroyed.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
            QVERIFY2(!names().contains(warm.first()), "the sandbox handed over was the warm one");
            waiting = names();
            QCOMPARE(waiting.size(), 1);
            QCOMPARE(server.terminate(), 0);
        }
        // A restart keeps the one waiting (not removed and made again).
        ServerProcess again(env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        QTest::qWait(2000);
        QCOMPARE(names(), waiting);
        QCOMPARE(again.terminate(), 0);
    }

    // The page leaves `sbx --cloud exec -i` UNKNOWN on stdin's end, stderr and the exit status: the
    // channel frames every message, so each variant works the same.
    void theChannelCopesWithEachExecVariant_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::newRow("as documented locally") << QString();
        QTest::newRow("stdin's end not passed on") << QStringLiteral("FAKE_SBX_CLOUD_EXEC_NO_EOF=1");
        QTest::newRow("exit status always 0") << QStringLiteral("FAKE_SBX_CLOUD_EXEC_NO_EXIT_STATUS=1");
        QTest::newRow("stderr merged into stdout") << QStringLiteral("FAKE_SBX_CLOUD_EXEC_MERGE_STDERR=1");
    }
    void theChannelCopesWithEachExecVariant()
    {
        QFETCH(QString, fault);
        TestEnvironment env;
        enableCloud(env);
        if (!fault.isEmpty())
            env.setSbxFaults({fault});
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const QString id = createInCloud(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        for (int i = 0; i < 3; ++i) {
            const QJsonObject r = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                            {QStringLiteral("command"), QStringLiteral("echo out%1; echo err%1 >&2; exit 3").arg(i)}});
            QVERIFY2(structured(r).value(QStringLiteral("output")).toString().contains(QStringLiteral("out%1").arg(i)), qPrintable(mcp.lastBody));
            QCOMPARE(structured(r).value(QStringLiteral("exit_code")).toInt(), 3);
        }
        const QJsonObject destroyed = mcp.callToolResult(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}});
        QVERIFY2(!destroyed.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
        QCOMPARE(server.terminate(), 0);
    }

    // In use, its time-to-live moves forward (chat2sbx extends it), never past 24 h from creation.
    void theTtlIsExtendedWhileInUseNeverPastTheCeiling()
    {
        TestEnvironment env;
        enableCloud(env);
        env.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_TIME_SCALE=0.0002")});   // an hour: 0.72 s; 24 h: 17.3 s
        env.set(QStringLiteral("CHAT2SBX_CLOUD_DEFAULT_TTL"), QStringLiteral("14400"));   // each extension: 4 h, 2.9 s here
        ServerProcess server(env);
        QVERIFY2(server.start(), qPrintable(server.output()));
        McpTestClient mcp(env.mcpUrl(), "cloud-test");
        QVERIFY(mcp.open());
        const QString id = createInCloud(mcp);
        QVERIFY2(!id.isEmpty(), qPrintable(mcp.lastBody));
        QCOMPARE(cloudRows(env).size(), 1);
        const QString cloudId = cloudRows(env).first().toObject().value(QStringLiteral("id")).toString();
        QElapsedTimer used;
        used.start();
        // Used for longer than its first time-to-live (2.9 s), and past its ceiling (17.3 s).
        while (used.elapsed() < 20000) {
            const QJsonObject r = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                            {QStringLiteral("command"), QStringLiteral("true")}});
            if (used.elapsed() < 12000)   // well past its first time-to-live, well before its ceiling
                QVERIFY2(!r.value(QStringLiteral("isError")).toBool(true), qPrintable(mcp.lastBody));
            const CliResult ttl = runFakeSbx(env, {QStringLiteral("--cloud"), QStringLiteral("ttl"), cloudId, QStringLiteral("--json")});
            const QJsonObject t = QJsonDocument::fromJson(ttl.out).object();
            if (!t.value(QStringLiteral("expires_at")).isNull())   // ISO 8601 UTC: compared as text
                QVERIFY2(t.value(QStringLiteral("expires_at")).toString() <= t.value(QStringLiteral("max_expires_at")).toString(), ttl.out.constData());
            QTest::qWait(300);
        }
        QVERIFY2(server.output().contains(QLatin1String("is in use: its time-to-live now ends")), qPrintable(server.output()));
        QCOMPARE(server.terminate(), 0);
    }

    void killDuringACloudCreateLeavesNoOrphan()
    {
        TestEnvironment env;
        enableCloud(env);
        env.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_CREATE_DELAY_MS=8000")});
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            McpTestClient mcp(env.mcpUrl(), "cloud-test");
            QVERIFY(mcp.open());
            const auto reply = mcp.callToolAsync(QStringLiteral("sandbox_create"), {{QStringLiteral("placement"), QStringLiteral("cloud")}});
            QVERIFY(waitFor([&] { return cloudRows(env).size() == 1; }, 20000));   // made in the cloud, not answered yet
            server.kill9();
        }
        env.setSbxFaults({});
        ServerProcess again(env);
        QVERIFY2(again.start(), qPrintable(again.output()));
        QVERIFY2(waitFor([&] { return cloudRows(env).isEmpty(); }, 20000), qPrintable(again.output()));
        QCOMPARE(again.terminate(), 0);

        // The same for a warm cloud sandbox being made: the next start removes it and makes another.
        env.set(QStringLiteral("CHAT2SBX_CLOUD_WARM_SANDBOXES"), QStringLiteral("1"));
        env.setSbxFaults({QStringLiteral("FAKE_SBX_CLOUD_CREATE_DELAY_MS=8000")});
        QString orphan;
        {
            ServerProcess server(env);
            QVERIFY2(server.start(), qPrintable(server.output()));
            QVERIFY(waitFor([&] { return cloudRows(env).size() == 1; }, 20000));
            orphan = cloudRows(env).first().toObject().value(QStringLiteral("name")).toString();
            server.kill9();
        }
        env.setSbxFaults({});
        ServerProcess third(env);
        QVERIFY2(third.start(), qPrintable(third.output()));
        QVERIFY2(waitFor([&] {
            const QJsonArray rows = cloudRows(env);
            return rows.size() == 1 && rows.first().toObject().value(QStringLiteral("name")).toString() != orphan;
        }, 30000), qPrintable(third.output()));
        QCOMPARE(third.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestCloudSandboxes)
#include "tst_cloud_sandboxes.moc"
