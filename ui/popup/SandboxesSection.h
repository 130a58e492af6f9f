#pragma once

#include "widgets/CardList.h"
#include "models/TrayModels.h"

#include <QMessageBox>
#include <QPointer>
#include <QSet>

namespace chat2sbx::ui {

// "Sandboxes": one compact line per sandbox (id, state, workspace and its mode, exposed ports as
// links with LAN-wide ones marked, running commands) with an expander for the details (memory, idle
// deadline, host path, reason) and Destroy, which asks for confirmation in a window-modal box (no
// nested event loop) that says how many commands are still running. A direct-mode row says that
// the sandbox writes to the host folder.
class SandboxesSection : public CardList {
    Q_OBJECT
public:
    explicit SandboxesSection(SandboxesModel &model, QWidget *parent = nullptr);
    // The open confirmation, if any (tests answer it).
    QMessageBox *confirmation() const { return m_confirm; }

private:
    void addSandboxCard(const SandboxRow &row);
    void askDestroy(const QString &id, int runningCommands);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    SandboxesModel &m_model;
    QSet<QString> m_destroying;
    QSet<QString> m_expanded;
    QPointer<QMessageBox> m_confirm;
};

} // namespace chat2sbx::ui
