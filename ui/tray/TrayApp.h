#pragma once

#include "tray/TrayIcons.h"
#include "models/TrayModels.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QSystemTrayIcon>
#include <QTimer>

class QAction;
class QMenu;

namespace chat2sbx::ui {

class ActivityModel;
class DecisionNotices;
class DesktopNotifications;
class PopupWindow;
class TrayMenuHead;
class WorkspacesModel;
namespace sni {
class StatusNotifierItem;
}

struct TrayPaths {
    QString dataRoot;        // Open data folder
    QString agentsFile;      // Edit global instructions
    QString executable;      // for the autostart entry
};

// The tray icon, its menu, the popup and the approval notifications, over the three models. Where
// the desktop hosts StatusNotifierItems (GNOME Shell with the AppIndicator extension, KDE Plasma)
// the icon is an item of ours that says NeedsAttention while something waits and whose menu
// leads with what waits, and the popup is a window of its own; elsewhere it is QSystemTrayIcon's
// XEmbed icon with the popup hanging from it.
class TrayApp : public QObject {
    Q_OBJECT
public:
    TrayApp(ApprovalsModel &approvals, SandboxesModel &sandboxes, StatusModel &status, const TrayPaths &paths,
            QObject *parent = nullptr);
    ~TrayApp() override;

    // The Workspaces section (Fetch as branch, Revoke) and its notifications.
    void addWorkspaces(WorkspacesModel &workspaces);
    // The Network section and a notification for each new network request; blocked hosts are
    // re-read whenever the popup opens.
    void addNetwork(NetworkModel &network);
    void show();
    // The popup's Activity view (running commands, recent tool calls).
    void setActivityModel(ActivityModel &activity);
    // The popup, at the card of `requestId` when one is given and still waits.
    void openPopup(const QString &requestId = QString());
    // Made the first time it is needed (opened, or asked for here): a tray nobody opened does not
    // hold the popup's widgets, fonts and image plugins (about 5 MiB of its idle memory).
    PopupWindow &popup();
    bool popupMade() const { return m_popup != nullptr; }
    QSystemTrayIcon &trayIcon() const { return *m_tray; }
    // The StatusNotifierItem, where the desktop hosts them; null on an XEmbed tray.
    sni::StatusNotifierItem *statusNotifierItem() const { return m_sni; }
    // What waits for the user: folder and file requests and network requests.
    int waiting() const;
    QMenu &menu() const { return *m_menu; }
    TrayState state() const { return m_state; }
    int pendingApprovals() const { return m_pending; }
    QAction *action(const QString &objectName) const;
    DesktopNotifications &desktopNotifications() const { return *m_desktop; }

    // Menu actions (public for tests).
    bool editGlobalInstructions(QString &error);
    bool openDataFolder(QString &error);
    void copyMcpUrl();
    bool setStartAtLogin(bool enabled, QString &error);

    // Approval notifications are coalesced: the first is shown at once, the ones that follow within
    // this window become one "N more" notification at its end (a burst of requests is two messages).
    static constexpr int kApprovalNoticeWindowMs = 10000;
    void setApprovalNoticeWindow(int ms) { m_noticeWindow.setInterval(ms); }

signals:
    void quitRequested();
    // A notification was shown (title, body); tests observe it.
    void notified(const QString &title, const QString &body);

private:
    void refreshIcon();
    // The item's attention and tooltip, from the menu's last rebuild (one read of the models).
    void refreshItemSummary();
    void togglePopup();
    PopupWindow &ensurePopup();
    void giveNetworkToPopup();
    // A message on the desktop: its notification server where there is one, else Qt's balloon.
    void showNotice(const QString &title, const QString &body, bool warning, int timeoutMs);
    void notifyApproval(const ApprovalRow &row);
    void notifyExport(const QString &hostPath, const QString &sandboxName);
    // A cloud sandbox ends in minutes: a warning, with Extend where it can be.
    void notifyCloudExpiry(const QString &id, const QString &name, qint64 expiresAtMs, bool atCeiling);
    void onNotificationAction(const QString &key, const QString &action);
    void showInFolder(const QString &path);
    void showApprovalNotice(const QString &body);
    void endApprovalNoticeWindow();
    void reportError(const QString &text);

    // Outlive this: the models are owned by ServiceModels (TrayCommand), made before the tray.
    ApprovalsModel &m_approvals;
    SandboxesModel &m_sandboxes;
    StatusModel &m_status;
    TrayPaths m_paths;
    QSystemTrayIcon *m_tray = nullptr;
    DesktopNotifications *m_desktop = nullptr;   // the desktop's notification server, when it has buttons
    DecisionNotices *m_decisions = nullptr;
    QMenu *m_menu = nullptr;
    TrayMenuHead *m_menuHead = nullptr;
    sni::StatusNotifierItem *m_sni = nullptr;
    PopupWindow *m_popup = nullptr;
    // What the popup is given once it is made.
    bool m_popupAsAppWindow = false;
    ActivityModel *m_activity = nullptr;
    WorkspacesModel *m_workspaces = nullptr;
    NetworkModel *m_network = nullptr;
    QAction *m_autostart = nullptr;
    TrayState m_state = TrayState::Stopped;
    int m_pending = -1;
    QTimer m_noticeWindow;
    QElapsedTimer m_popupOpened;
    int m_heldNotices = 0;   // approval requests that arrived during the window, not shown yet
};

} // namespace chat2sbx::ui
