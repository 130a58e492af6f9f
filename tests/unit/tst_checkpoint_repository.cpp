// The checkpoints table (issue 45): a checkpoint is recorded `saving` before anything is acted on,
// finished once (ready with its size, or failed with why), listed per sandbox oldest first, and the
// ones a crash left `saving` are found at the next start, after the database was closed and opened.
#include "state/CheckpointRepository.h"
#include "state/Database.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;

class TestCheckpointRepository : public QObject {
    Q_OBJECT

    static Checkpoint saving(const QString &id, const QString &sandboxId, qint64 at)
    {
        Checkpoint c;
        c.id = id;
        c.sandboxId = sandboxId;
        c.label = QStringLiteral("before the migration");
        c.templateRef = Checkpoint::templateRefFor(id);
        c.workspaceCopy = QStringLiteral("/data/checkpoints/") + id + QStringLiteral("/workspace");
        c.createdAt = at;
        return c;
    }

private slots:
    void lifecycleOfARow()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("state/chat2sbx.sqlite"));
        QString error;
        {
            Database db;
            QVERIFY2(db.open(path, error), qPrintable(error));
            CheckpointRepository repo(db);
            QVERIFY2(repo.insert(saving(QStringLiteral("ckp_b"), QStringLiteral("sbx_1"), 200), error), qPrintable(error));
            QVERIFY(repo.insert(saving(QStringLiteral("ckp_a"), QStringLiteral("sbx_1"), 100), error));
            QVERIFY(repo.insert(saving(QStringLiteral("ckp_c"), QStringLiteral("sbx_2"), 150), error));
            QVERIFY(!repo.insert(saving(QStringLiteral("ckp_a"), QStringLiteral("sbx_1"), 300), error));   // ids are unique
            QCOMPARE(repo.finish(QStringLiteral("ckp_a"), CheckpointState::Ready, 4096, {}, 120, error), 1);
            QCOMPARE(repo.finish(QStringLiteral("ckp_a"), CheckpointState::Failed, 0, QStringLiteral("late"), 130, error), 0);
            QCOMPARE(repo.finish(QStringLiteral("ckp_c"), CheckpointState::Failed, 0, QStringLiteral("sbx template save failed"), 160, error), 1);
        }
        Database db;   // the next start
        QVERIFY2(db.open(path, error), qPrintable(error));
        CheckpointRepository repo(db);
        const QList<Checkpoint> mine = repo.listFor(QStringLiteral("sbx_1"));
        QCOMPARE(mine.size(), 2);
        QCOMPARE(mine.at(0).id, QStringLiteral("ckp_a"));   // oldest first
        QVERIFY(mine.at(0).isReady());
        QCOMPARE(mine.at(0).sizeBytes, qint64(4096));
        QCOMPARE(mine.at(0).finishedAt, qint64(120));
        QCOMPARE(mine.at(0).templateRef, QStringLiteral("chat2sbx-checkpoint:ckp_a"));
        QCOMPARE(mine.at(0).label, QStringLiteral("before the migration"));
        QCOMPARE(mine.at(1).state, CheckpointState::Saving);
        QCOMPARE(mine.at(1).finishedAt, qint64(0));
        const QList<Checkpoint> interrupted = repo.inState(CheckpointState::Saving);
        QCOMPARE(interrupted.size(), 1);
        QCOMPARE(interrupted.first().id, QStringLiteral("ckp_b"));
        const std::optional<Checkpoint> failed = repo.find(QStringLiteral("ckp_c"));
        QVERIFY(failed && failed->state == CheckpointState::Failed && failed->failure.contains(QStringLiteral("template save")));
        QVERIFY(repo.remove(QStringLiteral("ckp_b"), error));
        QVERIFY(!repo.find(QStringLiteral("ckp_b")));
        QVERIFY(repo.inState(CheckpointState::Saving).isEmpty());
    }

    void stateNames()
    {
        for (const CheckpointState s : {CheckpointState::Saving, CheckpointState::Ready, CheckpointState::Failed}) {
            CheckpointState back = CheckpointState::Saving;
            QVERIFY(parseCheckpointState(checkpointStateName(s), back));
            QCOMPARE(back, s);
        }
        CheckpointState unchanged = CheckpointState::Ready;
        QVERIFY(!parseCheckpointState(QStringLiteral("done"), unchanged));
        QCOMPARE(unchanged, CheckpointState::Ready);
    }

    // One pinned undo per sandbox: a newer undo releases the older ones of the same sandbox, never a
    // pin asked for, never another sandbox's undo.
    void oneUndoPinPerSandbox()
    {
        QTemporaryDir dir;
        QString error;
        Database db;
        QVERIFY2(db.open(dir.filePath(QStringLiteral("state/chat2sbx.sqlite")), error), qPrintable(error));
        CheckpointRepository repo(db);
        for (const char *id : {"ckp_u1", "ckp_u2", "ckp_u3", "ckp_asked", "ckp_other"}) {
            QVERIFY(repo.insert(saving(QLatin1String(id), QLatin1String(id) == QLatin1String("ckp_other") ? QStringLiteral("sbx_2")
                                                                                                         : QStringLiteral("sbx_1"), 1),
                                error));
            QCOMPARE(repo.finish(QLatin1String(id), CheckpointState::Ready, 100, {}, 2, error), 1);
        }
        QVERIFY(repo.setPinned(QStringLiteral("ckp_asked"), true, error));
        QCOMPARE(repo.pinAsUndo(QStringLiteral("ckp_other"), QStringLiteral("sbx_2"), error), 0);
        QCOMPARE(repo.pinAsUndo(QStringLiteral("ckp_u1"), QStringLiteral("sbx_1"), error), 0);
        QCOMPARE(repo.pinAsUndo(QStringLiteral("ckp_u2"), QStringLiteral("sbx_1"), error), 1);
        QCOMPARE(repo.pinAsUndo(QStringLiteral("ckp_u3"), QStringLiteral("sbx_1"), error), 1);
        QVERIFY(!repo.find(QStringLiteral("ckp_u1"))->pinned);
        QVERIFY(!repo.find(QStringLiteral("ckp_u2"))->pinned);
        QVERIFY(repo.find(QStringLiteral("ckp_u3"))->pinned);
        QVERIFY(repo.find(QStringLiteral("ckp_asked"))->pinned);
        QVERIFY(repo.find(QStringLiteral("ckp_other"))->pinned);
        int pinned = 0;
        qint64 pinnedBytes = 0;
        for (const Checkpoint &c : repo.inState(CheckpointState::Ready))
            if (c.pinned) {
                ++pinned;
                pinnedBytes += c.sizeBytes;
            }
        QCOMPARE(pinned, 3);
        QCOMPARE(pinnedBytes, qint64(300));
    }
};

QTEST_GUILESS_MAIN(TestCheckpointRepository)
#include "tst_checkpoint_repository.moc"
