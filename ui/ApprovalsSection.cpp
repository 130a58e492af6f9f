#include "ApprovalsSection.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace chat2sbx::ui {

ApprovalsSection::ApprovalsSection(ApprovalsModel &model, QWidget *parent)
    : CardList({QStringLiteral("approvals"), QStringLiteral("Approvals"), QStringLiteral("Approvals (%1 pending)"),
                QStringLiteral("No pending approvals."), true}, parent), m_model(model)
{
    follow(m_model, &ApprovalsModel::changed, &ApprovalsModel::pending, &ApprovalsSection::addApprovalCard);
}

void ApprovalsSection::addApprovalCard(const ApprovalRow &row)
{
    QWidget *card = makeCard(this, QStringLiteral("approval:") + row.id);
    auto *grid = new QGridLayout(card);
    QLabel *path = makeLabel(row.path, card, true);
    path->setObjectName(QStringLiteral("path"));
    grid->addWidget(path, 0, 0);
    QLabel *detail = makeLabel(QStringLiteral("%1 · requested %2")
                                   .arg(row.mode == QLatin1String("direct") ? QStringLiteral("direct (read-write on the host)")
                                                                            : QStringLiteral("clone (git clone of committed work only)"),
                                        formatTime(row.requestedAtMs)),
                               card);
    detail->setObjectName(QStringLiteral("detail"));
    grid->addWidget(detail, 1, 0);
    if (!row.client.isEmpty() || !row.reason.isEmpty()) {
        QLabel *why = makeLabel(QStringLiteral("asked by %1%2")
                                    .arg(row.client.isEmpty() ? QStringLiteral("an MCP client") : row.client,
                                         row.reason.isEmpty() ? QString() : QStringLiteral(": “%1”").arg(row.reason)),
                                card);
        why->setObjectName(QStringLiteral("reason"));
        why->setTextFormat(Qt::PlainText);
        grid->addWidget(why, 2, 0);
    }

    auto *buttons = new QHBoxLayout;
    auto *approve = new QPushButton(QStringLiteral("&Approve"), card);
    approve->setObjectName(QStringLiteral("approve:") + row.id);
    approve->setAccessibleName(QStringLiteral("Approve %1 access to %2").arg(row.mode, row.path));
    approve->setToolTip(approve->accessibleName());
    auto *reject = new QPushButton(QStringLiteral("&Reject"), card);
    reject->setObjectName(QStringLiteral("reject:") + row.id);
    reject->setAccessibleName(QStringLiteral("Reject access to %1").arg(row.path));
    reject->setToolTip(reject->accessibleName());
    buttons->addWidget(approve);
    buttons->addWidget(reject);
    buttons->insertStretch(0, 1);
    grid->addLayout(buttons, 3, 0);

    const QString id = row.id;
    connect(approve, &QPushButton::clicked, this, [this, id] { decide(id, true); });
    connect(reject, &QPushButton::clicked, this, [this, id] { decide(id, false); });
    addCard(card, {approve, reject});
}

void ApprovalsSection::decide(const QString &id, bool approve)
{
    QString error;
    const bool ok = approve ? m_model.approve(id, error) : m_model.reject(id, error);
    showMessage(ok ? QString() : error);
}

} // namespace chat2sbx::ui
