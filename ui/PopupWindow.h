#pragma once

#include "TrayModels.h"

#include <QWidget>

class QScrollArea;

namespace chat2sbx::ui {

class ActivityModel;
class ActivitySection;
class ApprovalsSection;
class NetworkSection;
class SandboxesSection;
class StatusSection;
class WorkspacesModel;
class WorkspacesSection;

// The tray popup: Approvals, Activity and Sandboxes scroll; Status stays pinned below them, in view
// however many sandboxes there are. One small tool window, placed by the tray icon. Escape closes
// it; Tab walks every button in visual order.
class PopupWindow : public QWidget {
    Q_OBJECT
public:
    PopupWindow(ApprovalsModel &approvals, SandboxesModel &sandboxes, StatusModel &status, QWidget *parent = nullptr);

    // Shows, raises and places the window next to `anchor` (the tray icon's geometry; may be empty).
    void showNear(const QRect &anchor);
    ApprovalsSection &approvals() const { return *m_approvals; }
    SandboxesSection &sandboxes() const { return *m_sandboxes; }
    StatusSection &status() const { return *m_status; }
    // Adds the Activity view (running commands, recent tool calls) below the approvals.
    void setActivityModel(ActivityModel &activity);
    ActivitySection *activity() const { return m_activity; }
    // Adds the Workspaces section (below Sandboxes); once.
    WorkspacesSection &addWorkspaces(WorkspacesModel &model);
    WorkspacesSection *workspaces() const { return m_workspaces; }
    // Adds the Network section (below the approvals); once.
    NetworkSection &addNetwork(NetworkModel &model);
    NetworkSection *network() const { return m_network; }
    // Resizes to fit the content, within the screen.
    void fitToContent();

signals:
    void copyUrlRequested();

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    // After a section rebuilt its rows: the Tab order again, and the size once the old rows are gone.
    void relayout();
    void updateTabOrder();

    ApprovalsSection *m_approvals = nullptr;
    SandboxesSection *m_sandboxes = nullptr;
    StatusSection *m_status = nullptr;
    ActivitySection *m_activity = nullptr;
    WorkspacesSection *m_workspaces = nullptr;
    NetworkSection *m_network = nullptr;
    QScrollArea *m_scroll = nullptr;
    QWidget *m_content = nullptr;
};

} // namespace chat2sbx::ui
