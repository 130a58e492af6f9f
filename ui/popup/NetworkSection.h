#pragma once

#include "widgets/CardList.h"
#include "models/TrayModels.h"

namespace chat2sbx::ui {

// "Network": a card per agent request (Allow for this sandbox / Allow always / Deny), the hosts
// each sandbox's policy blocked lately (Allow), and the "always" rules chat2sbx added (Remove).
class NetworkSection : public CardList {
    Q_OBJECT
public:
    explicit NetworkSection(NetworkModel &model, QWidget *parent = nullptr);

private:
    // Requests first, then blocked hosts, then the rules; the title counts the requests.
    int addCards();
    void addRequestCard(const NetworkRequestRow &row);
    void addBlockedCard(const BlockedHostsRow &row);
    void addRulesCard(const QList<NetworkRuleRow> &rules);
    // What a model call reports back: its error on the message line; later calls only while this lives.
    ResultCallback reporter();

    NetworkModel &m_model;
};

} // namespace chat2sbx::ui
