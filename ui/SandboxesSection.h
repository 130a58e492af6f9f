#pragma once

#include "TrayModels.h"

#include <QGroupBox>
#include <QMessageBox>
#include <QPointer>
#include <QSet>

class QLabel;

class QVBoxLayout;

namespace chat2sbx::ui {

// "Sandboxes": one compact line per sandbox (id, state, workspace and its mode, exposed ports as
// links with LAN-wide ones marked, running commands) with an expander for the details (memory, idle
// deadline, host path, reason) and Destroy, which asks for confirmation in a window-modal box (no
// nested event loop) that says how many commands are still running. A direct-mode row says that
// the sandbox writes to the host folder.
class SandboxesSection : public QGroupBox {
    Q_OBJECT
public:
    explicit SandboxesSection(SandboxesModel &model, QWidget *parent = nullptr);
    QList<QWidget *> focusChain() const { return m_focus; }
    int rowCount() const { return m_rowCount; }
    // The open confirmation, if any (tests answer it).
    QMessageBox *confirmation() const { return m_confirm; }

    // Re-reads the rows from the model (also on every change signal).
    void rebuild();

signals:
    void rebuilt();

private:
    void askDestroy(const QString &id, int runningCommands);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    SandboxesModel &m_model;
    QVBoxLayout *m_rows = nullptr;
    QLabel *m_message = nullptr;
    QLabel *m_empty = nullptr;
    QList<QWidget *> m_focus;
    QSet<QString> m_destroying;
    QSet<QString> m_expanded;
    QPointer<QMessageBox> m_confirm;
    int m_rowCount = 0;
};

} // namespace chat2sbx::ui
