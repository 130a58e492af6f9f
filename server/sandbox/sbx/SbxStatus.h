#pragma once

#include <QJsonObject>
#include <QString>

#include <functional>

namespace chat2sbx {

class SbxDriver;

// What chat2sbx needs from Docker Sandboxes before the first sandbox: sbx present, a version at least
// the floor (SbxVersion.h), signed in, the pinned template saved (`chat2sbx setup`). Shown at serve
// start, by `chat2sbx status` and in the tray.
struct SbxStatus {
    // NotAnswering and UpdatePending come from sbx's answers to any command (SbxDriver), not the checks.
    enum class State { Unchecked, Ready, NotInstalled, TooOld, NotSignedIn, TemplateMissing, Failed, NotAnswering, UpdatePending };
    enum class Known { Unknown, Yes, No };

    State state = State::Unchecked;
    QString sbxPath;
    QString version;                       // "v0.47.0"; empty: unknown
    Known signedIn = Known::Unknown;
    QString templateRef;
    Known templatePresent = Known::Unknown;
    // What is wrong and the exact command that fixes it; empty when ready or not checked yet.
    QString problem;
    // The last sandbox create failed for a host set-up reason no check can see beforehand (no network
    // policy: sbx-contract.md behaviour 2). Kept until a create succeeds or a new check finds worse.
    QString createProblem;
    // Docker's cloud (`sbx --cloud diagnose`), when cloud sandboxes are on: "ready" or "not usable"
    // (cloudDetail: what sbx said); empty: not checked.
    QString cloudState;
    QString cloudDetail;

    bool checked() const { return state != State::Unchecked; }
    bool ready() const { return state == State::Ready && createProblem.isEmpty(); }
    // The problem to report (problem first, then createProblem); empty when ready or unchecked.
    QString currentProblem() const;
    // One line for logs, the CLI and the tray: "sbx v0.47.0, signed in, template chat2sbx-shell:1 present".
    QString summary() const;

    static QString stateName(State state);
    // `chat2sbx status --json` (snake_case) or /healthz (camelCase).
    QJsonObject toJson(bool camelCase) const;
    static SbxStatus fromHealthJson(const QJsonObject &o);
};

// Runs the checks through `sbx` (version --json, else plain version; template ls), each with the
// driver's timeout; `done` runs exactly once, from the event loop. Nothing here blocks.
void checkSbxStatus(SbxDriver &sbx, const QString &templateRef, std::function<void(const SbxStatus &)> done);

} // namespace chat2sbx
