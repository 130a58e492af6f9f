#include "notifications/DecisionNotices.h"

#include "notifications/DesktopNotifications.h"

#include <QPointer>
#include <QSet>

namespace chat2sbx::ui {
namespace {
const QString kBurstKey = QStringLiteral("requests");
const QString kApprovalPrefix = QStringLiteral("approval:");
const QString kNetworkPrefix = QStringLiteral("network:");

// A request's own notification (a folder, file or network request), not a saved file's or a notice.
bool isRequestKey(const QString &key)
{
    return key.startsWith(kApprovalPrefix) || key.startsWith(kNetworkPrefix);
}
} // namespace

DecisionNotices::DecisionNotices(DesktopNotifications &notifications, ApprovalsModel &approvals,
                                 std::function<void(const QString &requestId)> openPopup, QObject *parent)
    : QObject(parent), m_notifications(notifications), m_approvals(approvals), m_openPopup(std::move(openPopup))
{
    m_gather.setSingleShot(true);
    m_gather.setInterval(kGatherMs);
    connect(&m_gather, &QTimer::timeout, this, &DecisionNotices::showGathered);
    connect(&approvals, &ApprovalsModel::changed, this, &DecisionNotices::withdrawDecided);
    connect(&notifications, &DesktopNotifications::actionInvoked, this, &DecisionNotices::onAction);
}

void DecisionNotices::addNetwork(NetworkModel &network)
{
    m_network = &network;
    connect(&network, &NetworkModel::changed, this, &DecisionNotices::withdrawDecided);
}

void DecisionNotices::approvalRequested(const ApprovalRow &row)
{
    if (row.isExport()) {
        const QString body = QStringLiteral("%1 wants to save %2 (%3) on this computer. %4.")
                                 .arg(row.client.isEmpty() ? QStringLiteral("ChatGPT") : row.client, row.path, row.detail,
                                      row.reason.left(300));
        return gather({kApprovalPrefix + row.id, QStringLiteral("chat2sbx: a file to save"), body});
    }
    if (row.isPublicPort())
        return gather({kApprovalPrefix + row.id, QStringLiteral("chat2sbx: a port on the internet"),
                       QStringLiteral("%1 wants %2 (%3) as a public HTTPS URL anyone can open.")
                           .arg(row.client.isEmpty() ? QStringLiteral("ChatGPT") : row.client, row.path, row.detail)});
    QString body = QStringLiteral("%1 asks for %2 (%3).").arg(row.client.isEmpty() ? QStringLiteral("ChatGPT") : row.client, row.path, row.mode);
    if (!row.reason.isEmpty())
        body += QStringLiteral(" Reason: “%1”.").arg(row.reason);
    gather({kApprovalPrefix + row.id, QStringLiteral("chat2sbx: folder access requested"), body});
}

void DecisionNotices::networkRequested(const NetworkRequestRow &row)
{
    QString body = QStringLiteral("%1 asks network access to %2 for sandbox %3.")
                       .arg(row.client.isEmpty() ? QStringLiteral("ChatGPT") : row.client, row.hosts.join(QStringLiteral(", ")),
                            row.sandboxName.isEmpty() ? row.sandboxId : row.sandboxName);
    if (!row.reason.isEmpty())
        body += QStringLiteral(" Reason: “%1”.").arg(row.reason);
    gather({kNetworkPrefix + row.id, QStringLiteral("chat2sbx: network access requested"), body});
}

void DecisionNotices::withdrawAll()
{
    m_gathered.clear();
    m_gather.stop();
    m_burst.clear();
    for (const QString &key : m_notifications.shownKeys())
        if (key == kBurstKey || isRequestKey(key))
            m_notifications.withdraw(key);
}

void DecisionNotices::gather(const Waiting &w)
{
    m_gathered.append(w);
    if (!m_gather.isActive())
        m_gather.start();
}

void DecisionNotices::showGathered()
{
    const QSet<QString> pending = pendingKeys();
    QList<Waiting> fresh;
    for (const Waiting &w : std::as_const(m_gathered))
        if (pending.contains(w.key))
            fresh.append(w);
    m_gathered.clear();
    if (fresh.isEmpty())
        return;
    // One alone, and nothing else shown: its own buttons. Otherwise all of them in one notification.
    if (fresh.size() == 1 && m_burst.isEmpty()) {
        const Waiting &w = fresh.first();
        const bool approval = w.key.startsWith(kApprovalPrefix);
        QList<DesktopNotifications::Action> actions;
        if (w.key.startsWith(kApprovalPrefix + QStringLiteral("exp_")))
            actions = {{QStringLiteral("approve"), QStringLiteral("Save")}, {QStringLiteral("reject"), QStringLiteral("Don't save")}};
        else if (w.key.startsWith(kApprovalPrefix + QStringLiteral("pub_")))
            actions = {{QStringLiteral("approve"), QStringLiteral("Publish")}, {QStringLiteral("reject"), QStringLiteral("Don't publish")}};
        else if (approval)
            actions = {{QStringLiteral("approve"), QStringLiteral("Approve")}, {QStringLiteral("reject"), QStringLiteral("Reject")}};
        else
            actions = {{QStringLiteral("allow"), QStringLiteral("Allow for this sandbox")}, {QStringLiteral("deny"), QStringLiteral("Deny")}};
        actions.append({QStringLiteral("default"), QStringLiteral("Review")});
        m_notifications.show(w.key, w.title, w.body, actions);
        return;
    }
    // The ones shown with buttons join the burst: one notification for everything that waits.
    for (const QString &key : m_notifications.shownKeys()) {
        if (key == kBurstKey || !pending.contains(key))
            continue;
        m_notifications.withdraw(key);
        m_burst.append({key, QString(), QString()});
    }
    m_burst.append(fresh);
    showBurst();
}

void DecisionNotices::showBurst()
{
    if (m_burst.isEmpty())
        return m_notifications.withdraw(kBurstKey);
    int folders = 0, files = 0, ports = 0;
    for (const Waiting &w : std::as_const(m_burst)) {
        const bool file = w.key.startsWith(kApprovalPrefix + QStringLiteral("exp_"));
        const bool port = w.key.startsWith(kApprovalPrefix + QStringLiteral("pub_"));
        files += file ? 1 : 0;
        ports += port ? 1 : 0;
        folders += !file && !port && w.key.startsWith(kApprovalPrefix) ? 1 : 0;
    }
    const int hosts = static_cast<int>(m_burst.size()) - folders - files - ports;
    QStringList parts;
    if (folders > 0)
        parts << (folders == 1 ? QStringLiteral("1 folder request") : QStringLiteral("%1 folder requests").arg(folders));
    if (ports > 0)
        parts << (ports == 1 ? QStringLiteral("1 port to publish") : QStringLiteral("%1 ports to publish").arg(ports));
    if (files > 0)
        parts << (files == 1 ? QStringLiteral("1 file to save") : QStringLiteral("%1 files to save").arg(files));
    if (hosts > 0)
        parts << (hosts == 1 ? QStringLiteral("1 network request") : QStringLiteral("%1 network requests").arg(hosts));
    m_notifications.show(kBurstKey, QStringLiteral("chat2sbx: %1 requests wait for you").arg(m_burst.size()),
                         parts.join(QStringLiteral(" and ")) + QStringLiteral(". Open the popup to decide each one."),
                         {{QStringLiteral("default"), QStringLiteral("Review")}});
}

QSet<QString> DecisionNotices::pendingKeys() const
{
    QSet<QString> keys;
    for (const ApprovalRow &a : m_approvals.pending())
        keys.insert(kApprovalPrefix + a.id);
    if (m_network)
        for (const NetworkRequestRow &r : m_network->pending())
            keys.insert(kNetworkPrefix + r.id);
    return keys;
}

void DecisionNotices::withdrawDecided()
{
    const QSet<QString> pending = pendingKeys();
    for (const QString &key : m_notifications.shownKeys()) {
        if (isRequestKey(key) && !pending.contains(key))
            m_notifications.withdraw(key);
    }
    const qsizetype before = m_burst.size();
    m_burst.erase(std::remove_if(m_burst.begin(), m_burst.end(), [&pending](const Waiting &w) { return !pending.contains(w.key); }),
                  m_burst.end());
    if (m_burst.size() != before)
        showBurst();
}

void DecisionNotices::onAction(const QString &key, const QString &action)
{
    if (action == QLatin1String("default")) {
        if (!m_openPopup)
            return;
        const QString prefix = key.startsWith(kApprovalPrefix) ? kApprovalPrefix : key.startsWith(kNetworkPrefix) ? kNetworkPrefix : QString();
        return m_openPopup(prefix.isEmpty() ? QString() : key.mid(prefix.size()));
    }
    // Decided once: a second click (or a stale notification) finds the request gone.
    if (!pendingKeys().contains(key))
        return m_notifications.withdraw(key);
    QString error;
    if (key.startsWith(kApprovalPrefix)) {
        const QString id = key.mid(kApprovalPrefix.size());
        const bool ok = action == QLatin1String("approve") ? m_approvals.approve(id, error)
                        : action == QLatin1String("reject") ? m_approvals.reject(id, error)
                                                            : true;
        if (!ok)
            emit failed(error);
    } else if (key.startsWith(kNetworkPrefix) && m_network) {
        const QString id = key.mid(kNetworkPrefix.size());
        if (action == QLatin1String("allow")) {
            m_network->allow(id, false, [self = QPointer<DecisionNotices>(this)](bool ok, const QString &why) {
                if (!ok && self)
                    emit self->failed(why);
            });
        } else if (action == QLatin1String("deny") && !m_network->deny(id, error)) {
            emit failed(error);
        }
    }
    m_notifications.withdraw(key);
}

} // namespace chat2sbx::ui
