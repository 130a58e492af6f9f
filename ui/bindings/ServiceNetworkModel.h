#pragma once

#include "models/TrayModels.h"

#include <QHash>

namespace chat2sbx {
class NetworkAccess;
class SandboxService;
}

namespace chat2sbx::ui {

// NetworkModel over NetworkAccess (requests, rules, sbx's policy log) and SandboxService (which
// sandboxes to ask about). Decisions are recorded as made by "tray".
class ServiceNetworkModel : public NetworkModel {
public:
    ServiceNetworkModel(NetworkAccess &network, SandboxService &sandboxes, QObject *parent = nullptr);
    QList<NetworkRequestRow> pending() const override;
    QList<BlockedHostsRow> blocked() const override;
    QList<NetworkRuleRow> alwaysRules() const override;
    void refreshBlocked() override;
    void allow(const QString &id, bool always, ResultCallback done) override;
    bool deny(const QString &id, QString &error) override;
    void allowBlocked(const QString &sandboxId, const QString &host, ResultCallback done) override;
    void removeRule(qint64 id, ResultCallback done) override;

private:
    NetworkAccess &m_network;
    SandboxService &m_sandboxes;
    QHash<QString, QStringList> m_blocked;   // sandbox id -> hosts, newest first
};

} // namespace chat2sbx::ui
