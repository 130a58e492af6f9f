#pragma once

#include <QList>
#include <QString>

namespace chat2sbx {

struct StatusReport;

// What chat2sbx needs before an agent can use it, in the order to do it: one list for the tray's
// first-run guide and `chat2sbx status`, built from the same StatusReport, so both say the same.
struct ChecklistItem {
    enum class Step { SbxInstalled, SignedIn, TemplatePrepared, ChatGptConnected, HostFolders, CloudSandboxes };
    enum class State {
        Done,       // ready
        ToDo,       // needed: `detail` says what to do
        Blocked,    // waits for an earlier step
        Checking,   // not known yet (the first sbx check is running)
        Optional,   // a valid way to use chat2sbx as it is (local only, scratch folders only)
    };
    Step step;
    State state;
    QString title;     // "Docker Sandboxes installed"
    QString detail;    // what is there, or what to do
    QString command;   // the command that fixes it, to copy (may be empty)

    static QString stateName(State state);   // "done", "to do", "blocked", "checking", "optional"
};

QList<ChecklistItem> setupChecklist(const StatusReport &report);
// Whether something the product needs is not ready (the tray then opens on the guide).
bool setupNeeded(const QList<ChecklistItem> &items);
// The list as `chat2sbx status` prints it: one line per step, its detail indented below.
QString setupChecklistText(const QList<ChecklistItem> &items);

} // namespace chat2sbx
