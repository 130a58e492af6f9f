#include "ApprovalsSection.h"

#include "PopupStyle.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

ApprovalsSection::ApprovalsSection(ApprovalsModel &model, QWidget *parent) : QGroupBox(parent), m_model(model)
{
    setObjectName(QStringLiteral("approvals"));
    auto *layout = new QVBoxLayout(this);
    m_message = makeLabel(QString(), this);
    m_message->setObjectName(QStringLiteral("approvalsMessage"));
    m_message->setStyleSheet(QStringLiteral("color: #b42318;"));
    m_message->hide();
    layout->addWidget(m_message);
    m_empty = makeLabel(QStringLiteral("No pending approvals."), this);
    layout->addWidget(m_empty);
    m_rows = new QVBoxLayout;
    layout->addLayout(m_rows);
    connect(&m_model, &ApprovalsModel::changed, this, &ApprovalsSection::rebuild);
    rebuild();
}

QList<QWidget *> ApprovalsSection::focusChain() const
{
    return m_focus;
}

void ApprovalsSection::rebuild()
{
    while (QLayoutItem *item = m_rows->takeAt(0)) {
        if (QWidget *w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    m_focus.clear();
    const QList<ApprovalRow> rows = m_model.pending();
    m_rowCount = static_cast<int>(rows.size());
    setTitle(rows.isEmpty() ? QStringLiteral("Approvals") : QStringLiteral("Approvals (%1 pending)").arg(rows.size()));
    m_empty->setVisible(rows.isEmpty());

    for (const ApprovalRow &row : rows) {
        QWidget *card = makeCard(this);
        card->setObjectName(QStringLiteral("approval:") + row.id);
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
        m_rows->addWidget(card);
        m_focus << approve << reject;
    }
    emit rebuilt();
}

void ApprovalsSection::decide(const QString &id, bool approve)
{
    QString error;
    const bool ok = approve ? m_model.approve(id, error) : m_model.reject(id, error);
    showError(m_message, ok ? QString() : error);
}

} // namespace chat2sbx::ui
