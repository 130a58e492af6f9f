// The sandbox tools over the real SandboxService and the fake sbx: every tool, every failure path,
// the active-sandbox limit under concurrency, idle expiry, expose, AGENTS.md, and that no result
// shows a runtime name or a data-directory path (SandboxHarness::checkLeaks on every result).
#include "SandboxHarness.h"

#include "core/Ids.h"
#include "state/WorkspaceRepository.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QJsonObject obj(std::initializer_list<QPair<QString, QJsonValue>> items)
{
    QJsonObject o;
    for (const auto &i : items)
        o.insert(i.first, i.second);
    return o;
}

int countState(SandboxHarness &h, SandboxState s)
{
    return static_cast<int>(h.records.inState(s).size());
}

} // namespace

class TestSandboxTools : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
    }

    void toolDefinitions()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        for (const char *name : {"sandbox_create", "sandbox_get", "sandbox_list", "sandbox_destroy", "sandbox_expose", "sandbox_unexpose"}) {
            const ToolRegistry::Entry *e = h.tools.find(QLatin1String(name));
            QVERIFY2(e, name);
            QVERIFY(!e->definition.title.isEmpty());
            QVERIFY(e->definition.description.startsWith(QLatin1String("Use this when")));
            QCOMPARE(e->definition.inputSchema.value("additionalProperties").toBool(true), false);
            QCOMPARE(e->definition.inputSchema.value("type").toString(), QStringLiteral("object"));
            QCOMPARE(e->definition.outputSchema.value("type").toString(), QStringLiteral("object"));
        }
        QVERIFY(h.tools.find("sandbox_destroy")->definition.annotations.destructive);
        QVERIFY(h.tools.find("sandbox_destroy")->definition.annotations.idempotent);
        QVERIFY(h.tools.find("sandbox_list")->definition.annotations.readOnly);
        QVERIFY(h.tools.find("sandbox_expose")->definition.annotations.idempotent);
        QVERIFY(!h.tools.find("sandbox_create")->definition.annotations.idempotent);
    }

    void createGetListDestroy()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        QVERIFY(h.opened);
        QVERIFY(h.reconcile());
        QElapsedTimer t;
        t.start();
        const CallResult c = h.call("sandbox_create");
        const qint64 createMs = t.elapsed();
        QVERIFY2(!c.result.isError, qPrintable(c.text()));
        const QJsonObject s = c.json();
        const QString id = s.value("sandbox_id").toString();
        QVERIFY(isWellFormedId(id, "sbx_"));
        QVERIFY(isWellFormedId(s.value("workspace_id").toString(), "ws_"));
        QCOMPARE(s.value("state").toString(), QStringLiteral("running"));
        QCOMPARE(s.value("workspace_path").toString(), QStringLiteral("~/workspace"));
        QCOMPARE(s.value("workspace_mode").toString(), QStringLiteral("managed"));
        QCOMPARE(s.value("memory").toString(), QStringLiteral("default"));
        QCOMPARE(s.value("reused").toBool(true), false);
        QVERIFY(!s.contains("agents_md"));
        QVERIFY(s.value("idle_deadline").toString().endsWith('Z'));
        QCOMPARE(h.runtimes().size(), 1);
        // created from the pinned template, in the managed folder
        const QStringList create = h.calls().at(1);
        QCOMPARE(create.first(), QStringLiteral("create"));
        QVERIFY(create.contains("--template") && create.contains(pinnedTemplate()));
        QVERIFY(create.last().startsWith(h.config.workspaceRoot + "/ws_"));
        QVERIFY(!create.contains("--clone"));

        const CallResult g = h.call("sandbox_get", obj({{"sandbox_id", id}}));
        QVERIFY2(!g.result.isError, qPrintable(g.text()));
        QCOMPARE(g.json().value("state").toString(), QStringLiteral("running"));
        const CallResult l = h.call("sandbox_list");
        QCOMPARE(l.json().value("sandboxes").toArray().size(), 1);
        QCOMPARE(l.json().value("sandboxes").toArray().at(0).toObject().value("sandbox_id").toString(), id);

        t.restart();
        const CallResult d = h.call("sandbox_destroy", obj({{"sandbox_id", id}}));
        const qint64 destroyMs = t.elapsed();
        QVERIFY2(!d.result.isError, qPrintable(d.text()));
        QCOMPARE(d.json().value("state").toString(), QStringLiteral("destroyed"));
        QVERIFY(h.runtimes().isEmpty());
        // idempotent
        const CallResult again = h.call("sandbox_destroy", obj({{"sandbox_id", id}}));
        QVERIFY2(!again.result.isError, qPrintable(again.text()));
        QCOMPARE(h.countCalls("rm"), 1);
        QCOMPARE(h.call("sandbox_list").json().value("sandboxes").toArray().size(), 0);
        QCOMPARE(h.call("sandbox_get", obj({{"sandbox_id", id}})).json().value("state").toString(), QStringLiteral("destroyed"));
        // the managed workspace is kept
        QVERIFY(QFileInfo(h.config.workspaceRoot + "/" + s.value("workspace_id").toString()).isDir());
        qInfo("create with the fake: %lld ms, destroy: %lld ms", createMs, destroyMs);
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    // A page is the newest sandboxes; next_cursor lists the older ones, and the last page has none.
    void listPagesNewestFirst()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        QVERIFY(h.opened);
        QVERIFY(h.reconcile());
        QStringList ids;
        for (int i = 0; i < 3; ++i) {
            const CallResult c = h.call("sandbox_create");
            QVERIFY2(!c.result.isError, qPrintable(c.text()));
            ids << c.json().value("sandbox_id").toString();
        }
        const auto listed = [](const QJsonObject &answer) {
            QStringList out;
            for (const QJsonValue &v : answer.value("sandboxes").toArray())
                out << v.toObject().value("sandbox_id").toString();
            return out;
        };
        // In creation order (the harness's clock may give them one time: then by id).
        const QJsonObject all = h.call("sandbox_list").json();
        const QStringList order = listed(all);
        QCOMPARE(QSet<QString>(order.cbegin(), order.cend()), QSet<QString>(ids.cbegin(), ids.cend()));
        QCOMPARE(all.value("total").toInt(), 3);
        QVERIFY(!all.contains("next_cursor"));
        ids = order;
        const QJsonObject first = h.call("sandbox_list", obj({{"limit", 2}})).json();
        QCOMPARE(listed(first), ids.mid(1));
        QCOMPARE(first.value("total").toInt(), 3);
        const QString cursor = first.value("next_cursor").toString();
        QVERIFY(!cursor.isEmpty());
        const QJsonObject older = h.call("sandbox_list", obj({{"limit", 2}, {"cursor", cursor}})).json();
        QCOMPARE(listed(older), ids.mid(0, 1));
        QVERIFY(!older.contains("next_cursor"));
        for (const QString &id : ids)
            QVERIFY(!h.call("sandbox_destroy", obj({{"sandbox_id", id}})).result.isError);
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void badArguments()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        const QList<QPair<QString, QJsonObject>> cases = {
            {"sandbox_get", obj({{"sandbox_id", "sbx_nope"}})},
            {"sandbox_get", obj({})},
            {"sandbox_get", obj({{"sandbox_id", 5}})},
            {"sandbox_get", obj({{"sandbox_id", "sbx_000000000000000000000000"}})},
            {"sandbox_destroy", obj({{"sandbox_id", "sbx_000000000000000000000000"}})},
            {"sandbox_list", obj({{"x", 1}})},
            {"sandbox_list", obj({{"limit", 0}})},
            {"sandbox_list", obj({{"limit", 1001}})},
            {"sandbox_list", obj({{"cursor", "12.sbx_1 OR 1=1"}})},
            {"sandbox_create", obj({{"workspace_id", "ws_000000000000000000000000"}})},
            {"sandbox_create", obj({{"workspace_id", "../etc"}})},
            {"sandbox_create", obj({{"bogus", true}})},
            {"sandbox_expose", obj({{"sandbox_id", "sbx_000000000000000000000000"}, {"port", 80}})},
        };
        for (const auto &c : cases) {
            const CallResult r = h.call(c.first, c.second);
            QVERIFY2(r.finished && r.result.isError, qPrintable(c.first + " " + r.text()));
            QVERIFY(!r.result.message.isEmpty());
        }
        QVERIFY(h.runtimes().isEmpty());
        QVERIFY(h.records.list(true).isEmpty());
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void memoryArgument()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        for (const char *bad : {"100m", "256m", "33g", "64g", "abc", "1t", "", "4 g", "-1g", "524287k", "0g"}) {
            const CallResult r = h.call("sandbox_create", obj({{"memory", QLatin1String(bad)}}));
            QVERIFY2(r.result.isError, bad);
            QVERIFY2(r.result.message.contains(QStringLiteral("\"%1\"").arg(QLatin1String(bad))), qPrintable(r.result.message));
        }
        QVERIFY(h.call("sandbox_create", obj({{"memory", 4}})).result.isError);
        QVERIFY(h.records.list(true).isEmpty());
        QVERIFY(h.workspaces->list().isEmpty());

        const CallResult ok = h.call("sandbox_create", obj({{"memory", "512M"}}));
        QVERIFY2(!ok.result.isError, qPrintable(ok.text()));
        QCOMPARE(ok.json().value("memory").toString(), QStringLiteral("512m"));
        const QStringList create = h.calls().last().first() == "create" ? h.calls().last() : h.calls().at(h.calls().size() - 2);
        QVERIFY2(create.join(' ').contains("--memory 512m"), qPrintable(create.join(' ')));
        QVERIFY(!h.call("sandbox_create", obj({{"memory", "32g"}})).result.isError);
    }

    void createFailures_data()
    {
        QTest::addColumn<QStringList>("faults");
        QTest::addColumn<bool>("withTemplate");
        QTest::addColumn<QString>("expected");
        QTest::newRow("create fails") << QStringList{"FAKE_SBX_FAIL_CREATE=disk full on purpose"} << true << "disk full on purpose";
        QTest::newRow("crash mid-create") << QStringList{"FAKE_SBX_CRASH_MID_CREATE=1"} << true << "sbx create";
        QTest::newRow("create hangs") << QStringList{"FAKE_SBX_CRASH_MID_CREATE=hang"} << true << "did not answer";
        QTest::newRow("health check fails") << QStringList{"FAKE_SBX_FAIL_EXEC=exec refused on purpose"} << true << "exec refused on purpose";
        QTest::newRow("health check hangs") << QStringList{"FAKE_SBX_HANG_EXEC=1"} << true << "did not answer";
    }

    void createFailures()
    {
        QFETCH(QStringList, faults);
        QFETCH(bool, withTemplate);
        QFETCH(QString, expected);
        TestEnvironment env;
        SandboxHarness h(env);
        pointFakeSbxAt(env, withTemplate);
        h.sbx->setTimeouts({1500, 5000, 1500});
        env.setSbxFaults(faults);
        const CallResult r = h.call("sandbox_create", {}, 20000);
        QVERIFY(r.finished);
        QVERIFY2(r.result.isError, qPrintable(r.text()));
        QVERIFY2(r.result.message.contains(expected), qPrintable(r.result.message));
        QVERIFY2(r.result.message.contains("failed until sandbox_destroy"), qPrintable(r.result.message));
        env.setSbxFaults({});
        QVERIFY2(h.runtimes().isEmpty(), qPrintable(h.runtimes().join(',')));
        // a visible failed record with its reason
        const CallResult l = h.call("sandbox_list");
        const QJsonArray items = l.json().value("sandboxes").toArray();
        QCOMPARE(items.size(), 1);
        const QJsonObject f = items.at(0).toObject();
        QCOMPARE(f.value("state").toString(), QStringLiteral("failed"));
        QVERIFY2(f.value("failure_reason").toString().contains(expected), qPrintable(f.value("failure_reason").toString()));
        // destroy clears it
        const CallResult d = h.call("sandbox_destroy", obj({{"sandbox_id", f.value("sandbox_id")}}));
        QVERIFY2(!d.result.isError, qPrintable(d.text()));
        QCOMPARE(h.call("sandbox_list").json().value("sandboxes").toArray().size(), 0);
        pointFakeSbxAt(env);
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    // sbx-contract.md: an unknown template fails as a registry pull (403). That is the host's set-up,
    // not a sandbox failure: an isError that says to run `chat2sbx setup`, and no failed record.
    void templateMissing()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        pointFakeSbxAt(env, false);
        const CallResult r = h.call("sandbox_create", {}, 20000);
        QVERIFY(r.finished);
        QVERIFY2(r.result.isError, qPrintable(r.text()));
        QVERIFY2(r.result.message.contains("template missing"), qPrintable(r.result.message));
        QVERIFY2(r.result.message.contains("chat2sbx setup"), qPrintable(r.result.message));
        QVERIFY2(!r.result.message.contains("failed until sandbox_destroy"), qPrintable(r.result.message));
        QCOMPARE(h.call("sandbox_list").json().value("sandboxes").toArray().size(), 0);
        QVERIFY(h.runtimes().isEmpty());
        // once setup made the template, the next create works
        pointFakeSbxAt(env);
        const CallResult ok = h.call("sandbox_create", {}, 20000);
        QVERIFY2(!ok.result.isError, qPrintable(ok.text()));
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void destroyWhenRuntimeIsAlreadyGone()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        const CallResult c = h.call("sandbox_create");
        QVERIFY2(!c.result.isError, qPrintable(c.text()));
        const QString runtime = h.runtimes().value(0);
        QProcess rm;
        rm.start(h.config.sbxPath, {"rm", "--force", runtime});
        QVERIFY(rm.waitForFinished(10000) && rm.exitCode() == 0);
        const CallResult d = h.call("sandbox_destroy", obj({{"sandbox_id", c.json().value("sandbox_id")}}));
        QVERIFY2(!d.result.isError, qPrintable(d.text()));
        QCOMPARE(d.json().value("state").toString(), QStringLiteral("destroyed"));
        // and a failing rm of a runtime that still exists is reported, record kept as failed
        const CallResult c2 = h.call("sandbox_create");
        env.setSbxFaults({"FAKE_SBX_FAIL_RM=rm refused on purpose"});
        const CallResult d2 = h.call("sandbox_destroy", obj({{"sandbox_id", c2.json().value("sandbox_id")}}));
        QVERIFY(d2.result.isError);
        QVERIFY2(d2.result.message.contains("rm refused on purpose"), qPrintable(d2.result.message));
        QCOMPARE(countState(h, SandboxState::Failed), 1);
        env.setSbxFaults({});
        QVERIFY(!h.call("sandbox_destroy", obj({{"sandbox_id", c2.json().value("sandbox_id")}})).result.isError);
        QVERIFY(h.runtimes().isEmpty());
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void reuseOfTheWorkspaceSandbox()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        const CallResult c = h.call("sandbox_create");
        const QString ws = c.json().value("workspace_id").toString();
        const CallResult again = h.call("sandbox_create", obj({{"workspace_id", ws}}));
        QVERIFY2(!again.result.isError, qPrintable(again.text()));
        QCOMPARE(again.json().value("sandbox_id").toString(), c.json().value("sandbox_id").toString());
        QCOMPARE(again.json().value("reused").toBool(), true);
        QCOMPARE(h.countCalls("create"), 1);
        // Reusing it with another memory size is refused, saying what runs and what to do.
        const CallResult bigger = h.call("sandbox_create", obj({{"workspace_id", ws}, {"memory", "2g"}}));
        QVERIFY(bigger.result.isError);
        QVERIFY2(bigger.text().contains("already running with the default amount of memory, not 2g"), qPrintable(bigger.text()));
        QCOMPARE(h.countCalls("create"), 1);

        // two concurrent creates on one workspace without a sandbox: one sandbox
        h.call("sandbox_destroy", obj({{"sandbox_id", c.json().value("sandbox_id")}}));
        env.setSbxFaults({"FAKE_SBX_SLOW_CREATE=300"});
        auto a = h.start("sandbox_create", obj({{"workspace_id", ws}}));
        auto b = h.start("sandbox_create", obj({{"workspace_id", ws}}));
        QVERIFY(waitFor([&] { return a->finished && b->finished; }, 20000));
        QVERIFY2(!a->result.isError && !b->result.isError, qPrintable(a->text() + b->text()));
        QCOMPARE(a->json().value("sandbox_id"), b->json().value("sandbox_id"));
        QCOMPARE(h.runtimes().size(), 1);
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void hostWorkspaceModes()
    {
        TestEnvironment env;
        const QString allowed = env.root() + "/projects";
        const QString repo = allowed + "/host-repo";
        QVERIFY(makeGitRepository(repo));   // clone mode wants a repository's top folder
        env.set("CHAT2SBX_ALLOWED_HOST_ROOTS", allowed);
        SandboxHarness h(env);
        for (WorkspaceMode mode : {WorkspaceMode::Clone, WorkspaceMode::Direct}) {
            QString error;
            const auto registered = h.workspaces->registerHost(repo, mode, error);
            QVERIFY2(registered, qPrintable(error));
            const Workspace w = *registered;
            const CallResult c = h.call("sandbox_create", obj({{"workspace_id", w.id}}));
            QVERIFY2(!c.result.isError, qPrintable(c.text()));
            QCOMPARE(c.json().value("workspace_path").toString(), repo);
            QCOMPARE(c.json().value("workspace_mode").toString(), workspaceModeName(mode));
            QStringList create;
            for (const QStringList &call : h.calls())
                if (call.first() == "create")
                    create = call;
            QCOMPARE(create.last(), repo);
            QCOMPARE(create.contains("--clone"), mode == WorkspaceMode::Clone);
            RunningSandbox rs;
            QVERIFY(h.sandboxes->resolveRunning(c.json().value("sandbox_id").toString(), rs, error));
            QCOMPARE(rs.workspacePath, repo);
            QVERIFY(!rs.managedWorkspace);
        }
        // a host directory gone since approval is refused before anything is created
        const QString other = allowed + "/other";
        QDir().mkpath(other);
        QString error;
        const auto w2 = h.workspaces->registerHost(other, WorkspaceMode::Direct, error);
        QVERIFY2(w2, qPrintable(error));
        QVERIFY(QDir(other).removeRecursively());
        const int before = static_cast<int>(h.records.list(true).size());
        const CallResult refused = h.call("sandbox_create", obj({{"workspace_id", w2->id}}));
        QVERIFY2(refused.result.isError, qPrintable(refused.text()));
        QCOMPARE(static_cast<int>(h.records.list(true).size()), before);
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void limitUnderConcurrency()
    {
        TestEnvironment env;
        env.set("CHAT2SBX_MAX_ACTIVE_SANDBOXES", "5");
        SandboxHarness h(env);
        QCOMPARE(h.config.maxActiveSandboxes, 5);
        env.setSbxFaults({"FAKE_SBX_SLOW_CREATE=200"});
        QList<std::shared_ptr<CallResult>> calls;
        for (int i = 0; i < 20; ++i)
            calls << h.start("sandbox_create");
        QVERIFY(waitFor([&] { return std::all_of(calls.begin(), calls.end(), [](auto &c) { return c->finished; }); }, 60000));
        int ok = 0, refused = 0;
        for (const auto &c : calls) {
            if (!c->result.isError)
                ++ok;
            else if (c->result.message.contains("limit of 5 active sandboxes"))
                ++refused;
            else
                qWarning("unexpected: %s", qPrintable(c->text()));
        }
        QCOMPARE(ok, 5);
        QCOMPARE(refused, 15);
        QCOMPARE(h.runtimes().size(), 5);
        QCOMPARE(h.records.list(true).size(), 5);
        QCOMPARE(h.countCalls("create"), 5);
        // refusals did not leave managed workspaces behind
        QCOMPARE(h.workspaces->list().size(), 5);
        // reuse is not blocked by the limit, destroy is not either
        QString anyWs;
        QString anyId;
        for (const auto &c : calls)
            if (!c->result.isError) {
                anyWs = c->json().value("workspace_id").toString();
                anyId = c->json().value("sandbox_id").toString();
            }
        const CallResult reuse = h.call("sandbox_create", obj({{"workspace_id", anyWs}}));
        QVERIFY2(!reuse.result.isError && reuse.json().value("reused").toBool(), qPrintable(reuse.text()));
        QVERIFY(!h.call("sandbox_destroy", obj({{"sandbox_id", anyId}})).result.isError);
        QVERIFY(!h.call("sandbox_create").result.isError);
        QCOMPARE(h.runtimes().size(), 5);
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void idleExpiry()
    {
        TestEnvironment env;
        env.set("CHAT2SBX_SANDBOX_IDLE_SECONDS", "60");
        SandboxHarness h(env);
        QCOMPARE(h.config.sandboxIdleSeconds, qint64(60));
        const CallResult c = h.call("sandbox_create");
        const QString id = c.json().value("sandbox_id").toString();
        h.clock.advance(40000);
        h.sandboxes->idleExpiry().checkIdle();
        RunningSandbox rs;
        QString error;
        QVERIFY2(h.sandboxes->resolveRunning(id, rs, error), qPrintable(error));   // renews
        QVERIFY(!rs.runtimeName.isEmpty());
        h.clock.advance(40000);   // 80 s after create, 40 s after the renewal
        h.sandboxes->idleExpiry().checkIdle();
        QCOMPARE(h.sandboxes->get(id)->record.state, SandboxState::Running);
        QVERIFY(h.call("sandbox_get", obj({{"sandbox_id", id}})).json().value("idle_deadline").toString()
                == isoTime(h.clock.nowMs() - 40000 + 60000));
        h.clock.advance(20001);
        h.sandboxes->idleExpiry().checkIdle();
        QVERIFY(waitFor([&] { return h.sandboxes->get(id)->record.state == SandboxState::Destroyed; }, 10000));
        QVERIFY(h.runtimes().isEmpty());
        const CallResult g = h.call("sandbox_get", obj({{"sandbox_id", id}}));
        QVERIFY2(g.json().value("failure_reason").toString().contains("idle"), qPrintable(g.text()));
        QVERIFY(!h.sandboxes->resolveRunning(id, rs, error));
        QVERIFY2(error.contains("not running"), qPrintable(error));

        // the timer does it on its own too
        const CallResult c2 = h.call("sandbox_create");
        const QString id2 = c2.json().value("sandbox_id").toString();
        h.sandboxes->idleExpiry().setIdleCheckIntervalMs(50);
        QVERIFY(h.reconcile());   // starts the idle timer
        h.clock.advance(61000);
        QVERIFY(waitFor([&] { return h.sandboxes->get(id2)->record.state == SandboxState::Destroyed; }, 10000));
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void expose()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        const CallResult c = h.call("sandbox_create");
        const QString id = c.json().value("sandbox_id").toString();
        const CallResult e = h.call("sandbox_expose", obj({{"sandbox_id", id}, {"port", 8080}}));
        QVERIFY2(!e.result.isError, qPrintable(e.text()));
        const int hostPort = e.json().value("host_port").toInt();
        QVERIFY(hostPort > 0);
        QCOMPARE(e.json().value("sandbox_port").toInt(), 8080);
        QCOMPARE(e.json().value("already_exposed").toBool(true), false);
        const CallResult e2 = h.call("sandbox_expose", obj({{"sandbox_id", id}, {"port", 8080}}));
        QCOMPARE(e2.json().value("host_port").toInt(), hostPort);
        QCOMPARE(e2.json().value("already_exposed").toBool(), true);
        int publishes = 0;
        for (const QStringList &call : h.calls())
            publishes += call.contains("--publish") ? 1 : 0;
        QCOMPARE(publishes, 1);
        // the mapping shows in the summary
        const QJsonArray ports = h.call("sandbox_get", obj({{"sandbox_id", id}})).json().value("ports").toArray();
        QCOMPARE(ports.size(), 1);
        QCOMPARE(ports.at(0).toObject().value("host_port").toInt(), hostPort);
        for (const QJsonValue &bad : {QJsonValue(0), QJsonValue(65536), QJsonValue(80.5), QJsonValue("80"), QJsonValue()}) {
            const CallResult r = h.call("sandbox_expose", obj({{"sandbox_id", id}, {"port", bad}}));
            QVERIFY2(r.result.isError, qPrintable(r.text()));
        }
        // a publish failure is readable
        env.setSbxFaults({"FAKE_SBX_FAIL_PUBLISH=port busy on purpose"});
        const CallResult f = h.call("sandbox_expose", obj({{"sandbox_id", id}, {"port", 9090}}));
        QVERIFY(f.result.isError);
        QVERIFY2(f.result.message.contains("port busy on purpose"), qPrintable(f.result.message));
        env.setSbxFaults({});
        h.call("sandbox_destroy", obj({{"sandbox_id", id}}));
        const CallResult gone = h.call("sandbox_expose", obj({{"sandbox_id", id}, {"port", 8080}}));
        QVERIFY(gone.result.isError);
        QVERIFY2(gone.result.message.contains("not running"), qPrintable(gone.result.message));
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void agentsFile()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        const QString agents = h.config.agentsFilePath();
        const QByteArray text = "# Rules\n\nUse pnpm, not npm. Ünïcode ✓  \n\n";
        QVERIFY(writeFile(agents, text));
        const CallResult c = h.call("sandbox_create");
        QVERIFY2(!c.result.isError, qPrintable(c.text()));
        QCOMPARE(c.json().value("agents_md").toString().toUtf8(), text);
        const QString id = c.json().value("sandbox_id").toString();
        QVERIFY(writeFile(agents, "changed\n"));
        QCOMPARE(h.call("sandbox_get", obj({{"sandbox_id", id}})).json().value("agents_md").toString(), QStringLiteral("changed\n"));

        // a symlink is refused, before anything is created
        QFile::remove(agents);
        QVERIFY(writeFile(env.root() + "/elsewhere.md", "secret"));
        QVERIFY(QFile::link(env.root() + "/elsewhere.md", agents));
        const int before = static_cast<int>(h.records.list(true).size());
        const int workspacesBefore = static_cast<int>(h.workspaces->list().size());
        CallResult r = h.call("sandbox_create");
        QVERIFY(r.result.isError);
        QVERIFY2(r.result.message.contains("symbolic link"), qPrintable(r.result.message));
        QVERIFY(!r.text().contains("secret"));
        QVERIFY(h.call("sandbox_get", obj({{"sandbox_id", id}})).result.isError);
        // a directory (non-regular) is refused
        QFile::remove(agents);
        QVERIFY(QDir().mkpath(agents));
        r = h.call("sandbox_create");
        QVERIFY(r.result.isError);
        QVERIFY2(r.result.message.contains("not a regular file"), qPrintable(r.result.message));
        QDir(agents).removeRecursively();
        // a FIFO (non-regular; reading it would block) is refused
        QVERIFY(::mkfifo(QFile::encodeName(agents).constData(), 0600) == 0);
        r = h.call("sandbox_create");
        QVERIFY(r.result.isError);
        QVERIFY2(r.result.message.contains("not a regular file"), qPrintable(r.result.message));
        QFile::remove(agents);
        QCOMPARE(static_cast<int>(h.records.list(true).size()), before);
        QCOMPARE(static_cast<int>(h.workspaces->list().size()), workspacesBefore);
        QCOMPARE(h.runtimes().size(), 1);
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void agentsFileUnreadable()
    {
        if (::geteuid() == 0)
            QSKIP("running as root: a mode-000 file is still readable");
        TestEnvironment env;
        SandboxHarness h(env);
        const QString agents = h.config.agentsFilePath();
        QVERIFY(writeFile(agents, "x"));
        QVERIFY(::chmod(QFile::encodeName(agents).constData(), 0) == 0);
        const CallResult r = h.call("sandbox_create");
        QVERIFY(r.result.isError);
        QVERIFY2(r.result.message.contains("cannot be read"), qPrintable(r.result.message));
        QVERIFY(h.records.list(true).isEmpty());
        QVERIFY(h.workspaces->list().isEmpty());
        QVERIFY(h.runtimes().isEmpty());
    }

    void sbxUnavailable()
    {
        TestEnvironment env;
        {
            // a record from an earlier run
            SandboxHarness first(env);
            QVERIFY(!first.call("sandbox_create").result.isError);
        }
        SandboxHarness h(env, env.root() + "/no-such-sbx");
        h.sandboxes->reconciler().setRetryIntervalMs(100000);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("sbx is not available"));
        QVERIFY(h.reconcile());
        QVERIFY(!h.sandboxes->reconciler().isSbxAvailable());
        const CallResult created = h.call(QStringLiteral("sandbox_create"));
        QVERIFY(created.result.isError);
        QVERIFY2(created.result.message.startsWith("sbx is not available: "), qPrintable(created.result.message));
        // The records answer at once, as last recorded, with why sbx cannot be used.
        const CallResult listed = h.call(QStringLiteral("sandbox_list"));
        QVERIFY2(!listed.result.isError, qPrintable(listed.text()));
        QCOMPARE(listed.json().value("sandboxes").toArray().size(), 1);
        QVERIFY2(listed.json().value("sbx_problem").toString().startsWith("sbx is not available: "), qPrintable(listed.text()));
        // the record is untouched
        const auto all = h.records.list(true);
        QCOMPARE(all.size(), 1);
        QCOMPARE(all.at(0).state, SandboxState::Running);
        RunningSandbox rs;
        QString error;
        QVERIFY(!h.sandboxes->resolveRunning(all.at(0).id, rs, error));
        QVERIFY(error.startsWith("sbx is not available"));
        QVERIFY2(h.leaks.isEmpty(), qPrintable(h.leaks.join('\n')));
    }

    void sbxComesBack()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        env.setSbxFaults({"FAKE_SBX_FAIL_LS=daemon down on purpose"});
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("sbx is not available.*daemon down on purpose"));
        QVERIFY(h.reconcile());
        QVERIFY(!h.sandboxes->reconciler().isSbxAvailable());
        const CallResult r = h.call("sandbox_create");
        QVERIFY(r.result.isError);
        QVERIFY2(r.result.message.contains("daemon down on purpose"), qPrintable(r.result.message));
        env.setSbxFaults({});
        const CallResult ok = h.call("sandbox_create");   // the call retries reconciliation first
        QVERIFY2(!ok.result.isError, qPrintable(ok.text()));
        QVERIFY(h.sandboxes->reconciler().isSbxAvailable());
    }

    void publicTextHidesInternals()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        const CallResult c = h.call("sandbox_create");
        const QString id = c.json().value("sandbox_id").toString();
        const QString runtime = h.records.find(id)->runtimeName;
        const QString ws = c.json().value("workspace_id").toString();
        const QString raw = QStringLiteral("sandbox %1 failed at %2/%3/src and %4/x, other chat2sbx-0123456789abcdef")
                                .arg(runtime, h.config.workspaceRoot, ws, h.config.stateDir);
        const QString shown = h.sandboxes->publicText(raw);
        QVERIFY2(!shown.contains(runtime) && !shown.contains(env.dataRoot()) && !shown.contains("chat2sbx-0123"), qPrintable(shown));
        QVERIFY2(shown.contains(id) && shown.contains("~/workspace/src"), qPrintable(shown));
    }
};

QTEST_GUILESS_MAIN(TestSandboxTools)
#include "tst_sandbox_tools.moc"
