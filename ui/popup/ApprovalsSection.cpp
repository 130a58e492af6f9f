#include "popup/ApprovalsSection.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>

#include <algorithm>

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

// A cloud sandbox's port the agent wants on the internet (a public URL anyone can open).
ApprovalCardText publicPortText(const ApprovalRow &row)
{
    ApprovalCardText t;
    t.title = QStringLiteral("Publish %1 on the internet?").arg(row.path);
    t.detail = row.detail + QStringLiteral(" · requested ");
    t.why = row.reason + (row.client.isEmpty() ? QString() : QStringLiteral(" Asked by %1.").arg(row.client));
    t.approve = QStringLiteral("&Publish");
    t.approveName = QStringLiteral("Publish %1 as a public URL").arg(row.path);
    t.reject = QStringLiteral("&Don't publish");
    t.rejectName = QStringLiteral("Do not publish %1").arg(row.path);
    return t;
}

int g_undoWindowMs = ApprovalsSection::kUndoWindowMs;

} // namespace

void ApprovalsSection::setUndoWindowMs(int ms)
{
    g_undoWindowMs = ms;
}

int ApprovalsSection::undoWindowMs()
{
    return g_undoWindowMs;
}

ApprovalsSection::~ApprovalsSection()
{
    const QStringList waiting = m_undoable.keys();
    for (const QString &id : waiting) {
        const Undoable decision = m_undoable.take(id);
        QString error;
        make(id, decision.approve, error);
    }
}

ApprovalsSection::ApprovalsSection(ApprovalsModel &model, QWidget *parent)
    : CardList({QStringLiteral("approvals"), QStringLiteral("Approvals"), QStringLiteral("Approvals (%1 pending)"),
                QStringLiteral("No pending approvals."), true}, parent), m_model(model)
{
    follow(m_model, &ApprovalsModel::changed, &ApprovalsModel::pending, &ApprovalsSection::addApprovalCard);
}

void ApprovalsSection::addApprovalCard(const ApprovalRow &row)
{
    const auto undoable = m_undoable.constFind(row.id);
    if (undoable != m_undoable.constEnd())
        return addDecidedCard(row, *undoable);
    const ApprovalCardText text = row.isExport() ? exportText(row) : row.isPublicPort() ? publicPortText(row) : folderText(row);
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
    connect(approve, &QPushButton::clicked, this, [this, id, card] { decide(id, true, card->height()); });
    connect(reject, &QPushButton::clicked, this, [this, id, card] { decide(id, false, card->height()); });
    addCard(card, {approve, reject});
    if (m_focusAfterRebuild == approve->objectName()) {
        m_focusAfterRebuild.clear();
        approve->setFocus();
    }
}

void ApprovalsSection::addDecidedCard(const ApprovalRow &row, const Undoable &decision)
{
    QWidget *card = makeCard(this, QStringLiteral("approval:") + row.id);
    card->setMinimumHeight(decision.height);
    auto *line = new QHBoxLayout(card);
    const QString what = row.isExport()       ? (decision.approve ? QStringLiteral("Saving %1") : QStringLiteral("Not saving %1"))
                         : row.isPublicPort() ? (decision.approve ? QStringLiteral("Publishing %1") : QStringLiteral("Not publishing %1"))
                                              : (decision.approve ? QStringLiteral("Approved: %1") : QStringLiteral("Rejected: %1"));
    QLabel *label = makeLabel(what.arg(row.path), card);
    label->setObjectName(QStringLiteral("decided"));
    label->setTextFormat(Qt::PlainText);
    // Undo where the card's text was, on the left: nothing to click where Approve and Reject were.
    auto *undoButton = new QPushButton(QStringLiteral("&Undo"), card);
    undoButton->setObjectName(QStringLiteral("undo:") + row.id);
    undoButton->setAccessibleName(QStringLiteral("Undo: %1").arg(what.arg(row.path)));
    undoButton->setToolTip(QStringLiteral("Take it back; it is made in a few seconds"));
    line->addWidget(undoButton);
    line->addWidget(label, 1);
    const QString id = row.id;
    connect(undoButton, &QPushButton::clicked, this, [this, id] { undo(id); });
    addCard(card, {undoButton});
    if (m_focusAfterRebuild == undoButton->objectName()) {
        m_focusAfterRebuild.clear();
        undoButton->setFocus();
    }
}

void ApprovalsSection::decide(const QString &id, bool approve, int cardHeight)
{
    if (g_undoWindowMs <= 0 || m_undoable.contains(id)) {
        m_undoable.insert(id, {approve, cardHeight, nullptr});
        return commit(id);
    }
    auto *timer = new QTimer(this);
    timer->setSingleShot(true);
    timer->setInterval(g_undoWindowMs);
    connect(timer, &QTimer::timeout, this, [this, id] { commit(id); });
    m_undoable.insert(id, {approve, cardHeight, timer});
    timer->start();
    m_focusAfterRebuild = QStringLiteral("undo:") + id;
    showMessage(QString());
    rebuild();
}

void ApprovalsSection::decideNow()
{
    const QStringList waiting = m_undoable.keys();
    for (const QString &id : waiting)
        commit(id);
}

void ApprovalsSection::undo(const QString &id)
{
    const Undoable decision = m_undoable.take(id);
    delete decision.timer;
    m_focusAfterRebuild = QStringLiteral("approve:") + id;
    rebuild();
}

bool ApprovalsSection::make(const QString &id, bool approve, QString &error)
{
    // Decided meanwhile elsewhere (a notification, the tray menu, the CLI): nothing left to do.
    const QList<ApprovalRow> pending = m_model.pending();
    if (std::none_of(pending.cbegin(), pending.cend(), [&id](const ApprovalRow &r) { return r.id == id; }))
        return true;
    return approve ? m_model.approve(id, error) : m_model.reject(id, error);
}

void ApprovalsSection::commit(const QString &id)
{
    const Undoable decision = m_undoable.take(id);
    if (decision.timer)
        decision.timer->deleteLater();
    QString error;
    const bool ok = make(id, decision.approve, error);
    showMessage(ok ? QString() : error);
    // The placeholder goes (or, on an error, the card comes back with its buttons); a decision made
    // at once left the card as it was, and the model's change rebuilds it.
    if (decision.timer)
        rebuild();
}

} // namespace chat2sbx::ui
