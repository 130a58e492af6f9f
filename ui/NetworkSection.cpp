#include "NetworkSection.h"

#include "PopupStyle.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

NetworkSection::NetworkSection(NetworkModel &model, QWidget *parent) : QGroupBox(parent), m_model(model)
{
    setObjectName(QStringLiteral("network"));
    auto *layout = new QVBoxLayout(this);
    m_message = makeLabel(QString(), this);
    m_message->setObjectName(QStringLiteral("networkMessage"));
    m_message->setStyleSheet(QStringLiteral("color: #b42318;"));
    m_message->hide();
    layout->addWidget(m_message);
    m_empty = makeLabel(QStringLiteral("No network requests or blocked hosts."), this);
    layout->addWidget(m_empty);
    m_rows = new QVBoxLayout;
    layout->addLayout(m_rows);
    connect(&m_model, &NetworkModel::changed, this, &NetworkSection::rebuild);
    rebuild();
}

void NetworkSection::report(bool ok, const QString &error)
{
    showError(m_message, ok ? QString() : error);
}

void NetworkSection::addRequestCard(const NetworkRequestRow &row)
{
    QWidget *card = makeCard(this);
    card->setObjectName(QStringLiteral("networkRequest:") + row.id);
    auto *grid = new QGridLayout(card);
    QLabel *hosts = makeLabel(row.hosts.join(QStringLiteral(", ")), card, true);
    hosts->setObjectName(QStringLiteral("hosts"));
    hosts->setTextFormat(Qt::PlainText);
    grid->addWidget(hosts, 0, 0);
    QLabel *why = makeLabel(QStringLiteral("%1 asks for sandbox %2%3 · %4")
                                .arg(row.client.isEmpty() ? QStringLiteral("An MCP client") : row.client, row.sandboxId,
                                     row.reason.isEmpty() ? QString() : QStringLiteral(": “%1”").arg(row.reason),
                                     formatTime(row.requestedAtMs)),
                            card);
    why->setObjectName(QStringLiteral("reason"));
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
        m_focus << b;
    }
    buttons->insertStretch(0, 1);
    grid->addLayout(buttons, 2, 0);
    const QString id = row.id;
    QPointer<NetworkSection> self(this);
    auto done = [self](bool ok, const QString &error) {
        if (self)
            self->report(ok, error);
    };
    connect(sandbox, &QPushButton::clicked, this, [this, id, done] { m_model.allow(id, false, done); });
    connect(always, &QPushButton::clicked, this, [this, id, done] { m_model.allow(id, true, done); });
    connect(deny, &QPushButton::clicked, this, [this, id] {
        QString error;
        const bool ok = m_model.deny(id, error);
        report(ok, error);
    });
    m_rows->addWidget(card);
}

void NetworkSection::rebuild()
{
    while (QLayoutItem *item = m_rows->takeAt(0)) {
        if (QWidget *w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    m_focus.clear();
    const QList<NetworkRequestRow> requests = m_model.pending();
    const QList<BlockedHostsRow> blocked = m_model.blocked();
    const QList<NetworkRuleRow> rules = m_model.alwaysRules();
    setTitle(requests.isEmpty() ? QStringLiteral("Network") : QStringLiteral("Network (%1 pending)").arg(requests.size()));
    m_empty->setVisible(requests.isEmpty() && blocked.isEmpty() && rules.isEmpty());
    for (const NetworkRequestRow &row : requests)
        addRequestCard(row);

    QPointer<NetworkSection> self(this);
    auto done = [self](bool ok, const QString &error) {
        if (self)
            self->report(ok, error);
    };
    for (const BlockedHostsRow &row : blocked) {
        QWidget *card = makeCard(this);
        card->setObjectName(QStringLiteral("blocked:") + row.sandboxId);
        auto *grid = new QGridLayout(card);
        grid->addWidget(makeLabel(QStringLiteral("Blocked in %1").arg(row.sandboxId), card, true), 0, 0, 1, 2);
        int line = 1;
        for (const QString &host : row.hosts) {
            QLabel *label = makeLabel(host, card);
            label->setTextFormat(Qt::PlainText);
            grid->addWidget(label, line, 0);
            auto *allow = new QPushButton(QStringLiteral("Allow"), card);
            allow->setObjectName(QStringLiteral("allowBlocked:") + row.sandboxId + QLatin1Char(':') + host);
            allow->setAccessibleName(QStringLiteral("Allow %1 for sandbox %2").arg(host, row.sandboxId));
            allow->setToolTip(allow->accessibleName());
            grid->addWidget(allow, line++, 1);
            const QString sandboxId = row.sandboxId;
            connect(allow, &QPushButton::clicked, this, [this, sandboxId, host, done] { m_model.allowBlocked(sandboxId, host, done); });
            m_focus << allow;
        }
        m_rows->addWidget(card);
    }
    if (!rules.isEmpty()) {
        QWidget *card = makeCard(this);
        card->setObjectName(QStringLiteral("alwaysRules"));
        auto *grid = new QGridLayout(card);
        grid->addWidget(makeLabel(QStringLiteral("Allowed for every sandbox"), card, true), 0, 0, 1, 2);
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
            m_focus << remove;
        }
        m_rows->addWidget(card);
    }
    emit rebuilt();
}

} // namespace chat2sbx::ui
