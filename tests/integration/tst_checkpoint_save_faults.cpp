// Checkpoint saves that fail the way `sbx template save` fails in the field (sbx-contract.md): the
// sandbox's base image gone (refused before the save, with the reason), a 500 "failed to commit
// container" (reported with sbx's text), a save that never ends and wedges the daemon (it runs into
// its deadline, later commands wait in one line, and all works once sbx answers). Each time the
// sandbox stays usable. And the template a sandbox was restored to is kept while it lives.
#include "SandboxHarness.h"

#include "sandbox/changes/CheckpointService.h"
#include "state/CheckpointRepository.h"
#include "sandbox/sbx/SbxDriver.h"
#include "tools/CheckpointTools.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtTest>

#include <optional>

#include <algorithm>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestCheckpointSaveFaults : public QObject {
    Q_OBJECT

    TestEnvironment env;
    std::unique_ptr<SandboxHarness> h;
    // The service under test, over the harness's services (the product builds it in runtime/Services).
    std::optional<CheckpointService> checkpoints;
    QString id, runtime;

    // The sandbox answers a command in its VM (woken when asleep).
    bool usable()
    {
        const CliResult r = runFakeSbx(env, {QStringLiteral("exec"), runtime, QStringLiteral("sh"), QStringLiteral("-c"),
                                             QStringLiteral("cat \"$HOME/kept.txt\"")});
        return r.exitCode == 0 && r.out.trimmed() == "installed";
    }
    CallResult checkpoint(int timeoutMs = 60000)
    {
        return h->call(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), id}}, scaled(timeoutMs));
    }

private slots:
    void initTestCase()
    {
        env.set(QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0"));
        env.set(QStringLiteral("FAKE_SBX_IDLE_STOP_MS"), QStringLiteral("off"));
        h = std::make_unique<SandboxHarness>(env);
        QVERIFY(h->opened);
        checkpoints.emplace(h->config, h->db, *h->sandboxes, *h->sbx, h->clock, nullptr);
        registerCheckpointTools(h->tools, *checkpoints, *h->sandboxes, h->config);
        QVERIFY(h->reconcile());
        const CallResult created = h->call(QStringLiteral("sandbox_create"), {}, scaled(60000));
        QVERIFY2(created.finished && !created.result.isError, qPrintable(created.text()));
        id = created.json().value(QStringLiteral("sandbox_id")).toString();
        runtime = h->sandboxes->get(id)->record.runtimeName;
        QVERIFY(writeFile(env.sbxState() + QStringLiteral("/sandboxes/") + runtime + QStringLiteral("/home/kept.txt"), "installed\n"));
        QVERIFY(usable());
    }

    void aBaseImageThatIsGoneIsRefusedBeforeTheSave()
    {
        // The pinned template leaves `sbx template ls` (the faults file wins over the environment).
        env.setSbxFaults({QStringLiteral("FAKE_SBX_TEMPLATES=someone-else:1")});
        const int savesBefore = h->countCalls(QStringLiteral("template"));
        const CallResult r = checkpoint();
        QVERIFY2(r.finished && r.result.isError, qPrintable(r.text()));
        QVERIFY2(r.text().contains(QStringLiteral("base image is gone")) && r.text().contains(pinnedTemplate())
                     && r.text().contains(QStringLiteral("chat2sbx setup")),
                 qPrintable(r.text()));
        // No save was tried: only `template ls` and the clean-up's `template rm` of what was not made.
        for (const QStringList &c : h->calls())
            QVERIFY2(!(c.size() > 1 && c.at(0) == QLatin1String("template") && c.at(1) == QLatin1String("save")), qPrintable(c.join(' ')));
        QVERIFY(h->countCalls(QStringLiteral("template")) > savesBefore);
        env.setSbxFaults({});
        QVERIFY(usable());
        const CallResult again = checkpoint();
        QVERIFY2(again.finished && !again.result.isError, qPrintable(again.text()));
    }

    void aFailedCommitIsReportedWithSbxsTextAndTheNextCallsWork()
    {
        env.setSbxFaults({QStringLiteral("FAKE_SBX_FAIL_TEMPLATE_SAVE=ERROR: 500 Internal Server Error: failed to commit container: "
                                         "write /var/lib/containerd: no space left on device")});
        const CallResult r = checkpoint();
        QVERIFY2(r.finished && r.result.isError, qPrintable(r.text()));
        QVERIFY2(r.text().contains(QStringLiteral("failed to commit container")), qPrintable(r.text()));
        QVERIFY2(!r.text().contains(runtime), qPrintable(r.text()));
        env.setSbxFaults({});
        QVERIFY(usable());
        QCOMPARE(h->sandboxes->get(id)->record.state == SandboxState::Destroyed, false);
        const CallResult again = checkpoint();
        QVERIFY2(again.finished && !again.result.isError, qPrintable(again.text()));
    }

    // A save that never ends (and leaves every later command hanging until the daemon is freed):
    // it runs into its deadline, chat2sbx stops piling commands up, and once sbx answers again the
    // sandbox works and the next checkpoint is made.
    void aSaveThatWedgesSbxRunsIntoItsDeadlineAndNothingStaysStuck()
    {
        SbxDriver::Timeouts t = h->sbx->timeouts();
        const SbxDriver::Timeouts before = t;
        t.templateSaveMs = 1500;
        t.otherMs = 1000;
        h->sbx->setTimeouts(t);
        env.setSbxFaults({QStringLiteral("FAKE_SBX_TEMPLATE_SAVE_WEDGES=1")});
        const CallResult r = checkpoint();
        QVERIFY2(r.finished && r.result.isError, qPrintable(r.text()));
        QVERIFY2(r.text().contains(QStringLiteral("did not answer within 1.5 s")), qPrintable(r.text()));
        // The daemon stays wedged: a few commands run into their deadlines, then sbx is "not answering".
        env.setSbxFaults({});
        for (int i = 0; i < 4 && h->sbx->answering(); ++i) {
            bool done = false;
            h->sbx->version([&done](const SbxResult &) { done = true; });
            QVERIFY(waitFor([&] { return done; }, 10000));
        }
        QVERIFY(!h->sbx->answering());
        QVERIFY(h->sbx->notAnsweringAdvice().contains(QStringLiteral("stuck on a lock")));
        // Freed: the next command answers, and everything works again.
        QVERIFY(QFile::remove(env.sbxState() + QStringLiteral("/wedged")));
        bool answered = false;
        h->sbx->version([&answered](const SbxResult &v) { answered = v.ok; });
        QVERIFY(waitFor([&] { return answered; }, 10000));
        QVERIFY(h->sbx->answering());
        h->sbx->setTimeouts(before);
        QVERIFY(usable());
        const CallResult again = checkpoint();
        QVERIFY2(again.finished && !again.result.isError, qPrintable(again.text()));
    }

    // A sandbox restored to a checkpoint runs from its template: the checkpoint is not deleted (nor
    // evicted) while the sandbox lives, and a checkpoint of the restored sandbox is made.
    void theTemplateASandboxWasRestoredToIsKept()
    {
        const CallResult taken = checkpoint();
        QVERIFY2(taken.finished && !taken.result.isError, qPrintable(taken.text()));
        const QString ckp = taken.json().value(QStringLiteral("checkpoint_id")).toString();
        const CallResult restored = h->call(QStringLiteral("sandbox_restore"),
                                            {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("checkpoint_id"), ckp}}, scaled(60000));
        QVERIFY2(restored.finished && !restored.result.isError, qPrintable(restored.text()));
        QCOMPARE(h->sandboxes->get(id)->record.templateRef, Checkpoint::templateRefFor(ckp));
        const CallResult deleted = h->call(QStringLiteral("sandbox_checkpoint_delete"), {{QStringLiteral("checkpoint_id"), ckp}});
        QVERIFY2(deleted.result.isError && deleted.text().contains(QStringLiteral("sbx cannot save that sandbox again")),
                 qPrintable(deleted.text()));
        const CallResult after = checkpoint();
        QVERIFY2(after.finished && !after.result.isError, qPrintable(after.text()));
        QVERIFY(usable());
    }

    // A sparse file in the workspace counts the disk it uses, not its apparent size: an 8 GiB hole
    // does not make the checkpoint 8 GiB (and evict others for it).
    void aSparseFileCountsTheDiskItUses()
    {
        const QString ws = h->sandboxes->get(id)->workspace->hostPath;
        QFile sparse(ws + QStringLiteral("/disk.img"));
        QVERIFY(sparse.open(QIODevice::WriteOnly));
        QVERIFY(sparse.resize(qint64(8) << 30));
        sparse.close();
        const CallResult r = checkpoint();
        QVERIFY2(r.finished && !r.result.isError, qPrintable(r.text()));
        const double size = r.json().value(QStringLiteral("size_bytes")).toDouble();
        QVERIFY2(size < 734003200.0 + (qint64(64) << 20), qPrintable(r.text()));
        QVERIFY(QFile::remove(ws + QStringLiteral("/disk.img")));
    }

    // Pinned checkpoints past the budget: nothing pinned is evicted, and the result says so, with
    // what to do (before, the budget was silently defeated).
    void pinsPastTheBudgetAreSaid()
    {
        h->config.checkpointMaxCount = 1;
        const CallResult first = h->call(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("pin"), true}},
                                         scaled(60000));
        QVERIFY2(first.finished && !first.result.isError, qPrintable(first.text()));
        const CallResult second = h->call(QStringLiteral("sandbox_checkpoint"), {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("pin"), true}},
                                          scaled(60000));
        QVERIFY2(second.finished && !second.result.isError, qPrintable(second.text()));
        const QString over = second.json().value(QStringLiteral("over_budget")).toString();
        QVERIFY2(over.contains(QStringLiteral("checkpointMaxCount 1")) && over.contains(QStringLiteral("pinned")), qPrintable(second.text()));
        QVERIFY(checkpoints->find(first.json().value(QStringLiteral("checkpoint_id")).toString()));
        h->config.checkpointMaxCount = 20;
    }

    // Forks at the sandbox limit, started together: each passes the first check and copies the
    // checkpoint's workspace, the ones the limit refuses at create leave no copy and no record.
    void forksRefusedAtTheLimitLeaveNothing()
    {
        const CallResult taken = checkpoint();
        QVERIFY2(taken.finished && !taken.result.isError, qPrintable(taken.text()));
        const QString ckp = taken.json().value(QStringLiteral("checkpoint_id")).toString();
        const QStringList foldersBefore = QDir(h->config.workspaceRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        const int workspacesBefore = int(h->workspaces->list().size());
        h->config.maxActiveSandboxes = 2;   // this sandbox and one fork
        QList<std::shared_ptr<CallResult>> forks;
        for (int i = 0; i < 4; ++i)
            forks << h->start(QStringLiteral("sandbox_fork"), {{QStringLiteral("checkpoint_id"), ckp}});
        QVERIFY(waitFor([&] {
            return std::all_of(forks.begin(), forks.end(), [](const auto &f) { return f->finished; });
        }, scaled(120000)));
        int made = 0;
        QString forkId;
        for (const auto &f : forks) {
            if (!f->result.isError) {
                ++made;
                forkId = f->json().value(QStringLiteral("sandbox_id")).toString();
            } else {
                QVERIFY2(f->text().contains(QStringLiteral("maxActiveSandboxes")), qPrintable(f->text()));
            }
        }
        QCOMPARE(made, 1);
        // One new workspace (the fork's) and one new folder: the refused ones left none.
        QTRY_COMPARE_WITH_TIMEOUT(QDir(h->config.workspaceRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(),
                                  foldersBefore.size() + 1, scaled(10000));
        QCOMPARE(int(h->workspaces->list().size()), workspacesBefore + 1);
        QVERIFY(!h->call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), forkId}}, scaled(60000)).result.isError);
        h->config.maxActiveSandboxes = 0;
    }

    // chat2sbx stopped (kill -9) during a checkpoint with docker_images, after the archive was
    // written into the VM's HOME, while the sandbox sleeps: the recovery removes the archive (its VM
    // started for it), and the next checkpoint does not carry it.
    void anInterruptedDockerCheckpointLeavesNoArchive()
    {
        const QString home = env.sbxState() + QStringLiteral("/sandboxes/") + runtime + QStringLiteral("/home");
        const QString stale = QStringLiteral("ckp_0123456789abcdef01234567");
        const QString archive = home + QStringLiteral("/.chat2sbx/docker-images/") + stale + QStringLiteral(".tar");
        QVERIFY(writeFile(archive, QByteArray(4096, 'a')));
        QCOMPARE(runFakeSbx(env, {QStringLiteral("stop"), runtime}).exitCode, 0);
        QString error;
        QVERIFY(h->records.markStopped(id, h->clock.nowMs(), QStringLiteral("asleep"), h->clock.nowMs(), error) || error.isEmpty());
        Checkpoint interrupted;
        interrupted.id = stale;
        interrupted.sandboxId = id;
        interrupted.templateRef = Checkpoint::templateRefFor(stale);
        interrupted.dockerImages = {QStringLiteral("web:dev")};
        interrupted.createdAt = h->clock.nowMs();
        QVERIFY2(CheckpointRepository(h->db).insert(interrupted, error), qPrintable(error));
        checkpoints->reconcile();
        QVERIFY2(QTest::qWaitFor([&] { return !QFileInfo::exists(archive); }, scaled(30000)), "the archive stays in the sandbox");
        const CallResult next = checkpoint();
        QVERIFY2(next.finished && !next.result.isError, qPrintable(next.text()));
        const QString made = next.json().value(QStringLiteral("checkpoint_id")).toString();
        QVERIFY(!QFileInfo::exists(env.sbxState() + QStringLiteral("/templates/chat2sbx-checkpoint_") + made
                                   + QStringLiteral("/home/.chat2sbx/docker-images/") + stale + QStringLiteral(".tar")));
        QVERIFY(usable());
    }

    void cleanupTestCase()
    {
        checkpoints.reset();
        h.reset();
    }
};

QTEST_GUILESS_MAIN(TestCheckpointSaveFaults)
#include "tst_checkpoint_save_faults.moc"
