// SbxDriver: the argv of every typed call, the JSON parsers of sbx-contract.md, and (with the fake
// sbx) timeouts, stderr trimmed into the error, a missing binary, callbacks always from the loop.
#include "TestSupport.h"

#include "sandbox/sbx/SbxDriver.h"
#include "sandbox/sbx/SbxEnvironment.h"
#include "sandbox/sbx/SbxPreflight.h"
#include "sandbox/sbx/SbxVersion.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QJsonValue>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestSbxDriver : public QObject {
    Q_OBJECT

    // Runs one call of `d` and waits for its callback.
    template <typename Start>
    SbxResult runOne(Start start, int timeoutMs = 20000)
    {
        bool done = false;
        SbxResult result;
        start([&](const SbxResult &r) {
            result = r;
            done = true;
        });
        waitFor([&] { return done; }, timeoutMs);
        return result;
    }

private slots:
    void createArgs()
    {
        SbxCreateSpec s;
        s.runtimeName = "chat2sbx-00aa";
        s.templateRef = "chat2sbx-shell:1.0.0";
        s.workspaceRoot = "/home/u/ws";
        QCOMPARE(SbxDriver::createArgs(s), (QStringList{"create", "--quiet", "--name", "chat2sbx-00aa", "--template",
                                                        "chat2sbx-shell:1.0.0", "shell", "/home/u/ws"}));
        s.memory = "4g";
        s.clone = true;
        QCOMPARE(SbxDriver::createArgs(s), (QStringList{"create", "--quiet", "--name", "chat2sbx-00aa", "--template",
                                                        "chat2sbx-shell:1.0.0", "--memory", "4g", "--clone", "shell",
                                                        "/home/u/ws"}));
        // setup's builder: the stock shell template, no --template at all
        s.templateRef.clear();
        s.memory.clear();
        s.clone = false;
        QCOMPARE(SbxDriver::createArgs(s), (QStringList{"create", "--quiet", "--name", "chat2sbx-00aa", "shell", "/home/u/ws"}));
        // a hostile-looking path stays one argument
        s.workspaceRoot = "/tmp/a b; rm -rf ~";
        QCOMPARE(SbxDriver::createArgs(s).last(), QStringLiteral("/tmp/a b; rm -rf ~"));
    }

    void execArgs()
    {
        SbxExecSpec e;
        e.runtimeName = "rt";
        e.command = {"bash", "-lc", "echo ok"};
        QCOMPARE(SbxDriver::execArgs(e), (QStringList{"exec", "rt", "bash", "-lc", "echo ok"}));
        e.interactive = true;
        e.asRoot = true;
        e.envNames = {"TOKEN", "OTHER"};
        e.workdir = "/w";
        QCOMPARE(SbxDriver::execArgs(e), (QStringList{"exec", "-i", "-u", "root", "-e", "TOKEN", "-e", "OTHER", "-w", "/w",
                                                      "rt", "bash", "-lc", "echo ok"}));
    }

    // sbx-contract.md, behaviour 3: daemon start-up lines may come before the JSON on stdout.
    void jsonAfterDaemonText()
    {
        const QByteArray noise = "Starting sandboxd daemon...\nDaemon started (PID 4242)\nLogs: /x/[daemon].log\n";
        QList<SbxRuntimeInfo> list;
        QVERIFY(SbxDriver::parseList(noise + R"({"sandboxes":[{"name":"a1","status":"stopped"}]})", list));
        QCOMPARE(list.size(), 1);
        QCOMPARE(list.at(0).status, QStringLiteral("stopped"));
        QList<SbxPortMapping> ports;
        QVERIFY(SbxDriver::parsePorts(noise + R"(  [{"host_ip":"127.0.0.1","host_port":5,"sandbox_port":6,"protocol":"tcp4"}])", ports));
        QCOMPARE(ports.size(), 1);
        QStringList refs;
        QVERIFY(SbxDriver::parseTemplates(noise + R"({"images":[{"repository":"r","tag":"1"}]})", refs));
        QCOMPARE(refs, QStringList{"r:1"});
        QVERIFY(!SbxDriver::parseList(noise, list));
        QVERIFY(!SbxDriver::parseList("Daemon started {not json", list));
    }

    void versionFloor()
    {
        QCOMPARE(parseSbxVersionJson("Starting sandboxd daemon...\n{\"client\":{\"version\":\"v0.47.0\"},\"server\":{\"state\":\"running\"}}"),
                 QStringLiteral("v0.47.0"));
        QCOMPARE(parseSbxVersionJson("{}"), QString());
        QCOMPARE(findSbxVersion("sbx version 0.44.1 (build abc)"), QStringLiteral("0.44.1"));
        for (const char *ok : {"v0.43", "0.43.0", "v0.47.1-rc1", "1.0.0"})
            QVERIFY2(sbxVersionSupported(QLatin1String(ok)), ok);
        for (const char *old : {"v0.42.9", "0.31.0", "0.9", "", "garbage"})
            QVERIFY2(!sbxVersionSupported(QLatin1String(old)), old);
    }

    void preflightAdvice()
    {
        QVERIFY(sbxPreflightAdvice("sbx ls failed (exit 1): ERROR: you are not signed in: run 'sbx login' first").contains("`sbx login`"));
        QVERIFY(sbxPreflightAdvice("ERROR: no network policy is set: run 'sbx policy init balanced'").contains("`sbx policy init balanced`"));
        QVERIFY(sbxPreflightAdvice("sbx create failed (exit 1): disk full").isEmpty());
    }

    void parseTemplates()
    {
        QStringList refs;
        QVERIFY(SbxDriver::parseTemplates(R"({"images":[{"repository":"docker.io/library/chat2sbx-shell","tag":"1.0.0"},
                                              {"repository":"chat2sbx-shell","tag":"0.9.0"},
                                              {"repository":"docker.io/acme/tool","tag":"2"},
                                              {"repository":"bare"},{"tag":"x"}]})",
                                          refs));
        QCOMPARE(refs, (QStringList{"chat2sbx-shell:1.0.0", "chat2sbx-shell:0.9.0", "acme/tool:2", "bare"}));
        refs.clear();
        QVERIFY(SbxDriver::parseTemplates(R"({"images":[]})", refs));
        QVERIFY(refs.isEmpty());
        QVERIFY(!SbxDriver::parseTemplates("not json", refs));
        QVERIFY(!SbxDriver::parseTemplates(R"({"images":{}})", refs));
        QVERIFY(!SbxDriver::parseTemplates(R"([])", refs));
    }

    void templateSizesReadNumbersAndDockerUnits()
    {
        QStringList refs;
        QHash<QString, qint64> sizes;
        QVERIFY(SbxDriver::parseTemplates(R"({"images":[{"repository":"docker.io/library/chat2sbx-checkpoint","tag":"ckp_1","size":734003200},
                                              {"repository":"a","tag":"1","size":"1.2GB"},{"repository":"b","tag":"1","size":"700 MiB"},
                                              {"repository":"c","tag":"1"},{"repository":"d","tag":"1","size":"huge"}]})",
                                          refs, &sizes));
        QCOMPARE(sizes.value("chat2sbx-checkpoint:ckp_1"), qint64(734003200));
        QCOMPARE(sizes.value("a:1"), qint64(1200000000));
        QCOMPARE(sizes.value("b:1"), qint64(700) << 20);
        QCOMPARE(sizes.value("c:1"), qint64(-1));
        QCOMPARE(sizes.value("d:1"), qint64(-1));
        QCOMPARE(SbxDriver::parseSize(QJsonValue(QStringLiteral("512"))), qint64(512));
        QCOMPARE(SbxDriver::parseSize(QJsonValue(QStringLiteral("12kB"))), qint64(12000));
        QCOMPARE(SbxDriver::parseSize(QJsonValue(QStringLiteral("3 KiB"))), qint64(3072));
        QCOMPARE(SbxDriver::parseSize(QJsonValue(-5)), qint64(-1));
        QCOMPARE(SbxDriver::parseSize(QJsonValue(QStringLiteral("-5MB"))), qint64(-1));
    }

    void parseList()
    {
        QList<SbxRuntimeInfo> items;
        QVERIFY(SbxDriver::parseList(R"({"sandboxes":[{"name":"a","status":"running"},{"name":"","status":"x"},{"name":"b"}]})", items));
        QCOMPARE(items.size(), 2);
        QCOMPARE(items.at(0).name, QStringLiteral("a"));
        QCOMPARE(items.at(0).status, QStringLiteral("running"));
        QCOMPARE(items.at(1).name, QStringLiteral("b"));
        QVERIFY(!SbxDriver::parseList(R"({"sandboxes":5})", items));
        QVERIFY(!SbxDriver::parseList("", items));
    }

    void parsePorts()
    {
        QList<SbxPortMapping> items;
        QVERIFY(SbxDriver::parsePorts(R"([{"host_ip":"0.0.0.0","host_port":49213,"sandbox_port":3000,"protocol":"tcp4"},
                                          {"host_ip":"0.0.0.0","host_port":0,"sandbox_port":1}])",
                                      items));
        QCOMPARE(items.size(), 1);
        QCOMPARE(items.at(0).hostPort, 49213);
        QCOMPARE(items.at(0).sandboxPort, 3000);
        QCOMPARE(items.at(0).hostIp, QStringLiteral("0.0.0.0"));
        QCOMPARE(items.at(0).protocol, QStringLiteral("tcp4"));
        QVERIFY(!SbxDriver::parsePorts(R"({"ports":[]})", items));
    }


    void missingBinaryAnswersFromTheLoop()
    {
        SbxDriver d("/nonexistent/sbx", {});
        bool called = false;
        SbxResult result;
        d.version([&](const SbxResult &r) {
            called = true;
            result = r;
        });
        QVERIFY2(!called, "the callback must not run inside the call");
        QVERIFY(waitFor([&] { return called; }, 5000));
        QVERIFY(!result.ok);
        QVERIFY2(result.error.startsWith("cannot run sbx (/nonexistent/sbx) for version"), qPrintable(result.error));
    }

    void childEnvironment_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("passed");
        QTest::addColumn<bool>("expected");
        QTest::newRow("HOME") << "HOME" << QStringList{} << true;
        QTest::newRow("XDG_RUNTIME_DIR") << "XDG_RUNTIME_DIR" << QStringList{} << true;
        QTest::newRow("DOCKER_HOST") << "DOCKER_HOST" << QStringList{} << true;
        QTest::newRow("SBX_ prefix") << "SBX_SETTING" << QStringList{} << true;
        QTest::newRow("LC_ prefix") << "LC_TIME" << QStringList{} << true;
        QTest::newRow("proxy") << "HTTPS_PROXY" << QStringList{} << true;
        QTest::newRow("anything else") << "SOME_TOKEN" << QStringList{} << false;
        QTest::newRow("named") << "SOME_TOKEN" << QStringList{"SOME_TOKEN"} << true;
        QTest::newRow("prefix") << "SOME_TOKEN" << QStringList{" SOME_*"} << true;
        QTest::newRow("other prefix") << "SOME_TOKEN" << QStringList{"OTHER_*"} << false;
        QTest::newRow("a lone star passes nothing") << "SOME_TOKEN" << QStringList{"*"} << false;
        QTest::newRow("ours never") << "CHAT2SBX_TUNNEL_KEY" << QStringList{"CHAT2SBX_*"} << false;
        QTest::newRow("ours never, by name") << "CHAT2SBX_LOCAL_TOKEN" << QStringList{"CHAT2SBX_LOCAL_TOKEN"} << false;
    }
    void childEnvironment()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, passed);
        QFETCH(bool, expected);
        QProcessEnvironment parent;
        parent.insert(name, "value");
        parent.insert("PATH", "/bin");
        const QProcessEnvironment env = sbxEnvironment(parent, passed);
        QCOMPARE(env.contains(name), expected);
        if (expected)
            QCOMPARE(env.value(name), QStringLiteral("value"));
        QCOMPARE(env.value("PATH"), QStringLiteral("/bin"));
    }

    // What a real child sees: an `sbx` that prints its environment.
    void childSeesOnlyItsEnvironment()
    {
        QTemporaryDir dir;
        const QString printer = dir.filePath("sbx");
        QFile script(printer);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\nexec env\n");
        script.close();
        QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::ExeOwner));
        qputenv("CHAT2SBX_TUNNEL_KEY", "secret-key");
        qputenv("UNRELATED_VARIABLE", "x");
        qputenv("PASSED_VARIABLE", "y");
        SbxDriver d(printer, {QStringLiteral("PASSED_*")});
        const SbxResult r = runOne([&](SbxDriver::Callback cb) { d.version(cb); });
        qunsetenv("CHAT2SBX_TUNNEL_KEY");
        qunsetenv("UNRELATED_VARIABLE");
        qunsetenv("PASSED_VARIABLE");
        QVERIFY2(r.ok, qPrintable(r.error));
        const QList<QByteArray> lines = r.out.split('\n');
        QVERIFY(lines.contains("PASSED_VARIABLE=y"));
        QVERIFY(lines.contains("HOME=" + qgetenv("HOME")));
        QVERIFY2(!r.out.contains("secret-key"), r.out.constData());
        QVERIFY(!r.out.contains("UNRELATED_VARIABLE"));
    }

    // sbx-cloud.md §6: `sbx move` never carries --cloud, always --force (no terminal to confirm), and
    // --ttl/--on-timeout only towards the cloud; every warning it prints is kept.
    void moveArgsAndWarnings()
    {
        SbxMoveSpec spec;
        spec.source = "chat2sbx-abc123";
        spec.namePrefix = "chat2sbx-def456";
        spec.ttlSeconds = 7200;
        spec.onTimeout = "stop";
        QCOMPARE(sbxMoveArgs(spec), (QStringList{"move", "chat2sbx-abc123", "--to", "cloud", "--force", "--name", "chat2sbx-def456",
                                                 "--ttl", "7200s", "--on-timeout", "stop"}));
        spec.toCloud = false;
        spec.source = "sbx_0123456789ab";
        QCOMPARE(sbxMoveArgs(spec), (QStringList{"move", "sbx_0123456789ab", "--to", "local", "--force", "--name", "chat2sbx-def456"}));
        QVERIFY(!sbxMoveArgs(spec).contains("--cloud"));
        const QStringList w = parseSbxWarnings("Moving...\nCreated cloud sandbox a (sbx_1)\n",
                                               "WARNING: the workspace /w is a mount and does not move\n"
                                               "warn: port 8080 was not republished\n  Warning  no limits recorded\nwarnings are fine\n");
        QCOMPARE(w, (QStringList{"the workspace /w is a mount and does not move", "port 8080 was not republished", "no limits recorded"}));
    }

    // sbx-cloud.md: the cloud argv never carries a local-only flag; -u is rejected there.
    void cloudArgs()
    {
        SbxCloudCreateSpec spec;
        spec.name = "chat2sbx-abc123";
        spec.size = "medium";
        spec.ttlSeconds = 5400;
        spec.onTimeout = "stop";
        QCOMPARE(sbxCloudCreateArgs(spec), (QStringList{"--cloud", "create", "--name", "chat2sbx-abc123", "--cpus", "4", "--memory", "8g",
                                                        "--ttl", "5400s", "--on-timeout", "stop", "shell"}));
        spec.size.clear();
        spec.ttlSeconds = 0;
        spec.onTimeout.clear();
        QCOMPARE(sbxCloudCreateArgs(spec), (QStringList{"--cloud", "create", "--name", "chat2sbx-abc123", "shell"}));
        // From a cloud template: no agent and no size (the template supplies them, §7).
        spec.templateName = "chat2sbx-ckp-1";
        spec.size = "large";
        spec.ttlSeconds = 3600;
        QCOMPARE(sbxCloudCreateArgs(spec), (QStringList{"--cloud", "create", "--name", "chat2sbx-abc123", "--template", "chat2sbx-ckp-1",
                                                        "--ttl", "3600s"}));
        SbxExecSpec e;
        e.cloud = true;
        e.asRoot = true;
        e.interactive = true;
        e.runtimeName = "sbx_0123456789ab";
        e.command = {"id", "-u"};
        QCOMPARE(SbxDriver::execArgs(e), (QStringList{"--cloud", "exec", "-i", "sbx_0123456789ab", "sudo", "-n", "--", "id", "-u"}));
        QCOMPARE(sbxCloudSizes().size(), 5);
        QCOMPARE(sbxCloudSize("xl")->memoryMib, 32768);
        QVERIFY(!sbxCloudSize("huge"));
        QVERIFY(sbxCloudSizeRank("small") < sbxCloudSizeRank("large"));
    }

    // Every UNKNOWN shape of the page is read: the create output, the ls envelope and field names,
    // the ttl output in JSON and in text.
    void cloudParsers()
    {
        QCOMPARE(parseSbxCloudId("sbx_0123456789ab\n", ""), QStringLiteral("sbx_0123456789ab"));
        QCOMPARE(parseSbxCloudId("Creating cloud sandbox x (small)...\nCloud sandbox sbx_a1b2c3d4 is running\n", ""),
                 QStringLiteral("sbx_a1b2c3d4"));
        QCOMPARE(parseSbxCloudId("", "progress...\nsbx_ffff0000 ready"), QStringLiteral("sbx_ffff0000"));
        QVERIFY(parseSbxCloudId("created\n", "").isEmpty());

        for (const QByteArray &json :
             {QByteArray(R"({"sandboxes":[{"id":"sbx_1","name":"a","status":"running","cpus":2,"memory_mib":4096,"expires_at":"2026-12-06T10:00:00Z"}]})"),
              QByteArray(R"([{"ID":"sbx_1","displayName":"a","state":"RUNNING","expiresAt":1796551200}])"),
              QByteArray(R"({"items":[{"sandboxId":"sbx_1","name":"a","status":"running","expiration":"2026-12-06T10:00:00.000Z"}]})")}) {
            QList<SbxCloudInfo> rows;
            QVERIFY2(parseSbxCloudList(json, rows), json.constData());
            QCOMPARE(rows.size(), 1);
            QCOMPARE(rows.first().id, QStringLiteral("sbx_1"));
            QCOMPARE(rows.first().name, QStringLiteral("a"));
            QCOMPARE(rows.first().status, QStringLiteral("running"));
            QVERIFY2(rows.first().expiresAtMs > 0, json.constData());
        }
        QList<SbxCloudInfo> none;
        QVERIFY(!parseSbxCloudList("ID NAME STATUS\n", none));
        QVERIFY(parseSbxCloudList(R"({"sandboxes":[{"name":"no id"}]})", none) && none.isEmpty());   // unread, never gone

        // `template ls --json` (§10.6 UNKNOWN): each envelope, the size under any of its names or none.
        for (const QByteArray &json :
             {QByteArray(R"({"templates":[{"id":"tmpl_1","name":"t","size":3221225472}]})"),
              QByteArray(R"([{"ID":"tmpl_1","name":"t","size_bytes":3221225472}])"),
              QByteArray(R"({"items":[{"template_id":"tmpl_1","display_name":"t","sizeBytes":3221225472}]})")}) {
            QList<SbxCloudTemplate> templates;
            QVERIFY2(parseSbxCloudTemplates(json, templates), json.constData());
            QCOMPARE(templates.size(), 1);
            QCOMPARE(templates.first().name, QStringLiteral("t"));
            QCOMPARE(templates.first().sizeBytes, 3221225472LL);
        }
        QList<SbxCloudTemplate> unsized;
        QVERIFY(parseSbxCloudTemplates(R"({"templates":[{"id":"tmpl_1","name":"t"}]})", unsized));
        QCOMPARE(unsized.first().sizeBytes, -1LL);
        QVERIFY(!parseSbxCloudTemplates("NAME MODE\n", unsized));

        SbxCloudTtl json;
        QVERIFY(parseSbxCloudTtl(R"({"id":"sbx_1","expires_at":"2026-12-06T10:00:00Z","max_expires_at":"2026-12-07T08:00:00Z"})", json));
        QCOMPARE(json.maxExpiresAtMs - json.expiresAtMs, 22LL * 3600 * 1000);
        SbxCloudTtl text;
        QVERIFY(parseSbxCloudTtl("sbx_1 expires at 2026-12-06T10:00:00Z; at most 2026-12-07T08:00:00Z (24h after creation)\n", text));
        QCOMPARE(text.expiresAtMs, json.expiresAtMs);
        QCOMPARE(text.maxExpiresAtMs, json.maxExpiresAtMs);
        QCOMPARE(parseSbxCloudUrl("https://abc-8080.sandboxes.docker.invalid\n"), QStringLiteral("https://abc-8080.sandboxes.docker.invalid"));
        QCOMPARE(parseSbxCloudUrl("Published 8080/tcp at https://x.example/ (public)"), QStringLiteral("https://x.example/"));
    }

    // Against the fake's cloud store: create, list, exec, ttl, stop and resume, rm.
    void fakeCloudCalls()
    {
        TestEnvironment env;
        qputenv("FAKE_SBX_STATE", env.sbxState().toUtf8());
        SbxDriver d(fakeSbxPath(), fakeSbxVariables());
        SbxCloudCreateSpec spec;
        spec.name = "chat2sbx-cloud0test";
        spec.size = "micro";
        spec.ttlSeconds = 3600;
        QString id;
        SbxResult created = runOne([&](SbxDriver::Callback cb) {
            d.cloudCreate(spec, [&, cb](const SbxResult &r, const QString &made) {
                id = made;
                cb(r);
            });
        });
        QVERIFY2(created.ok, qPrintable(created.error));
        QVERIFY(id.startsWith("sbx_"));
        QList<SbxCloudInfo> rows;
        SbxResult listed = runOne([&](SbxDriver::Callback cb) {
            d.cloudList([&, cb](const SbxResult &r, const QList<SbxCloudInfo> &l) {
                rows = l;
                cb(r);
            });
        });
        QVERIFY2(listed.ok, qPrintable(listed.error));
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows.first().name, spec.name);
        QCOMPARE(rows.first().memoryMib, 2048);
        SbxExecSpec e;
        e.cloud = true;
        e.runtimeName = spec.name;   // by name as well as by id
        e.command = {"sh", "-c", "cat; echo \" $0\"", "arg"};
        e.stdinData = "in";
        SbxResult x = runOne([&](SbxDriver::Callback cb) { d.exec(e, cb); });
        QVERIFY2(x.ok, qPrintable(x.error));
        QCOMPARE(x.out, QByteArray("in arg\n"));
        e.asRoot = true;
        e.stdinData.clear();
        e.command = {"true"};
        SbxResult root = runOne([&](SbxDriver::Callback cb) { d.exec(e, cb); });
        QVERIFY(root.ok || root.error.contains("sudo"));   // no -u: the fake host may have no sudo
        SbxCloudTtl ttl;
        SbxResult extended = runOne([&](SbxDriver::Callback cb) {
            d.cloudTtl(id, 3600, [&, cb](const SbxResult &r, const SbxCloudTtl &t) {
                ttl = t;
                cb(r);
            });
        });
        QVERIFY2(extended.ok, qPrintable(extended.error));
        QVERIFY(ttl.expiresAtMs > QDateTime::currentMSecsSinceEpoch() + 3600 * 1000);
        QVERIFY(ttl.maxExpiresAtMs >= ttl.expiresAtMs);
        QVERIFY(runOne([&](SbxDriver::Callback cb) { d.cloudStop(id, cb); }).ok);
        QString resumed;
        QVERIFY(runOne([&](SbxDriver::Callback cb) {
                    d.cloudResume(spec.name, [&, cb](const SbxResult &r, const QString &i) {
                        resumed = i;
                        cb(r);
                    });
                }).ok);
        QCOMPARE(resumed, id);
        QVERIFY(runOne([&](SbxDriver::Callback cb) { d.cloudRemove(id, cb); }).ok);
        // The plan missing: one readable error quoting sbx.
        env.setSbxFaults({"FAKE_SBX_CLOUD_NO_PLAN=1"});
        SbxResult noPlan = runOne([&](SbxDriver::Callback cb) { d.cloudDiagnose(cb); });
        QVERIFY(!noPlan.ok);
        qunsetenv("FAKE_SBX_STATE");
    }

    void fakeCalls()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
        TestEnvironment env;
        qputenv("FAKE_SBX_STATE", env.sbxState().toUtf8());
        qputenv("FAKE_SBX_TEMPLATES", "chat2sbx-shell:9.9.9");
        SbxDriver d(fakeSbxPath(), fakeSbxVariables());

        SbxResult v = runOne([&](SbxDriver::Callback cb) { d.version(cb); });
        QVERIFY2(v.ok, qPrintable(v.error));
        QVERIFY(!v.out.isEmpty());

        QStringList refs;
        bool done = false;
        d.templateList([&](const SbxResult &r, const QStringList &list) {
            QVERIFY2(r.ok, qPrintable(r.error));
            refs = list;
            done = true;
        });
        QVERIFY(waitFor([&] { return done; }, 10000));
        QVERIFY2(refs.contains("chat2sbx-shell:9.9.9"), qPrintable(refs.join(',')));

        const QString ws = env.root() + "/ws";
        QDir().mkpath(ws);
        SbxCreateSpec spec;
        spec.runtimeName = "chat2sbx-driver0test";
        spec.workspaceRoot = ws;
        SbxResult c = runOne([&](SbxDriver::Callback cb) { d.create(spec, cb); });
        QVERIFY2(c.ok, qPrintable(c.error));

        SbxExecSpec e;
        e.runtimeName = spec.runtimeName;
        e.command = {"sh", "-c", "cat; echo \" $0\"", "arg with space"};
        e.stdinData = "from stdin";
        SbxResult x = runOne([&](SbxDriver::Callback cb) { d.exec(e, cb); });
        QVERIFY2(x.ok, qPrintable(x.error));
        QCOMPARE(x.out, QByteArray("from stdin arg with space\n"));

        // stderr, trimmed, becomes the error
        env.setSbxFaults({"FAKE_SBX_FAIL_EXEC=   the reason, padded   "});
        SbxResult f = runOne([&](SbxDriver::Callback cb) { d.exec(e, cb); });
        QVERIFY(!f.ok);
        QCOMPARE(f.exitCode, 1);
        QCOMPARE(f.error, QStringLiteral("sbx exec failed (exit 1): the reason, padded"));

        // a hang becomes a timeout error, quickly
        env.setSbxFaults({"FAKE_SBX_HANG_LS=1"});
        d.setTimeouts({400, 400, 400});
        QElapsedTimer t;
        t.start();
        bool listed = false;
        SbxResult lr;
        d.list([&](const SbxResult &r, const QList<SbxRuntimeInfo> &) {
            lr = r;
            listed = true;
        });
        QVERIFY(waitFor([&] { return listed; }, 5000));
        QVERIFY(t.elapsed() < 3000);
        QVERIFY(lr.timedOut);
        QVERIFY(!lr.ok);
        QCOMPARE(lr.error, QStringLiteral("sbx ls did not answer within 0.4 s"));

        env.setSbxFaults({});
        d.setTimeouts({});
        // A template saved from the stopped sandbox, then removed (a checkpoint's life).
        QVERIFY(runOne([&](SbxDriver::Callback cb) { d.stop(spec.runtimeName, cb); }).ok);
        SbxResult saved = runOne([&](SbxDriver::Callback cb) { d.templateSave(spec.runtimeName, "chat2sbx-checkpoint:ckp_0a1b", cb); });
        QVERIFY2(saved.ok, qPrintable(saved.error));
        SbxResult removed = runOne([&](SbxDriver::Callback cb) { d.templateRemove("chat2sbx-checkpoint:ckp_0a1b", cb); });
        QVERIFY2(removed.ok, qPrintable(removed.error));
        SbxResult again = runOne([&](SbxDriver::Callback cb) { d.templateRemove("chat2sbx-checkpoint:ckp_0a1b", cb); });
        QVERIFY(!again.ok);
        QVERIFY2(again.error.startsWith("sbx template rm failed (exit 1)"), qPrintable(again.error));
        SbxResult rm = runOne([&](SbxDriver::Callback cb) { d.remove(spec.runtimeName, cb); });
        QVERIFY2(rm.ok, qPrintable(rm.error));
        SbxResult rm2 = runOne([&](SbxDriver::Callback cb) { d.remove(spec.runtimeName, cb); });
        QVERIFY(!rm2.ok);
        QVERIFY2(rm2.error.startsWith("sbx rm failed (exit"), qPrintable(rm2.error));
    }
};

QTEST_GUILESS_MAIN(TestSbxDriver)
#include "tst_sbx_driver.moc"
