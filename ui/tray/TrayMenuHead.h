#pragma once

#include "models/TrayModels.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

class QAction;
class QMenu;

namespace chat2sbx::ui {

// The top of the tray menu, the first surface where a click on the icon opens the menu (GNOME
// Shell, KDE Plasma): a status line ("2 wait for you", "Ready · 3 sandboxes running"), then each
// waiting request as a submenu that decides it or opens its card. Rebuilt (once per turn of the
// event loop) whenever the models change; the menu's fixed entries follow below `before`.
class TrayMenuHead : public QObject {
    Q_OBJECT
public:
    TrayMenuHead(QMenu &menu, QAction *before, ApprovalsModel &approvals, SandboxesModel &sandboxes,
                 StatusModel &status, QObject *parent = nullptr);
    void addNetwork(NetworkModel &network);
    // As of the last rebuild: what waits for the user (folder, file and network requests) and the
    // status line.
    int waiting() const { return m_waiting; }
    QString statusLine() const { return m_statusLine; }
    // At most this many requests are listed; the rest are "N more in chat2sbx…".
    static constexpr int kMaxListed = 6;

signals:
    // The popup, at the card of `requestId` ("Review in chat2sbx…"), or as it is (an empty id).
    void openRequested(const QString &requestId);
    // The menu was built again; waiting() and statusLine() are current.
    void rebuilt();
    void failed(const QString &error);

private:
    void scheduleRebuild();
    void rebuild();
    QAction *addBefore(QAction *action);
    void addApproval(const ApprovalRow &row);
    void addNetworkRequest(const NetworkRequestRow &row);
    QMenu *addRequestMenu(const QString &title, const QString &accessibleName);

    QMenu &m_menu;
    QPointer<QAction> m_before;
    ApprovalsModel &m_approvals;
    SandboxesModel &m_sandboxes;
    StatusModel &m_status;
    NetworkModel *m_network = nullptr;
    QList<QAction *> m_built;   // the actions of the last rebuild, removed by the next
    int m_waiting = 0;
    QString m_statusLine;
    QTimer m_rebuild;
};

} // namespace chat2sbx::ui
