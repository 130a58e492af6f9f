#pragma once

#include "models/TrayModels.h"

#include <QObject>
#include <QTimer>

#include <functional>

namespace chat2sbx::ui {

class DesktopNotifications;

// The notifications that ask the user to decide: a folder approval with Approve / Reject, a network
// request with "Allow for this sandbox" / Deny, each deciding exactly as the popup's buttons do
// (through the same models). Requests that arrive together are gathered for kGatherMs: one alone
// gets its own buttons, several become one notification ("3 requests wait") that opens the popup.
// A request decided elsewhere (the popup, the CLI) withdraws its notification; nothing is decided
// by a timeout, and no notification takes the keyboard focus.
class DecisionNotices : public QObject {
    Q_OBJECT
public:
    static constexpr int kGatherMs = 500;

    // `openPopup(requestId)`: a click on a notification's body opens the popup at that request's
    // card (an empty id: the popup, for the one "requests wait" notification).
    DecisionNotices(DesktopNotifications &notifications, ApprovalsModel &approvals,
                    std::function<void(const QString &requestId)> openPopup, QObject *parent = nullptr);
    void addNetwork(NetworkModel &network);

    // A new request (the models' requested signals); shown after the gathering window.
    void approvalRequested(const ApprovalRow &row);
    void networkRequested(const NetworkRequestRow &row);
    // The popup shows every waiting request now: their notifications go (they covered its corner),
    // and those still gathering are not shown. A request that arrives later notifies again.
    void withdrawAll();

signals:
    // A decision taken from a notification failed: one readable sentence.
    void failed(const QString &error);

private:
    struct Waiting {
        QString key;     // "approval:<id>" or "network:<id>"
        QString title;
        QString body;
    };
    void gather(const Waiting &w);
    void showGathered();
    void showBurst();
    void withdrawDecided();
    void onAction(const QString &key, const QString &action);
    QSet<QString> pendingKeys() const;

    DesktopNotifications &m_notifications;
    ApprovalsModel &m_approvals;
    NetworkModel *m_network = nullptr;
    std::function<void(const QString &requestId)> m_openPopup;
    QTimer m_gather;
    QList<Waiting> m_gathered;   // arrived in the current window
    QList<Waiting> m_burst;      // shown together in the one "requests wait" notification
};

} // namespace chat2sbx::ui
