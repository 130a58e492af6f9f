#pragma once

#include "sandbox/channel/SandboxResolver.h"
#include "state/SandboxMoveRepository.h"
#include "state/SandboxRepository.h"

#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <optional>

namespace chat2sbx {

struct Config;
class BashSessions;
class Clock;
class CloneCheckpointWork;
class CloneSeeder;
class Database;
class RuntimeAttacher;
class SandboxService;
class SbxDriver;

struct MoveRequest {
    QString sandboxId;
    bool toCloud = true;
    qint64 ttlSeconds = 0;          // to the cloud: 0 is cloudDefaultTtl
    bool endRunningCommands = false;
};

struct MoveOutcome {
    bool ok = false;
    QString error;
    QString placement;              // where it runs now (local | cloud)
    qint64 tookMs = 0;
    QStringList carried;            // what went along
    QStringList leftBehind;         // what did not, and what to redo
    QStringList warnings;           // every line sbx warned with
};
using MoveDone = std::function<void(const MoveOutcome &)>;

// The smallest cloud size whose memory holds `memory` (sbx rounds up so); none recorded: small.
// `tooLarge`: more than the largest (xl, 32 GiB).
QString cloudSizeForMemory(const QString &memory, bool &tooLarge);

// sandbox_move: a sandbox goes between this computer and Docker's cloud (`sbx move`,
// reference/sbx-cloud.md §6) and keeps its id, name, workspace record, checkpoints and audit
// history; its runtime changes underneath, as a restore's does.
// 1. Refusals before anything changes (the limits of §6: sizes, the time-to-live, an account that
//    cannot stop, the temporary disk a move to this computer needs, a direct folder).
// 2. The sandbox is held stopped (its commands end) and the move recorded (sandbox_moves).
// 3. `sbx move --force`: the destination's real name is read back from `ls` / `--cloud ls` by
//    the prefix chat2sbx gave it (the CLI adds a suffix; its output format is UNKNOWN).
// 4. A host folder of this computer (a managed workspace) does not travel: it is copied in with
//    `sbx --cloud cp` and put at ~/workspace.
// 5. The record switches to the destination (one transaction with the step), which must answer
//    through the control channel; if it does not, the record switches back and the destination goes.
// 6. The source goes, last; then the row, and the sandbox is released.
// A start finds the row and finishes from its step (or undoes a move that made nothing).
class SandboxMover : public QObject {
    Q_OBJECT
public:
    SandboxMover(const Config &config, Database &db, SandboxService &sandboxes, SbxDriver &sbx, RuntimeAttacher &attacher,
                 Clock &clock, BashSessions *sessions, QObject *parent = nullptr);

    void move(const MoveRequest &request, MoveDone done);
    // Start-up, before reconciliation: moves a crash interrupted are finished or undone.
    void finishInterrupted();
    bool isMoving(const QString &sandboxId) const { return m_jobs.contains(sandboxId); }
    // A clone on this computer goes to the cloud with its git state (saved first, as a checkpoint's)
    // on top of a clone of the approved repository's commit; without these, such a move is refused.
    void setCloneWork(CloneCheckpointWork *work, CloneSeeder *seeder);
    // Where it is going, for a sandbox being moved (empty: none).
    QString movingTo(const QString &sandboxId) const;

    static constexpr int kRetryMs = 30000;   // a start-up finish sbx did not answer is tried again

signals:
    void moved(const QString &sandboxId);

private:
    struct Job {
        SandboxMove move;
        qint64 startedAtMs = 0;
        QString hostWorkspace;      // a managed host folder to carry into the cloud (empty: none)
        bool seedClone = false;     // a clone of this computer: its git state goes in after the switch
        QString sbxFailure;         // what `sbx move` said when it failed but made a destination all the same
        MoveDone done;
    };
    QString refusal(const MoveRequest &request, const std::optional<SandboxView> &view) const;
    // What has to be carried besides `sbx move`'s filesystem: a host folder, a clone's git state.
    static void setCarried(Job &job, const std::optional<SandboxView> &view);
    void begin(const MoveRequest &request, const SandboxView &view, MoveDone done);
    // Before anything moved: the sandbox is let go (when held) and `done` gets `error`.
    void giveUp(const QString &id, const QString &error, bool held);
    void runMove(const QString &id);
    // `sbxError` empty: sbx said it moved; otherwise a destination may exist all the same.
    void findDestination(const QString &id, const QString &sbxError);
    void carryWorkspace(const QString &id);
    void switchToDestination(const QString &id);
    void verify(const QString &id);
    void seedClone(const QString &id, const RunningSandbox &running);
    QString stateDir(const QString &sandboxId) const;
    void removeSource(const QString &id);
    void undoBeforeSwitch(const QString &id, const QString &error);
    void switchBack(const QString &id, const QString &error);
    // `rowStays`: the source could not be removed; the row (source_left) says so to the next start.
    void finish(const QString &id, const QString &error, bool rowStays = false);
    void resume(const SandboxMove &move);
    // A source_left row: its old copy removed again later (while chat2sbx runs), then the row ended.
    void retryLeftSource(const QString &id, int attempt);

    const Config &m_config;
    SandboxMoveRepository m_moves;
    SandboxRepository m_records;
    SandboxService &m_sandboxes;
    SbxDriver &m_sbx;
    RuntimeAttacher &m_attacher;
    Clock &m_clock;
    BashSessions *m_sessions;
    CloneCheckpointWork *m_cloneWork = nullptr;
    CloneSeeder *m_seeder = nullptr;
    QHash<QString, Job> m_jobs;
};

} // namespace chat2sbx
