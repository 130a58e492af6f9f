#pragma once

#include "widgets/CardList.h"
#include "models/TrayModels.h"

#include <QMessageBox>
#include <QPointer>
#include <QSet>

#include <functional>

class QVBoxLayout;

class QLineEdit;

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

    // At most this many cards are built (the popup opens at once with hundreds of sandboxes); the
    // filter narrows the rest down. The filter shows from kFilterFrom sandboxes on.
    static constexpr int kMaxCards = 25;
    static constexpr int kFilterFrom = 8;
    QLineEdit &filter() const { return *m_filter; }
    // The open confirmation, if any (tests answer it).
    QMessageBox *confirmation() const { return m_confirm; }

private:
    // The cards of the rows the filter keeps, grouped by workspace (a header per group); the
    // number of sandboxes for the title.
    int addCards();
    void addSandboxCard(const SandboxRow &row);
    // Under an expanded sandbox: each checkpoint (label, age, size) with Restore…, Fork and Delete….
    void addCheckpoints(QWidget *card, QVBoxLayout *column, const SandboxRow &row, int indent, QList<QWidget *> &focus);
    void askDestroy(const QString &id, const QString &name, int runningCommands);
    // Pause; while commands run the user sees them named and confirms first.
    void pauseSandbox(const QString &id, const QString &name, bool endRunningCommands);
    // "Continue in the cloud" / "Bring back to this computer": the row says it is moving until it is done.
    void askMove(const QString &id, const QString &name, bool toCloud, int runningCommands);
    void moveSandbox(const QString &id, const QString &name, bool toCloud);
    // Under an expanded cloud sandbox: each public URL with Copy and Unpublish.
    void addPublicPorts(QWidget *card, QVBoxLayout *column, const SandboxRow &row, int indent, QList<QWidget *> &focus);
    // A cloud sandbox's time-to-live, longer (the model says until when).
    void extendSandbox(const QString &id, const QString &name);
    // A window-modal question (no nested event loop); `onYes` runs when `yesText` is clicked.
    void ask(const QString &title, const QString &question, const QString &info, const QString &yesText,
             const QString &yesName, const QString &noName, std::function<void()> onYes);
    // Runs a checkpoint action with the sandbox marked busy; its outcome goes to the message line.
    void runCheckpointAction(const QString &busyKey, const QString &failurePrefix,
                             std::function<void(ResultCallback)> action);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    SandboxesModel &m_model;
    QSet<QString> m_destroying;
    QSet<QString> m_pausing;
    QSet<QString> m_extending;
    QSet<QString> m_moving;
    QSet<QString> m_checkpointBusy;   // sandbox or checkpoint ids an action of the tray runs on
    QSet<QString> m_expanded;
    QPointer<QMessageBox> m_confirm;
    QLineEdit *m_filter = nullptr;
};

} // namespace chat2sbx::ui
