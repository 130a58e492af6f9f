#include "popup/ApprovalsSection.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace chat2sbx::ui {

namespace {

// What one card says and what its two buttons are called.
struct ApprovalCardText {
    QString title;
    QString detail;
    QString why;       // may be empty
    QString approve, approveName;
    QString reject, rejectName;
};

ApprovalCardText folderText(const ApprovalRow &row)
{
    ApprovalCardText t;
    t.title = row.path;
    t.detail = (row.mode == QLatin1String("direct") ? QStringLiteral("direct (read-write on the host)")
                                                    : QStringLiteral("clone (git clone of committed work only)"))
               + QStringLiteral(" · requested ");
    if (!row.client.isEmpty() || !row.reason.isEmpty())
        t.why = QStringLiteral("asked by %1%2").arg(row.client.isEmpty() ? QStringLiteral("an MCP client") : row.client,
                                                    row.reason.isEmpty() ? QString() : QStringLiteral(": “%1”").arg(row.reason));
    t.approve = QStringLiteral("&Approve");
    t.approveName = QStringLiteral("Approve %1 access to %2").arg(row.mode, row.path);
    t.reject = QStringLiteral("&Reject");
    t.rejectName = QStringLiteral("Reject access to %1").arg(row.path);
    return t;
}

// A file a sandbox wants to save on this computer (exports wait when the settings say so).
ApprovalCardText exportText(const ApprovalRow &row)
{
    ApprovalCardText t;
    t.title = QStringLiteral("Save %1?").arg(row.path);
    t.detail = row.detail + QStringLiteral(" · requested ");
    t.why = row.reason;
    t.approve = QStringLiteral("&Save");
    t.approveName = QStringLiteral("Save %1 on this computer").arg(row.path);
    t.reject = QStringLiteral("&Don't save");
    t.rejectName = QStringLiteral("Do not save %1").arg(row.path);
    return t;
}

} // namespace

ApprovalsSection::ApprovalsSection(ApprovalsModel &model, QWidget *parent)
    : CardList({QStringLiteral("approvals"), QStringLiteral("Approvals"), QStringLiteral("Approvals (%1 pending)"),
                QStringLiteral("No pending approvals."), true}, parent), m_model(model)
{
    follow(m_model, &ApprovalsModel::changed, &ApprovalsModel::pending, &ApprovalsSection::addApprovalCard);
}

void ApprovalsSection::addApprovalCard(const ApprovalRow &row)
{
    const ApprovalCardText text = row.isExport() ? exportText(row) : folderText(row);
    QWidget *card = makeCard(this, QStringLiteral("approval:") + row.id);
    auto *grid = new QGridLayout(card);
    QLabel *title = makeLabel(text.title, card, true);
    title->setObjectName(QStringLiteral("path"));
    title->setTextFormat(Qt::PlainText);
    grid->addWidget(title, 0, 0);
    QLabel *detail = makeLabel(QString(), card);
    setRelativeTime(detail, text.detail, row.requestedAtMs);   // "requested 3 min ago", kept current
    detail->setObjectName(QStringLiteral("detail"));
    detail->setTextFormat(Qt::PlainText);
    grid->addWidget(detail, 1, 0);
    if (!text.why.isEmpty()) {
        QLabel *why = makeLabel(text.why, card);
        why->setObjectName(QStringLiteral("reason"));
        why->setTextFormat(Qt::PlainText);
        grid->addWidget(why, 2, 0);
    }

    auto *buttons = new QHBoxLayout;
    auto *approve = new QPushButton(text.approve, card);
    approve->setObjectName(QStringLiteral("approve:") + row.id);
    approve->setAccessibleName(text.approveName);
    approve->setToolTip(text.approveName);
    auto *reject = new QPushButton(text.reject, card);
    reject->setObjectName(QStringLiteral("reject:") + row.id);
    reject->setAccessibleName(text.rejectName);
    reject->setToolTip(text.rejectName);
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
