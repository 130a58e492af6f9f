#include "popup/NetworkSection.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSet>

namespace chat2sbx::ui {

NetworkSection::NetworkSection(NetworkModel &model, QWidget *parent)
    : CardList({QStringLiteral("network"), QStringLiteral("Network"), QStringLiteral("Network (%1 pending)"),
                QStringLiteral("No network requests or blocked hosts."), true}, parent), m_model(model)
{
    follow(m_model, &NetworkModel::changed, [this] { return addCards(); });
}

ResultCallback NetworkSection::reporter()
{
    QPointer<NetworkSection> self(this);
    return [self](bool ok, const QString &error) {
        if (self)
            self->showMessage(ok ? QString() : error);
    };
}

void NetworkSection::addRequestCard(const NetworkRequestRow &row)
{
    QWidget *card = makeCard(this, QStringLiteral("networkRequest:") + row.id);
    auto *grid = new QGridLayout(card);
    QLabel *hosts = makeLabel(row.hosts.join(QStringLiteral(", ")), card, true);
    hosts->setObjectName(QStringLiteral("hosts"));
    hosts->setTextFormat(Qt::PlainText);
    grid->addWidget(hosts, 0, 0);
    QLabel *why = makeLabel(QString(), card);
    setRelativeTime(why,
                    QStringLiteral("%1 asks for sandbox %2%3 · ")
                        .arg(row.client.isEmpty() ? QStringLiteral("An MCP client") : row.client,
                             row.sandboxName.isEmpty() ? row.sandboxId : row.sandboxName,
                             row.reason.isEmpty() ? QString() : QStringLiteral(": “%1”").arg(row.reason)),
                    row.requestedAtMs);
    why->setObjectName(QStringLiteral("reason"));
    why->setToolTip(row.sandboxId);
    why->setTextFormat(Qt::PlainText);
    grid->addWidget(why, 1, 0);
    auto *buttons = new QHBoxLayout;
    auto *sandbox = new QPushButton(QStringLiteral("Allow for this sandbox"), card);
    sandbox->setObjectName(QStringLiteral("allowSandbox:") + row.id);
    auto *always = new QPushButton(QStringLiteral("Allow always"), card);
    always->setObjectName(QStringLiteral("allowAlways:") + row.id);
    auto *deny = new QPushButton(QStringLiteral("Deny"), card);
    deny->setObjectName(QStringLiteral("deny:") + row.id);
    for (QPushButton *b : {sandbox, always, deny}) {
        b->setAccessibleName(b->text() + QStringLiteral(": ") + row.hosts.join(QStringLiteral(", ")));
        b->setToolTip(b->accessibleName());
        buttons->addWidget(b);
    }
    buttons->insertStretch(0, 1);
    grid->addLayout(buttons, 2, 0);
    const QString id = row.id;
    const ResultCallback done = reporter();
    connect(sandbox, &QPushButton::clicked, this, [this, id, done] { m_model.allow(id, false, done); });
    connect(always, &QPushButton::clicked, this, [this, id, done] { m_model.allow(id, true, done); });
    connect(deny, &QPushButton::clicked, this, [this, id] {
        QString error;
        const bool ok = m_model.deny(id, error);
        showMessage(ok ? QString() : error);
    });
    addCard(card, {sandbox, always, deny});
}

void NetworkSection::addBlockedCard(const BlockedHostsRow &row)
{
    QWidget *card = makeCard(this, QStringLiteral("blocked:") + row.sandboxId);
    auto *grid = new QGridLayout(card);
    const QString shown = row.sandboxName.isEmpty() ? row.sandboxId : row.sandboxName;
    QLabel *title = makeLabel(QStringLiteral("Blocked in %1").arg(shown), card, true);
    title->setToolTip(row.sandboxId);
    grid->addWidget(title, 0, 0, 1, 2);
    const ResultCallback done = reporter();
    QList<QWidget *> focus;
    int line = 1;
    for (const QString &host : row.hosts) {
        QLabel *label = makeLabel(host, card);
        label->setTextFormat(Qt::PlainText);
        grid->addWidget(label, line, 0);
        auto *allow = new QPushButton(QStringLiteral("Allow"), card);
        allow->setObjectName(QStringLiteral("allowBlocked:") + row.sandboxId + QLatin1Char(':') + host);
        allow->setAccessibleName(QStringLiteral("Allow %1 for sandbox %2").arg(host, shown));
        allow->setToolTip(allow->accessibleName());
        grid->addWidget(allow, line++, 1);
        const QString sandboxId = row.sandboxId;
        connect(allow, &QPushButton::clicked, this, [this, sandboxId, host, done] { m_model.allowBlocked(sandboxId, host, done); });
        focus << allow;
    }
    addCard(card, focus);
}

void NetworkSection::addRulesCard(const QList<NetworkRuleRow> &rules)
{
    QWidget *card = makeCard(this, QStringLiteral("alwaysRules"));
    auto *grid = new QGridLayout(card);
    grid->addWidget(makeLabel(QStringLiteral("Allowed for every sandbox"), card, true), 0, 0, 1, 2);
    const ResultCallback done = reporter();
    QList<QWidget *> focus;
    int line = 1;
    for (const NetworkRuleRow &rule : rules) {
        QLabel *label = makeLabel(rule.host, card);
        label->setTextFormat(Qt::PlainText);
        grid->addWidget(label, line, 0);
        auto *remove = new QPushButton(QStringLiteral("Remove"), card);
        remove->setObjectName(QStringLiteral("removeRule:%1").arg(rule.id));
        remove->setAccessibleName(QStringLiteral("Stop allowing %1 for every sandbox").arg(rule.host));
        remove->setToolTip(remove->accessibleName());
        grid->addWidget(remove, line++, 1);
        const qint64 id = rule.id;
        connect(remove, &QPushButton::clicked, this, [this, id, done] { m_model.removeRule(id, done); });
        focus << remove;
    }
    addCard(card, focus);
}

int NetworkSection::addCards()
{
    const QList<NetworkRequestRow> requests = m_model.pending();
    for (const NetworkRequestRow &row : requests)
        addRequestCard(row);
    // One card per host: a host the agent asked for already is decided on its request's card, not
    // offered again as blocked (sbx logs the same attempt).
    QSet<QString> asked;
    auto key = [](const QString &sandboxId, QString host) {
        if (host.endsWith(QLatin1String(":443")))
            host.chop(4);
        return sandboxId + QLatin1Char(' ') + host.toLower();
    };
    for (const NetworkRequestRow &row : requests)
        for (const QString &host : row.hosts)
            asked.insert(key(row.sandboxId, host));
    for (BlockedHostsRow row : m_model.blocked()) {
        row.hosts.erase(std::remove_if(row.hosts.begin(), row.hosts.end(),
                                       [&](const QString &host) { return asked.contains(key(row.sandboxId, host)); }),
                        row.hosts.end());
        if (!row.hosts.isEmpty())
            addBlockedCard(row);
    }
    const QList<NetworkRuleRow> rules = m_model.alwaysRules();
    if (!rules.isEmpty())
        addRulesCard(rules);
    return static_cast<int>(requests.size());
}

} // namespace chat2sbx::ui
