#pragma once

#include "WorkspacesModel.h"

#include <QGroupBox>
#include <QHash>
#include <QPointer>
#include <QSet>

class QLabel;
class QMessageBox;
class QVBoxLayout;

namespace chat2sbx::ui {

// "Workspaces": one card per live workspace (name, mode, host path; direct mode marked as writing to
// the host folder) with its sandboxes, each with a one-line summary of its work and, for a clone,
// "Fetch as branch". Revoke (host) / Remove (managed) asks for confirmation in a window-modal box.
class WorkspacesSection : public QGroupBox {
    Q_OBJECT
public:
    explicit WorkspacesSection(WorkspacesModel &model, QWidget *parent = nullptr);
    QList<QWidget *> focusChain() const { return m_focus; }
    int rowCount() const { return m_rowCount; }
    QMessageBox *confirmation() const { return m_confirm; }
    QString message() const;

    void rebuild();

signals:
    void rebuilt();

private:
    void askRevoke(const WorkspaceRow &row);
    void fetch(const QString &sandboxId);
    void showMessage(const QString &text, bool error);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    WorkspacesModel &m_model;
    QVBoxLayout *m_rows = nullptr;
    QLabel *m_message = nullptr;
    QLabel *m_empty = nullptr;
    QList<QWidget *> m_focus;
    QSet<QString> m_busy;                      // sandbox ids being fetched, workspace ids being revoked
    QHash<QString, QString> m_summaries;       // sandbox id -> last summary line
    QPointer<QMessageBox> m_confirm;
    int m_rowCount = 0;
};

} // namespace chat2sbx::ui
