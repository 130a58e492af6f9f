#pragma once

#include "models/TrayModels.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QScrollArea;

namespace chat2sbx::ui {

class ActivityModel;
class ActivitySection;
class ApprovalsSection;
class FirstRunSection;
class NetworkSection;
class PopupHeader;
class SandboxesSection;
class StatusSection;
class WorkspacesModel;
class WorkspacesSection;

// The tray popup: a frameless panel at the tray icon, one fixed width and at most kMaxHeight tall.
// The header line (the overall state, how many things wait for the user) stays at the top; what
// needs a decision (Approvals, Network) comes first, then Activity and Sandboxes, which scroll;
// Status stays pinned below them. Escape and a click elsewhere (focus loss) close it; Tab walks
// every button in visual order.
class PopupWindow : public QWidget {
    Q_OBJECT
public:
    PopupWindow(ApprovalsModel &approvals, SandboxesModel &sandboxes, StatusModel &status, QWidget *parent = nullptr);

    // AtIcon: a frameless panel hanging from the tray icon, closed by a click elsewhere (X11 with
    // an XEmbed tray, where the icon's geometry is known). AppWindow: the same content in a titled,
    // resizable window of the desktop's own placing, with a remembered size and closed by Escape or
    // its close button: where no client places windows (Wayland) or the icon has no geometry
    // (a StatusNotifierItem host).
    enum class Presentation { AtIcon, AppWindow };
    void setPresentation(Presentation presentation);
    Presentation presentation() const { return m_presentation; }

    // Shows, raises and places the window next to `anchor` (the tray icon's geometry; may be empty).
    void showNear(const QRect &anchor);
    // Scrolls to the card of a waiting request (folder, file or network) and gives its first
    // button the focus; false when no such card is shown (decided meanwhile).
    bool focusRequest(const QString &requestId);
    ApprovalsSection &approvals() const { return *m_approvals; }
    SandboxesSection &sandboxes() const { return *m_sandboxes; }
    StatusSection &status() const { return *m_status; }
    FirstRunSection &firstRun() const { return *m_firstRun; }
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
    PopupHeader &header() const { return *m_header; }
    // Whether focus loss closed it a moment ago: a click on the tray icon then means "close", not
    // "open again".
    bool justClosedByFocusLoss() const;
    static constexpr int kMaxHeight = 640;   // logical pixels
    static constexpr int kWidthChars = 72;   // the fixed width, in average characters of the font
    static constexpr int kRelativeTimesMs = 30000;
    // Cards built less than this long before an opening are shown as they are, not built again.
    static constexpr int kFreshCardsMs = 1000;

signals:
    void copyUrlRequested();
    // The first paint after it was shown has been handled (the content is on screen).
    void painted();

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    // After a section rebuilt its rows: the Tab order again, and the size once the old rows are gone.
    void relayout();
    void updateTabOrder();
    void refreshHeader();
    bool ownsActiveWindow() const;

    FirstRunSection *m_firstRun = nullptr;
    ApprovalsSection *m_approvals = nullptr;
    SandboxesSection *m_sandboxes = nullptr;
    StatusSection *m_status = nullptr;
    ActivitySection *m_activity = nullptr;
    WorkspacesSection *m_workspaces = nullptr;
    NetworkSection *m_network = nullptr;
    QScrollArea *m_scroll = nullptr;
    PopupHeader *m_header = nullptr;
    // While shown: "requested 2 min ago" and the like are written again (the cards stay as they are).
    QTimer m_relativeTimes;
    ApprovalsModel &m_approvalsModel;
    StatusModel &m_statusModel;
    NetworkModel *m_networkModel = nullptr;
    QElapsedTimer m_focusClosed;
    bool m_paintPending = false;   // shown, not painted yet
    QWidget *m_content = nullptr;
    Presentation m_presentation = Presentation::AtIcon;
};

} // namespace chat2sbx::ui
