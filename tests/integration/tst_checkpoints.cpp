// sandbox_checkpoint and sandbox_checkpoints (issue 45, first part) against the fake sbx: a scratch
// sandbox is saved as it is — its VM's disk as the template chat2sbx-checkpoint:<id> (the fake keeps
// HOME), its workspace copied on the host — and listed ready; the sandbox is stopped for it and woken
// by the next tool call. A failing `sbx template save` leaves a failed checkpoint with the reason and
// nothing made; a checkpoint a crash left `saving` is removed at the next start. sandbox_restore
// takes the same sandbox back (the present checkpointed first), puts it back when it cannot finish,
// and a restore a crash interrupted is finished at the next start.
#include "SandboxHarness.h"

#include "sandbox/changes/CheckpointService.h"
#include "state/BashSessionRepository.h"
#include "state/CheckpointRepository.h"
#include "tools/CheckpointTools.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <optional>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestCheckpoints : public QObject {
    Q_OBJECT

    TestEnvironment env;
    std::unique_ptr<SandboxHarness> h;
    // The service under test, over the harness's services (the product builds it in runtime/Services).
    std::optional<CheckpointService> checkpoints;
    QString id, runtime, workspace;

    QString sbxHome() const { return env.sbxState() + QStringLiteral("/sandboxes/") + runtime + QStringLiteral("/home"); }

private slots:
    void initTestCase()
    {
        env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
        QVERIFY(QDir().mkpath(env.root() + QStringLiteral("/projects/site")));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), env.root() + QStringLiteral("/projects"));
        h = std::make_unique<SandboxHarness>(env);
        QVERIFY(h->opened);
        checkpoints.emplace(h->config, h->db, *h->sandboxes, *h->sbx, h->clock, nullptr);
        registerCheckpointTools(h->tools, *checkpoints, *h->sandboxes, h->config);
        QVERIFY(h->reconcile());
        const CallResult created = h->call(QStringLiteral("sandbox_create"), {}, scaled(60000));
        QVERIFY2(created.finished && !created.result.isError, qPrintable(created.text()));
        id = created.json().value(QStringLiteral("sandbox_id")).toString();
        const SandboxView view = *h->sandboxes->get(id);
        runtime = view.record.runtimeName;
        workspace = view.workspace->hostPath;
    }

    void aScratchSandboxIsSavedAndListed()
    {
        QVERIFY(writeFile(workspace + QStringLiteral("/notes/plan.md"), "step 1\n"));
        QVERIFY(writeFile(sbxHome() + QStringLiteral("/.installed"), "left-pad 1.3\n"));
        const CallResult r = h->call(QStringLiteral("sandbox_checkpoint"),
                                     {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("label"), QStringLiteral("before the upgrade")}},
                                     scaled(60000));
        QVERIFY2(r.finished && !r.result.isError, qPrintable(r.text()));
        const QJsonObject o = r.json();
        const QString ckp = o.value(QStringLiteral("checkpoint_id")).toString();
        QVERIFY2(ckp.startsWith(QLatin1String("ckp_")) && o.value(QStringLiteral("state")).toString() == QLatin1String("ready"), qPrintable(r.text()));
        QVERIFY(o.value(QStringLiteral("workspace_copied")).toBool());
        // The template's size as `sbx template ls` reports it (the fake: 700 MiB and what HOME holds) and the copy.
        QVERIFY2(o.value(QStringLiteral("size_bytes")).toDouble() >= 734003200.0 + 7 + 13, qPrintable(r.text()));
        QVERIFY2(QJsonDocument(o.value(QStringLiteral("not_kept")).toArray()).toJson().contains("Docker images"), qPrintable(r.text()));
        QVERIFY2(QJsonDocument(o.value(QStringLiteral("kept")).toArray()).toJson().contains("secrets"), qPrintable(r.text()));

        // The VM's side: the template, holding HOME as it was. The workspace: a copy on the host.
        const CliResult ls = runFakeSbx(env, {QStringLiteral("template"), QStringLiteral("ls"), QStringLiteral("--json")});
        QVERIFY2(ls.out.contains(("\"" + ckp + "\"").toUtf8()), ls.out.constData());
        QCOMPARE(readFile(env.sbxState() + QStringLiteral("/templates/chat2sbx-checkpoint_") + ckp + QStringLiteral("/home/.installed")),
                 QByteArray("left-pad 1.3\n"));
        const QString copy = h->config.dataRoot + QStringLiteral("/checkpoints/") + ckp + QStringLiteral("/workspace");
        QCOMPARE(readFile(copy + QStringLiteral("/notes/plan.md")), QByteArray("step 1\n"));
        QVERIFY(!QFileInfo::exists(copy + QStringLiteral(".partial")));

        const CallResult listed = h->call(QStringLiteral("sandbox_checkpoints"), {{QStringLiteral("sandbox_id"), id}});
        const QJsonArray list = listed.json().value(QStringLiteral("checkpoints")).toArray();
        QVERIFY2(list.size() == 1 && list.at(0).toObject().value(QStringLiteral("label")).toString() == QLatin1String("before the upgrade"),
                 qPrintable(listed.text()));

        // The same list from a terminal.
        const CliResult cli = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("checkpoints"), id, QStringLiteral("--json")});
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        const QJsonArray fromCli = QJsonDocument::fromJson(cli.out).object().value(QStringLiteral("checkpoints")).toArray();
        QVERIFY2(fromCli.size() == 1 && fromCli.at(0).toObject().value(QStringLiteral("checkpoint_id")).toString() == ckp, cli.out.constData());
        const CliResult table = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("checkpoints"), id});
        QVERIFY2(table.exitCode == 0 && table.out.contains(ckp.toUtf8()) && table.out.contains("before the upgrade"), table.out.constData());
        QCOMPARE(runCli(env, {QStringLiteral("sandbox"), QStringLiteral("checkpoints"), QStringLiteral("nope")}).exitCode, 2);

        // Stopped for the save, released after: the next tool call wakes it.
        QCOMPARE(h->sandboxes->get(id)->record.state, SandboxState::Stopped);
        QVERIFY(h->sandboxes->heldFor(id).isEmpty());
        RunningSandbox running;
        QString error;
        QVERIFY2(h->sandboxes->resolveRunning(id, running, error), qPrintable(error));
        QVERIFY(running.wokeFromSleep);
        QVERIFY(h->leaks.isEmpty());
    }

    void aFailedSaveLeavesNothingButTheReason()
    {
        env.setSbxFaults({QStringLiteral("FAKE_SBX_FAIL_TEMPLATE_SAVE=no space left on device")});
        const CallResult r = h->call(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), id}}, scaled(60000));
        env.setSbxFaults({});
        QVERIFY2(r.result.isError && r.text().contains(QStringLiteral("no space left on device")), qPrintable(r.text()));
        const QList<Checkpoint> all = checkpoints->list(id);
        QCOMPARE(all.size(), 2);
        QCOMPARE(all.last().state, CheckpointState::Failed);
        QVERIFY(all.last().failure.contains(QStringLiteral("no space left")));
        QVERIFY(!QFileInfo::exists(h->config.dataRoot + QStringLiteral("/checkpoints/") + all.last().id));
        QVERIFY(h->sandboxes->heldFor(id).isEmpty());
        RunningSandbox running;
        QString error;
        QVERIFY2(h->sandboxes->resolveRunning(id, running, error), qPrintable(error));
    }

    QString metaTemplate() const
    {
        return QJsonDocument::fromJson(readFile(env.sbxState() + QStringLiteral("/sandboxes/") + runtime + QStringLiteral("/meta.json")))
            .object().value(QStringLiteral("template")).toString();
    }

    QString checkpoint(const QString &label)
    {
        const CallResult r = h->call(QStringLiteral("sandbox_checkpoint"),
                                     {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("label"), label}}, scaled(60000));
        return r.finished && !r.result.isError ? r.json().value(QStringLiteral("checkpoint_id")).toString() : QString();
    }

    CallResult restore(const QString &checkpointId)
    {
        return h->call(QStringLiteral("sandbox_restore"),
                       {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("checkpoint_id"), checkpointId}}, scaled(90000));
    }

    void aRestoreBringsBackTheOldStateAndCanBeUndone()
    {
        QVERIFY(writeFile(workspace + QStringLiteral("/app/db.sql"), "schema v1\n"));
        QVERIFY(writeFile(sbxHome() + QStringLiteral("/.local/bin/migrate"), "migrate 1.0\n"));
        const QString before = checkpoint(QStringLiteral("before the migration"));
        QVERIFY(!before.isEmpty());

        // The risky thing: the schema rewritten, a file added, a "package" upgraded in HOME.
        QVERIFY(writeFile(workspace + QStringLiteral("/app/db.sql"), "schema v2 (broken)\n"));
        QVERIFY(writeFile(workspace + QStringLiteral("/app/new-table.sql"), "create table t;\n"));
        QVERIFY(writeFile(sbxHome() + QStringLiteral("/.local/bin/migrate"), "migrate 2.0\n"));

        const CallResult r = restore(before);
        QVERIFY2(r.finished && !r.result.isError, qPrintable(r.text()));
        const QJsonObject o = r.json();
        QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("restored"));
        const QString undo = o.value(QStringLiteral("undo_checkpoint_id")).toString();
        QVERIFY2(undo.startsWith(QLatin1String("ckp_")) && undo != before, qPrintable(r.text()));
        QVERIFY(QJsonDocument(o.value(QStringLiteral("not_restored")).toArray()).toJson().contains("Docker images"));
        QCOMPARE(o.value(QStringLiteral("restored")).toArray().size(), 2);   // the VM's disk and the workspace

        // The same sandbox id and runtime, its VM made again from the checkpoint's template.
        QCOMPARE(readFile(workspace + QStringLiteral("/app/db.sql")), QByteArray("schema v1\n"));
        QVERIFY(!QFileInfo::exists(workspace + QStringLiteral("/app/new-table.sql")));
        QVERIFY(!QFileInfo::exists(workspace + QStringLiteral(".restoring")) && !QFileInfo::exists(workspace + QStringLiteral(".replaced")));
        QCOMPARE(readFile(sbxHome() + QStringLiteral("/.local/bin/migrate")), QByteArray("migrate 1.0\n"));
        QCOMPARE(metaTemplate(), Checkpoint::templateRefFor(before));
        const SandboxView view = *h->sandboxes->get(id);
        QCOMPARE(view.record.runtimeName, runtime);
        QCOMPARE(view.record.state, SandboxState::Stopped);
        QVERIFY(h->sandboxes->heldFor(id).isEmpty());
        QVERIFY(!checkpoints->pendingRestore(id));
        const std::optional<Checkpoint> undone = checkpoints->find(undo);
        QVERIFY(undone && undone->isReady() && undone->label.contains(QStringLiteral("before the migration")));

        // The present was kept: restoring the undo checkpoint brings the broken state back.
        const CallResult back = restore(undo);
        QVERIFY2(back.finished && !back.result.isError, qPrintable(back.text()));
        QCOMPARE(readFile(workspace + QStringLiteral("/app/db.sql")), QByteArray("schema v2 (broken)\n"));
        QVERIFY(QFileInfo::exists(workspace + QStringLiteral("/app/new-table.sql")));
        QCOMPARE(readFile(sbxHome() + QStringLiteral("/.local/bin/migrate")), QByteArray("migrate 2.0\n"));

        // The next tool call starts the restored VM.
        RunningSandbox running;
        QString error;
        QVERIFY2(h->sandboxes->resolveRunning(id, running, error), qPrintable(error));
        const CliResult cat = runFakeSbx(env, {QStringLiteral("exec"), runtime, QStringLiteral("sh"), QStringLiteral("-c"),
                                                QStringLiteral("cat \"$HOME/.local/bin/migrate\"")});
        QVERIFY2(cat.exitCode == 0 && cat.out == "migrate 2.0\n", cat.out + cat.err);
        QVERIFY(h->leaks.isEmpty());
    }

    void runningCommandsAreRefusedUnlessTheyMayEnd()
    {
        // A command running in the sandbox (as bash leaves its record while it runs).
        BashSessionRecord running;
        running.id = QStringLiteral("bash_00000000000000000000c0de");
        running.sandboxId = id;
        running.command = QStringLiteral("npm run dev");
        running.startedAt = h->clock.nowMs();
        QString error;
        QVERIFY(BashSessionRepository(h->db).insert(running, error));
        const int before = checkpoints->list(id).size();
        for (const QString &tool : {QStringLiteral("sandbox_checkpoint"), QStringLiteral("sandbox_fork")}) {
            const CallResult refused = h->call(tool, {{QStringLiteral("sandbox_id"), id}}, scaled(60000));
            QVERIFY2(refused.result.isError && refused.text().contains(QStringLiteral("end_running_commands")), qPrintable(refused.text()));
        }
        const CallResult restoreRefused = restore(checkpoints->list(id).first().id);
        QVERIFY2(restoreRefused.result.isError && restoreRefused.text().contains(QStringLiteral("end_running_commands")),
                 qPrintable(restoreRefused.text()));
        QCOMPARE(checkpoints->list(id).size(), before);   // nothing recorded, nothing stopped
        QVERIFY(h->sandboxes->heldFor(id).isEmpty());

        const CallResult allowed = h->call(QStringLiteral("sandbox_checkpoint"),
                                           {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("end_running_commands"), true}}, scaled(60000));
        QVERIFY2(allowed.finished && !allowed.result.isError, qPrintable(allowed.text()));
        QVERIFY(!BashSessionRepository(h->db).hasRunning(id));   // the stop ended it: recorded as lost
    }

    void aRestoreRefusesWhatItCannotDo()
    {
        const CallResult unknown = restore(QStringLiteral("ckp_000000000000000000000000"));
        QVERIFY2(unknown.result.isError && unknown.text().contains(QStringLiteral("unknown checkpoint_id")), qPrintable(unknown.text()));
        const QList<Checkpoint> all = checkpoints->list(id);
        const auto failed = std::find_if(all.begin(), all.end(), [](const Checkpoint &c) { return c.state == CheckpointState::Failed; });
        QVERIFY(failed != all.end());
        const CallResult broken = restore(failed->id);
        QVERIFY2(broken.result.isError && broken.text().contains(QStringLiteral("failed and holds nothing")), qPrintable(broken.text()));
        const CallResult other = h->call(QStringLiteral("sandbox_restore"),
                                         {{QStringLiteral("sandbox_id"), QStringLiteral("sbx_000000000000000000000000")},
                                          {QStringLiteral("checkpoint_id"), all.first().id}});
        QVERIFY2(other.result.isError && other.text().contains(QStringLiteral("unknown sandbox_id")), qPrintable(other.text()));
        QCOMPARE(checkpoints->list(id).size(), all.size());   // nothing was saved for a refused restore
    }

    void aRestoreThatCannotFinishPutsTheSandboxBack()
    {
        QVERIFY(writeFile(workspace + QStringLiteral("/state.txt"), "old\n"));
        const QString old = checkpoint(QStringLiteral("old"));
        QVERIFY(!old.isEmpty());
        QVERIFY(writeFile(workspace + QStringLiteral("/state.txt"), "current\n"));
        // Its template removed behind chat2sbx's back: `sbx create --template` fails with the pull error.
        QCOMPARE(runFakeSbx(env, {QStringLiteral("template"), QStringLiteral("rm"), Checkpoint::templateRefFor(old)}).exitCode, 0);
        const CallResult r = restore(old);
        QVERIFY2(r.result.isError && r.text().contains(QStringLiteral("is as it was before")), qPrintable(r.text()));
        QCOMPARE(readFile(workspace + QStringLiteral("/state.txt")), QByteArray("current\n"));
        QVERIFY(!checkpoints->pendingRestore(id));
        QVERIFY(h->sandboxes->heldFor(id).isEmpty());
        QCOMPARE(readFile(sbxHome() + QStringLiteral("/.local/bin/migrate")), QByteArray("migrate 2.0\n"));
        const Checkpoint undo = checkpoints->list(id).last();   // saved by the restore, before it began
        QVERIFY2(undo.label.startsWith(QStringLiteral("before restoring")) && r.text().contains(undo.id), qPrintable(r.text()));
        QCOMPARE(metaTemplate(), Checkpoint::templateRefFor(undo.id));
    }

    void aRestoreACrashInterruptedIsFinishedAtTheNextStart()
    {
        QVERIFY(writeFile(workspace + QStringLiteral("/state.txt"), "wanted\n"));
        const QString wanted = checkpoint(QStringLiteral("wanted"));
        QVERIFY(writeFile(workspace + QStringLiteral("/state.txt"), "present\n"));
        const QString undo = checkpoint(QStringLiteral("present"));
        QVERIFY(!wanted.isEmpty() && !undo.isEmpty());
        // The crash: the row written, the VM removed, the copy half made beside the workspace.
        QString error;
        QVERIFY(CheckpointRepository(h->db).beginRestore({id, wanted, undo, 1}, error));
        QCOMPARE(runFakeSbx(env, {QStringLiteral("rm"), QStringLiteral("--force"), runtime}).exitCode, 0);
        QVERIFY(writeFile(workspace + QStringLiteral(".restoring.partial/half"), "x"));

        checkpoints->reconcile();   // what the Controller calls at start, before the sandbox reconciliation
        QVERIFY(h->reconcile());    // finds no VM under the name, but the sandbox is the restore's
        QVERIFY(waitFor([&] { return !checkpoints->pendingRestore(id); }, scaled(60000)));
        QCOMPARE(readFile(workspace + QStringLiteral("/state.txt")), QByteArray("wanted\n"));
        QVERIFY(!QFileInfo::exists(workspace + QStringLiteral(".restoring.partial")));
        QCOMPARE(metaTemplate(), Checkpoint::templateRefFor(wanted));
        QCOMPARE(h->sandboxes->get(id)->record.state, SandboxState::Stopped);
        QVERIFY(h->sandboxes->heldFor(id).isEmpty());
    }

    CallResult fork(const QJsonObject &args) { return h->call(QStringLiteral("sandbox_fork"), args, scaled(90000)); }

    void twoForksOfOneCheckpointDiverge()
    {
        QVERIFY(writeFile(workspace + QStringLiteral("/base.txt"), "shared start\n"));
        QVERIFY(writeFile(sbxHome() + QStringLiteral("/.tool-version"), "1\n"));
        const QString base = checkpoint(QStringLiteral("base"));
        QVERIFY(!base.isEmpty());
        const int activeBefore = h->sandboxes->countActive();

        QStringList forks;
        for (const QString &name : {QStringLiteral("approach A"), QStringLiteral("approach B")}) {
            const CallResult r = fork({{QStringLiteral("checkpoint_id"), base}, {QStringLiteral("name"), name}});
            QVERIFY2(r.finished && !r.result.isError, qPrintable(r.text()));
            const QJsonObject o = r.json();
            const QString forkId = o.value(QStringLiteral("sandbox_id")).toString();
            QVERIFY2(forkId.startsWith(QLatin1String("sbx_")) && forkId != id && !forks.contains(forkId), qPrintable(r.text()));
            QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
            const QJsonObject from = o.value(QStringLiteral("forked_from")).toObject();
            QCOMPARE(from.value(QStringLiteral("sandbox_id")).toString(), id);
            QCOMPARE(from.value(QStringLiteral("checkpoint_id")).toString(), base);
            QCOMPARE(from.value(QStringLiteral("name")).toString(), name);
            const std::optional<CheckpointRepository::Fork> recorded = checkpoints->forkOf(forkId);
            QVERIFY(recorded && recorded->parentSandboxId == id && recorded->checkpointId == base);
            forks << forkId;
        }
        QCOMPARE(h->sandboxes->countActive(), activeBefore + 2);   // forks count like any sandbox

        // sandbox_list and sandbox_get name each fork's parent.
        const CallResult listed = h->call(QStringLiteral("sandbox_list"), {});
        int named = 0;
        for (const QJsonValue &v : listed.json().value(QStringLiteral("sandboxes")).toArray()) {
            const QJsonObject from = v.toObject().value(QStringLiteral("forked_from")).toObject();
            if (forks.contains(v.toObject().value(QStringLiteral("sandbox_id")).toString()))
                named += from.value(QStringLiteral("sandbox_id")).toString() == id && from.value(QStringLiteral("checkpoint_id")).toString() == base;
            else
                QVERIFY(from.isEmpty());
        }
        QVERIFY2(named == 2, qPrintable(listed.text()));
        const CallResult got = h->call(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), forks.at(0)}});
        QCOMPARE(got.json().value(QStringLiteral("forked_from")).toObject().value(QStringLiteral("checkpoint_id")).toString(), base);

        // Each has its own workspace copy and its own VM from the checkpoint's disk.
        const SandboxView a = *h->sandboxes->get(forks.at(0));
        const SandboxView b = *h->sandboxes->get(forks.at(1));
        QVERIFY(a.workspace && b.workspace && a.workspace->hostPath != b.workspace->hostPath && a.workspace->hostPath != workspace);
        QCOMPARE(readFile(a.workspace->hostPath + QStringLiteral("/base.txt")), QByteArray("shared start\n"));
        QCOMPARE(readFile(b.workspace->hostPath + QStringLiteral("/base.txt")), QByteArray("shared start\n"));
        const auto homeOf = [&](const SandboxView &v) {
            return env.sbxState() + QStringLiteral("/sandboxes/") + v.record.runtimeName + QStringLiteral("/home");
        };
        QCOMPARE(readFile(homeOf(a) + QStringLiteral("/.tool-version")), QByteArray("1\n"));
        QVERIFY(writeFile(a.workspace->hostPath + QStringLiteral("/base.txt"), "A's way\n"));
        QVERIFY(writeFile(homeOf(b) + QStringLiteral("/.tool-version"), "2\n"));
        QCOMPARE(readFile(b.workspace->hostPath + QStringLiteral("/base.txt")), QByteArray("shared start\n"));
        QCOMPARE(readFile(homeOf(a) + QStringLiteral("/.tool-version")), QByteArray("1\n"));
        QCOMPARE(readFile(workspace + QStringLiteral("/base.txt")), QByteArray("shared start\n"));

        // A fork never takes a warm sandbox, and is refused at the limit before anything is made.
        const int workspacesBefore = h->workspaces->list().size();
        const int limit = h->config.maxActiveSandboxes;
        h->config.maxActiveSandboxes = h->sandboxes->countActive();
        const CallResult full = fork({{QStringLiteral("checkpoint_id"), base}});
        h->config.maxActiveSandboxes = limit;
        QVERIFY2(full.result.isError && full.text().contains(QStringLiteral("maxActiveSandboxes")), qPrintable(full.text()));
        QCOMPARE(h->workspaces->list().size(), workspacesBefore);

        for (const QString &f : forks) {
            const CallResult gone = h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), f}}, scaled(60000));
            QVERIFY2(!gone.result.isError, qPrintable(gone.text()));
        }
    }

    void aForkOfTheSandboxItselfTakesACheckpointFirst()
    {
        QVERIFY(writeFile(workspace + QStringLiteral("/now.txt"), "as it is now\n"));
        const int before = checkpoints->list(id).size();
        const CallResult r = fork({{QStringLiteral("sandbox_id"), id}});
        QVERIFY2(r.finished && !r.result.isError, qPrintable(r.text()));
        QCOMPARE(checkpoints->list(id).size(), before + 1);
        const QString forkId = r.json().value(QStringLiteral("sandbox_id")).toString();
        QCOMPARE(r.json().value(QStringLiteral("forked_from")).toObject().value(QStringLiteral("checkpoint_id")).toString(),
                 checkpoints->list(id).last().id);
        QCOMPARE(readFile(h->sandboxes->get(forkId)->workspace->hostPath + QStringLiteral("/now.txt")), QByteArray("as it is now\n"));
        QVERIFY(!h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), forkId}}, scaled(60000)).result.isError);

        const CallResult both = fork({{QStringLiteral("sandbox_id"), id}, {QStringLiteral("checkpoint_id"), checkpoints->list(id).last().id}});
        QVERIFY2(both.result.isError && both.text().contains(QStringLiteral("either")), qPrintable(both.text()));
        const CallResult unknown = fork({{QStringLiteral("checkpoint_id"), QStringLiteral("ckp_000000000000000000000000")}});
        QVERIFY2(unknown.result.isError && unknown.text().contains(QStringLiteral("unknown checkpoint_id")), qPrintable(unknown.text()));
    }

    void aCheckpointWithoutAWorkspaceCopyIsNotForked()
    {
        // What a checkpoint of a direct-mode sandbox is: the VM's side only.
        Checkpoint direct;
        direct.id = QStringLiteral("ckp_00000000000000000000d1ec");
        direct.sandboxId = id;
        direct.templateRef = Checkpoint::templateRefFor(direct.id);
        direct.state = CheckpointState::Ready;
        direct.createdAt = direct.finishedAt = 1;
        QString error;
        QVERIFY(CheckpointRepository(h->db).insert(direct, error));
        const CallResult r = fork({{QStringLiteral("checkpoint_id"), direct.id}});
        QVERIFY2(r.result.isError && r.text().contains(QStringLiteral("direct-mode")), qPrintable(r.text()));
        QVERIFY(CheckpointRepository(h->db).remove(direct.id, error));
    }

    static bool templateListed(const TestEnvironment &env, const QString &checkpointId)
    {
        return runFakeSbx(env, {QStringLiteral("template"), QStringLiteral("ls"), QStringLiteral("--json")}).out.contains(checkpointId.toUtf8());
    }

    void theBudgetEvictsTheOldestUnpinnedFirst()
    {
        CheckpointRepository repo(h->db);
        const QList<Checkpoint> ready = repo.inState(CheckpointState::Ready);
        QVERIFY(ready.size() >= 3);
        QString error;
        QVERIFY(checkpoints->setPinned(ready.at(0).id, true, error));   // the oldest stays whatever happens
        const int limit = h->config.checkpointMaxCount;
        h->config.checkpointMaxCount = int(ready.size());
        const CallResult r = h->call(QStringLiteral("sandbox_checkpoint"),
                                     {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("pin"), true}}, scaled(60000));
        h->config.checkpointMaxCount = limit;
        QVERIFY2(r.finished && !r.result.isError, qPrintable(r.text()));
        QVERIFY(r.json().value(QStringLiteral("pinned")).toBool());
        const QJsonArray evicted = r.json().value(QStringLiteral("evicted")).toArray();
        QVERIFY2(evicted.size() == 1, qPrintable(r.text()));
        const QString gone = evicted.at(0).toObject().value(QStringLiteral("checkpoint_id")).toString();
        QCOMPARE(gone, ready.at(1).id);   // the oldest that is not pinned
        // The eviction brought the total within the budget (while its template removal runs on).
        QVERIFY2(!r.json().contains(QStringLiteral("over_budget")), qPrintable(r.text()));
        QVERIFY2(r.json().value(QStringLiteral("message")).toString().contains(QStringLiteral("checkpointMaxCount")), qPrintable(r.text()));
        QVERIFY(waitFor([&] { return !repo.find(gone); }, scaled(30000)));
        QVERIFY(!templateListed(env, gone));
        QVERIFY(!QFileInfo::exists(h->config.dataRoot + QStringLiteral("/checkpoints/") + gone));
        QVERIFY(repo.find(ready.at(0).id));
    }

    void aCheckpointIsDeletedOnRequest()
    {
        const QString doomed = checkpoint(QStringLiteral("doomed"));
        QVERIFY(!doomed.isEmpty() && templateListed(env, doomed));
        const CallResult r = h->call(QStringLiteral("sandbox_checkpoint_delete"), {{QStringLiteral("checkpoint_id"), doomed}}, scaled(60000));
        QVERIFY2(r.finished && !r.result.isError && r.json().value(QStringLiteral("deleted")).toBool(), qPrintable(r.text()));
        QVERIFY(!checkpoints->find(doomed));
        QVERIFY(!templateListed(env, doomed));
        QVERIFY(!QFileInfo::exists(h->config.dataRoot + QStringLiteral("/checkpoints/") + doomed));
        const CallResult again = h->call(QStringLiteral("sandbox_checkpoint_delete"), {{QStringLiteral("checkpoint_id"), doomed}});
        QVERIFY2(again.result.isError && again.text().contains(QStringLiteral("unknown checkpoint_id")), qPrintable(again.text()));
    }

    void destroyingASandboxRemovesItsCheckpointsOnceNoForkNeedsThem()
    {
        const CallResult created = h->call(QStringLiteral("sandbox_create"), {}, scaled(60000));
        QVERIFY2(created.finished && !created.result.isError, qPrintable(created.text()));
        const QString other = created.json().value(QStringLiteral("sandbox_id")).toString();
        const auto take = [&](const QString &label) {
            const CallResult r = h->call(QStringLiteral("sandbox_checkpoint"),
                                         {{QStringLiteral("sandbox_id"), other}, {QStringLiteral("label"), label}}, scaled(60000));
            return r.json().value(QStringLiteral("checkpoint_id")).toString();
        };
        const QString plain = take(QStringLiteral("plain")), forked = take(QStringLiteral("forked"));
        QVERIFY(!plain.isEmpty() && !forked.isEmpty());
        const CallResult f = fork({{QStringLiteral("checkpoint_id"), forked}});
        QVERIFY2(!f.result.isError, qPrintable(f.text()));
        const QString forkId = f.json().value(QStringLiteral("sandbox_id")).toString();
        const CallResult busy = h->call(QStringLiteral("sandbox_checkpoint_delete"), {{QStringLiteral("checkpoint_id"), forked}});
        QVERIFY2(busy.result.isError && busy.text().contains(QStringLiteral("destroy that sandbox first")), qPrintable(busy.text()));

        QVERIFY(!h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), other}}, scaled(60000)).result.isError);
        QVERIFY(waitFor([&] { return !checkpoints->find(plain); }, scaled(30000)));
        QVERIFY(!templateListed(env, plain));
        QTest::qWait(1500);   // a sweep later: the fork still runs from the other one
        QVERIFY(checkpoints->find(forked) && templateListed(env, forked));

        QVERIFY(!h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), forkId}}, scaled(60000)).result.isError);
        QVERIFY(waitFor([&] { return !checkpoints->find(forked); }, scaled(30000)));
        QVERIFY(!templateListed(env, forked));
    }

    void theTerminalCheckpointsRestoresForksAndDeletes()
    {
        QVERIFY(writeFile(workspace + QStringLiteral("/cli.txt"), "from the terminal\n"));
        const CliResult made = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("checkpoint"), id, QStringLiteral("--label"),
                                            QStringLiteral("cli"), QStringLiteral("--json")}, 120000);
        QVERIFY2(made.exitCode == 0, made.err.constData());
        const QString ckp = QJsonDocument::fromJson(made.out).object().value(QStringLiteral("checkpoint_id")).toString();
        QVERIFY2(checkpoints->find(ckp) && checkpoints->find(ckp)->isReady(), made.out.constData());

        QVERIFY(writeFile(workspace + QStringLiteral("/cli.txt"), "changed\n"));
        const CliResult restored = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("restore"), id, ckp}, 120000);
        QVERIFY2(restored.exitCode == 0 && restored.out.contains("undo: chat2sbx sandbox restore"), restored.out + restored.err);
        QCOMPARE(readFile(workspace + QStringLiteral("/cli.txt")), QByteArray("from the terminal\n"));

        const CliResult forked = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("fork"), ckp, QStringLiteral("--json")}, 120000);
        QVERIFY2(forked.exitCode == 0, forked.err.constData());
        const QString forkId = QJsonDocument::fromJson(forked.out).object().value(QStringLiteral("sandbox_id")).toString();
        const std::optional<SandboxView> fork = h->sandboxes->get(forkId);
        QVERIFY2(fork && fork->forkedFromCheckpoint == ckp, forked.out.constData());
        QCOMPARE(readFile(fork->workspace->hostPath + QStringLiteral("/cli.txt")), QByteArray("from the terminal\n"));

        const CliResult busy = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("uncheckpoint"), ckp});
        QVERIFY2(busy.exitCode == 1 && busy.err.contains("destroy that sandbox first"), busy.err.constData());
        QVERIFY(!h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), forkId}}, scaled(60000)).result.isError);
        // The sandbox restored to it runs from its template too (sbx saves no sandbox whose base is gone):
        // still refused until that sandbox is restored to another checkpoint (its undo here).
        const CliResult stillUsed = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("uncheckpoint"), ckp});
        QVERIFY2(stillUsed.exitCode == 1 && stillUsed.err.contains("destroy that sandbox first"), stillUsed.err.constData());
        const QRegularExpressionMatch undo = QRegularExpression(QStringLiteral("undo: chat2sbx sandbox restore \\S+ (ckp_[0-9a-f]+)"))
                                                 .match(QString::fromUtf8(restored.out));
        QVERIFY2(undo.hasMatch(), restored.out.constData());
        const CliResult back = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("restore"), id, undo.captured(1)}, 120000);
        QVERIFY2(back.exitCode == 0, back.out + back.err);
        const CliResult gone = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("uncheckpoint"), ckp}, 60000);
        QVERIFY2(gone.exitCode == 0, gone.err.constData());
        QVERIFY(!checkpoints->find(ckp));
        QCOMPARE(runCli(env, {QStringLiteral("sandbox"), QStringLiteral("restore"), id, QStringLiteral("nope")}).exitCode, 2);
    }

    void aDirectFolderIsNeverCopied()
    {
        QString error;
        const std::optional<Workspace> site = h->workspaces->registerHost(env.root() + QStringLiteral("/projects/site"),
                                                                           WorkspaceMode::Direct, error);
        QVERIFY2(site, qPrintable(error));
        const CallResult created = h->call(QStringLiteral("sandbox_create"), {{QStringLiteral("workspace_id"), site->id}}, scaled(60000));
        QVERIFY2(!created.result.isError, qPrintable(created.text()));
        const QString direct = created.json().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY(writeFile(site->hostPath + QStringLiteral("/index.html"), "v1\n"));

        const CallResult refused = h->call(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), direct}}, scaled(60000));
        QVERIFY2(refused.result.isError && refused.text().contains(QStringLiteral("direct mode"))
                     && refused.text().contains(QStringLiteral("vm_only")), qPrintable(refused.text()));
        QVERIFY(checkpoints->list(direct).isEmpty());
        const CallResult vm = h->call(QStringLiteral("sandbox_checkpoint"),
                                      {{QStringLiteral("sandbox_id"), direct}, {QStringLiteral("vm_only"), true}}, scaled(60000));
        QVERIFY2(!vm.result.isError && !vm.json().value(QStringLiteral("workspace_copied")).toBool(), qPrintable(vm.text()));
        QVERIFY2(QJsonDocument(vm.json().value(QStringLiteral("not_kept")).toArray()).toJson().contains("user's own"), qPrintable(vm.text()));
        const QString vmOnly = vm.json().value(QStringLiteral("checkpoint_id")).toString();

        const CallResult forked = fork({{QStringLiteral("sandbox_id"), direct}});
        QVERIFY2(forked.result.isError && forked.text().contains(QStringLiteral("direct mode")), qPrintable(forked.text()));
        // A restore takes the VM back and leaves the user's folder as it is.
        QVERIFY(writeFile(site->hostPath + QStringLiteral("/index.html"), "v2\n"));
        const CallResult back = h->call(QStringLiteral("sandbox_restore"),
                                        {{QStringLiteral("sandbox_id"), direct}, {QStringLiteral("checkpoint_id"), vmOnly}}, scaled(90000));
        QVERIFY2(!back.result.isError, qPrintable(back.text()));
        QCOMPARE(readFile(site->hostPath + QStringLiteral("/index.html")), QByteArray("v2\n"));
        QVERIFY(!h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), direct}}, scaled(60000)).result.isError);
    }

    void aCheckpointACrashInterruptedGoesAtTheNextStart()
    {
        Checkpoint half;
        half.id = QStringLiteral("ckp_0123456789abcdef01234567");
        half.sandboxId = id;
        half.templateRef = Checkpoint::templateRefFor(half.id);
        half.workspaceCopy = h->config.dataRoot + QStringLiteral("/checkpoints/") + half.id + QStringLiteral("/workspace");
        half.createdAt = 1;
        QString error;
        QVERIFY(CheckpointRepository(h->db).insert(half, error));
        QVERIFY(writeFile(half.workspaceCopy + QStringLiteral(".partial/some-file"), "half"));
        checkpoints->reconcile();
        const std::optional<Checkpoint> after = CheckpointRepository(h->db).find(half.id);
        QVERIFY(after && after->state == CheckpointState::Failed && after->failure.contains(QStringLiteral("stopped")));
        QVERIFY(!QFileInfo::exists(h->config.dataRoot + QStringLiteral("/checkpoints/") + half.id));
        const CallResult unknown = h->call(QStringLiteral("sandbox_checkpoint"),
                                           {{QStringLiteral("sandbox_id"), QStringLiteral("sbx_000000000000000000000000")}});
        QVERIFY2(unknown.result.isError && unknown.text().contains(QStringLiteral("unknown sandbox_id")), qPrintable(unknown.text()));
    }

    // The sandbox's own Docker (the fake's vm-bin/docker: its images live outside HOME, as
    // /var/lib/docker never is in a template): the images named are kept and loaded again.
    void namedDockerImagesAreKeptAndLoadedByRestoreAndFork()
    {
        const auto inVm = [this](const QString &rt, const QString &command) {
            return runFakeSbx(env, {QStringLiteral("exec"), rt, QStringLiteral("sh"), QStringLiteral("-c"), command});
        };
        QCOMPARE(inVm(runtime, QStringLiteral("docker build -t web:dev . && docker build -t scratch:1 .")).exitCode, 0);

        // An image the sandbox does not have: refused with docker's reason, nothing made.
        const CallResult missing = h->call(QStringLiteral("sandbox_checkpoint"),
                                           {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("docker_images"), QJsonArray{"web:dev", "nope:1"}}},
                                           scaled(60000));
        QVERIFY2(missing.result.isError && missing.text().contains(QStringLiteral("No such image: nope:1")), qPrintable(missing.text()));
        QString failed;
        for (const Checkpoint &c : checkpoints->list(id))
            if (c.state == CheckpointState::Failed && c.failure.contains(QStringLiteral("nope:1")))
                failed = c.id;
        QVERIFY(!failed.isEmpty());
        QVERIFY(!QFileInfo::exists(sbxHome() + QStringLiteral("/.chat2sbx/docker-images/") + failed + ".tar.partial"));
        const CallResult bad = h->call(QStringLiteral("sandbox_checkpoint"),
                                       {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("docker_images"), QJsonArray{"web:dev; rm -rf ~"}}});
        QVERIFY2(bad.result.isError && bad.text().contains(QStringLiteral("not a Docker image reference")), qPrintable(bad.text()));

        const CallResult r = h->call(QStringLiteral("sandbox_checkpoint"),
                                     {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("docker_images"), QJsonArray{"web:dev"}}}, scaled(60000));
        QVERIFY2(r.finished && !r.result.isError, qPrintable(r.text()));
        const QString ckp = r.json().value(QStringLiteral("checkpoint_id")).toString();
        QCOMPARE(r.json().value(QStringLiteral("docker_images")).toArray(), QJsonArray{"web:dev"});
        QVERIFY2(QJsonDocument(r.json().value(QStringLiteral("kept")).toArray()).toJson().contains("web:dev"), qPrintable(r.text()));
        QVERIFY2(QJsonDocument(r.json().value(QStringLiteral("not_kept")).toArray()).toJson().contains("other Docker images"), qPrintable(r.text()));
        // The archive is in the checkpoint's disk, and gone from the sandbox's; its images are untouched.
        const QString archive = QStringLiteral("/.chat2sbx/docker-images/") + ckp + QStringLiteral(".tar");
        QVERIFY(QFileInfo::exists(env.sbxState() + QStringLiteral("/templates/chat2sbx-checkpoint_") + ckp + QStringLiteral("/home") + archive));
        QVERIFY(!QFileInfo::exists(sbxHome() + archive));
        QCOMPARE(inVm(runtime, QStringLiteral("docker images")).out, QByteArray("scratch:1\nweb:dev\n"));

        // The images go; a restore brings back the one kept (a new VM's engine starts empty).
        QCOMPARE(inVm(runtime, QStringLiteral("docker rmi web:dev && docker rmi scratch:1")).exitCode, 0);
        const CallResult restored = restore(ckp);
        QVERIFY2(restored.finished && !restored.result.isError, qPrintable(restored.text()));
        QVERIFY2(QJsonDocument(restored.json().value(QStringLiteral("restored")).toArray()).toJson().contains("web:dev"), qPrintable(restored.text()));
        QCOMPARE(inVm(runtime, QStringLiteral("docker images")).out, QByteArray("web:dev\n"));
        QVERIFY(!QFileInfo::exists(sbxHome() + archive));

        // A fork of the checkpoint gets it too.
        const CallResult forked = fork({{QStringLiteral("checkpoint_id"), ckp}});
        QVERIFY2(!forked.result.isError, qPrintable(forked.text()));
        const QString forkId = forked.json().value(QStringLiteral("sandbox_id")).toString();
        const QString forkRuntime = h->sandboxes->get(forkId)->record.runtimeName;
        QCOMPARE(inVm(forkRuntime, QStringLiteral("docker images")).out, QByteArray("web:dev\n"));
        QVERIFY(!QFileInfo::exists(env.sbxState() + QStringLiteral("/sandboxes/") + forkRuntime + QStringLiteral("/home") + archive));
        QVERIFY(!h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), forkId}}, scaled(60000)).result.isError);

        // From a terminal: a fork of the sandbox itself with its image; a checkpoint keeps what it was made with.
        QCOMPARE(runCli(env, {QStringLiteral("sandbox"), QStringLiteral("fork"), ckp, QStringLiteral("--docker-images"),
                              QStringLiteral("web:dev")}).exitCode, 2);
        const CliResult cli = runCli(env, {QStringLiteral("sandbox"), QStringLiteral("fork"), id, QStringLiteral("--docker-images"),
                                           QStringLiteral("web:dev"), QStringLiteral("--json")}, 120000);
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        const QString cliFork = QJsonDocument::fromJson(cli.out).object().value(QStringLiteral("sandbox_id")).toString();
        const std::optional<SandboxView> made = h->sandboxes->get(cliFork);
        QVERIFY2(made, cli.out.constData());
        QCOMPARE(inVm(made->record.runtimeName, QStringLiteral("docker images")).out, QByteArray("web:dev\n"));
        QVERIFY(!h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), cliFork}}, scaled(60000)).result.isError);
    }

    // Last: it expires every sandbox of the harness.
    void idleExpiryCheckpointsAScratchSandboxFirstWhenAsked()
    {
        checkpoints->reconcile();
        h->sandboxes->setBeforeExpiry([this](const QString &sandboxId, std::function<void(const QString &)> proceed) {
            checkpoints->checkpointBeforeExpiry(sandboxId, std::move(proceed));
        });
        const CallResult created = h->call(QStringLiteral("sandbox_create"), {}, scaled(60000));
        const QString idle = created.json().value(QStringLiteral("sandbox_id")).toString();
        const QString folder = h->sandboxes->get(idle)->workspace->hostPath;
        QVERIFY(writeFile(folder + QStringLiteral("/unfinished.txt"), "half a thought\n"));
        h->clock.advance(h->config.sandboxIdleSeconds * 1000 + 1000);
        h->sandboxes->idleExpiry().checkIdle();
        QVERIFY(waitFor([&] { return h->sandboxes->get(idle)->record.state == SandboxState::Destroyed; }, scaled(60000)));
        const QList<Checkpoint> kept = checkpoints->list(idle);
        QVERIFY(kept.size() == 1 && kept.first().isReady() && kept.first().pinned && kept.first().label == QLatin1String("before idle expiry"));
        QVERIFY2(h->sandboxes->get(idle)->record.reason.contains(kept.first().id), qPrintable(h->sandboxes->get(idle)->record.reason));
        QTest::qWait(1500);   // a sweep: a pinned checkpoint outlives its sandbox
        QVERIFY(checkpoints->find(kept.first().id));

        const CallResult back = fork({{QStringLiteral("checkpoint_id"), kept.first().id}});
        QVERIFY2(!back.result.isError, qPrintable(back.text()));
        const QString revived = back.json().value(QStringLiteral("sandbox_id")).toString();
        QCOMPARE(readFile(h->sandboxes->get(revived)->workspace->hostPath + QStringLiteral("/unfinished.txt")), QByteArray("half a thought\n"));
        h->sandboxes->setBeforeExpiry(nullptr);
    }
};

QTEST_MAIN(TestCheckpoints)
#include "tst_checkpoints.moc"
