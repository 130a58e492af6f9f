#include "bindings/ServiceNetworkModel.h"

#include "bindings/ServiceSandboxNames.h"
#include "bindings/ClientNames.h"
#include "core/LogText.h"

#include "sandbox/network/NetworkAccess.h"
#include "sandbox/lifecycle/SandboxService.h"

#include <QPointer>

namespace chat2sbx::ui {

namespace {
NetworkRequestRow rowOf(const NetworkRequest &r, ServiceSandboxNames &names)
{
    QStringList hosts;
    for (const QString &h : r.hosts)
        hosts << logSafe(h, 260);
    // An agent's words, shown with their control, bidi and format characters escaped (core/LogText.h).
    return NetworkRequestRow{r.id, r.sandboxId, hosts, logSafe(r.reason, 400), clientShownName(r.clientName), r.requestedAt,
                             names(r.sandboxId)};
}
} // namespace

ServiceNetworkModel::ServiceNetworkModel(NetworkAccess &network, SandboxService &sandboxes, QObject *parent)
    : NetworkModel(parent), m_network(network), m_sandboxes(sandboxes)
{
    connect(&network, &NetworkAccess::changed, this, &NetworkModel::changed);
    connect(&network, &NetworkAccess::requested, this, [this](const QString &id) {
        ServiceSandboxNames names(m_sandboxes);
        if (const std::optional<NetworkRequest> r = m_network.find(id))
            emit requested(rowOf(*r, names));
    });
}

QList<NetworkRequestRow> ServiceNetworkModel::pending() const
{
    QList<NetworkRequestRow> rows;
    ServiceSandboxNames names(m_sandboxes);
    for (const NetworkRequest &r : m_network.pending())
        rows.append(rowOf(r, names));
    return rows;
}

QList<BlockedHostsRow> ServiceNetworkModel::blocked() const
{
    QList<BlockedHostsRow> rows;
    ServiceSandboxNames names(m_sandboxes);
    for (auto it = m_blocked.cbegin(); it != m_blocked.cend(); ++it) {
        if (!it.value().isEmpty())
            rows.append({it.key(), it.value(), names(it.key())});
    }
    std::sort(rows.begin(), rows.end(), [](const BlockedHostsRow &a, const BlockedHostsRow &b) { return a.sandboxId < b.sandboxId; });
    return rows;
}

QList<NetworkRuleRow> ServiceNetworkModel::alwaysRules() const
{
    QList<NetworkRuleRow> rows;
    for (const NetworkRule &r : m_network.rules()) {
        if (r.sandboxId.isEmpty())
            rows.append({r.id, r.host});
    }
    return rows;
}

void ServiceNetworkModel::refreshBlocked()
{
    QHash<QString, QStringList> kept;
    QPointer<ServiceNetworkModel> self(this);
    for (const SandboxView &v : m_sandboxes.list()) {
        if (!v.record.isActive())
            continue;
        kept.insert(v.record.id, m_blocked.value(v.record.id));
        // Only a running sandbox's proxy blocks anything new; an asleep one keeps what was read.
        if (v.record.state != SandboxState::Running)
            continue;
        const QString id = v.record.id;
        m_network.blockedHosts(id, [self, id](const QStringList &hosts, const QString &error) {
            if (!self || !error.isEmpty())
                return;
            // Hosts a rule chat2sbx added now covers are no longer worth a button.
            QStringList open;
            const QList<NetworkRule> rules = self->m_network.rules();
            for (const QString &h : hosts) {
                const bool covered = std::any_of(rules.cbegin(), rules.cend(), [&](const NetworkRule &r) {
                    return r.host == h && (r.sandboxId.isEmpty() || r.sandboxId == id);
                });
                if (!covered)
                    open << h;
            }
            if (self->m_blocked.value(id) == open)
                return;
            self->m_blocked.insert(id, open);
            emit self->changed();
        });
    }
    m_blocked = kept;
}

void ServiceNetworkModel::allow(const QString &id, bool always, ResultCallback done)
{
    m_network.allow(id, always, QStringLiteral("tray"), std::move(done));
}

bool ServiceNetworkModel::deny(const QString &id, QString &error)
{
    return m_network.deny(id, QStringLiteral("tray"), error);
}

void ServiceNetworkModel::allowBlocked(const QString &sandboxId, const QString &host, ResultCallback done)
{
    QPointer<ServiceNetworkModel> self(this);
    m_network.allowHosts(sandboxId, {host}, false, QStringLiteral("tray"), [self, done](bool ok, const QString &error) {
        if (self)
            self->refreshBlocked();
        done(ok, error);
    });
}

void ServiceNetworkModel::removeRule(qint64 id, ResultCallback done)
{
    m_network.removeRule(id, std::move(done));
}

} // namespace chat2sbx::ui
