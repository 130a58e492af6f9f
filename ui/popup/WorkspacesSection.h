#pragma once

#include "widgets/CardList.h"
#include "models/WorkspacesModel.h"

#include <QHash>
#include <QPointer>
#include <QSet>

class QGridLayout;
class QMessageBox;

namespace chat2sbx::ui {

// "Workspaces": one card per live workspace (name, mode, host path; direct mode marked as writing to
// the host folder) with its sandboxes, each with a one-line summary of its work and, for a clone,
// "Fetch as branch". Revoke (host) / Remove (managed) asks for confirmation in a window-modal box.
// Every host folder has a card; scratch folders (one per sandbox, usually) only up to kMaxCards in
// all, the rest counted in one line: each is listed with its sandbox above, and a hundred identical
// cards kept the popup from painting at once.
class WorkspacesSection : public CardList {
    Q_OBJECT
public:
    explicit WorkspacesSection(WorkspacesModel &model, QWidget *parent = nullptr);
    static constexpr int kMaxCards = 25;
    QMessageBox *confirmation() const { return m_confirm; }

private:
    // The cards (host folders first), the line for the scratch folders not shown; the count.
    int addCards();
    void addWorkspaceCard(const WorkspaceRow &row);
    void addSandboxLine(const WorkspaceRow &row, const WorkspaceSandboxRow &sandbox, QGridLayout *grid, int line,
                        QList<QWidget *> &focus);
    void askRevoke(const WorkspaceRow &row);
    void fetch(const QString &sandboxId);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    WorkspacesModel &m_model;
    QSet<QString> m_busy;                      // sandbox ids being fetched, workspace ids being revoked
    QHash<QString, QString> m_summaries;       // sandbox id -> last summary line
    QPointer<QMessageBox> m_confirm;
};

} // namespace chat2sbx::ui
