#pragma once

#include "widgets/CardList.h"
#include "models/TrayModels.h"

#include <QMessageBox>
#include <QPointer>
#include <QSet>

#include <functional>

class QVBoxLayout;

namespace chat2sbx::ui {

// "Sandboxes": one compact line per sandbox (id, state, workspace and its mode, exposed ports as
// links with LAN-wide ones marked, running commands) with an expander for the details (memory, idle
// deadline, host path, reason) and Destroy, which asks for confirmation in a window-modal box (no
// nested event loop) that says how many commands are still running. A direct-mode row says that
// the sandbox writes to the host folder. Expanded, a sandbox lists its checkpoints with Restore…
// (asked first; what is there now is checkpointed before), Fork and Delete… (asked first).
class SandboxesSection : public CardList {
    Q_OBJECT
public:
    explicit SandboxesSection(SandboxesModel &model, QWidget *parent = nullptr);
    // The open confirmation, if any (tests answer it).
    QMessageBox *confirmation() const { return m_confirm; }

private:
    void addSandboxCard(const SandboxRow &row);
    // Under an expanded sandbox: each checkpoint (label, age, size) with Restore…, Fork and Delete….
    void addCheckpoints(QWidget *card, QVBoxLayout *column, const SandboxRow &row, int indent, QList<QWidget *> &focus);
    void askDestroy(const QString &id, int runningCommands);
    // A window-modal question (no nested event loop); `onYes` runs when `yesText` is clicked.
    void ask(const QString &title, const QString &question, const QString &info, const QString &yesText,
             const QString &yesName, const QString &noName, std::function<void()> onYes);
    // Runs a checkpoint action with the sandbox marked busy; its outcome goes to the message line.
    void runCheckpointAction(const QString &busyKey, const QString &failurePrefix,
                             std::function<void(ResultCallback)> action);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    SandboxesModel &m_model;
    QSet<QString> m_destroying;
    QSet<QString> m_checkpointBusy;   // sandbox or checkpoint ids an action of the tray runs on
    QSet<QString> m_expanded;
    QPointer<QMessageBox> m_confirm;
};

} // namespace chat2sbx::ui
