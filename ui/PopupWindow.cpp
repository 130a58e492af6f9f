#include "PopupWindow.h"

#include "ActivitySection.h"
#include "ApprovalsSection.h"
#include "SandboxesSection.h"
#include "StatusSection.h"
#include "WorkspacesSection.h"
#include "NetworkSection.h"

#include <QGuiApplication>
#include <QKeyEvent>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

namespace chat2sbx::ui {

PopupWindow::PopupWindow(ApprovalsModel &approvals, SandboxesModel &sandboxes, StatusModel &status, QWidget *parent)
    : QWidget(parent, Qt::Tool | Qt::WindowStaysOnTopHint)
{
    setObjectName(QStringLiteral("popup"));
    setWindowTitle(QStringLiteral("chat2sbx"));
    setAccessibleName(QStringLiteral("chat2sbx approvals, sandboxes and status"));

    m_content = new QWidget;
    auto *column = new QVBoxLayout(m_content);
    m_approvals = new ApprovalsSection(approvals, m_content);
    m_sandboxes = new SandboxesSection(sandboxes, m_content);
    m_status = new StatusSection(status, this);
    column->addWidget(m_approvals);
    column->addWidget(m_sandboxes);
    column->addStretch(1);

    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(m_content);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setFocusPolicy(Qt::NoFocus);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_scroll, 1);
    auto *pinned = new QVBoxLayout;
    pinned->setContentsMargins(column->contentsMargins().left(), 0, column->contentsMargins().right(),
                               column->contentsMargins().bottom());
    pinned->addWidget(m_status);
    outer->addLayout(pinned);

    connect(m_status, &StatusSection::copyUrlRequested, this, &PopupWindow::copyUrlRequested);
    connect(m_approvals, &CardList::rebuilt, this, &PopupWindow::relayout);
    connect(m_sandboxes, &CardList::rebuilt, this, &PopupWindow::relayout);
    connect(m_status, &StatusSection::refreshed, this, &PopupWindow::relayout);
    updateTabOrder();
    fitToContent();
}

void PopupWindow::setActivityModel(ActivityModel &activity)
{
    if (m_activity)
        return;
    m_activity = new ActivitySection(activity, m_content);
    // A finished tool call may have started or ended commands: the rows' counts follow.
    connect(&activity, &ActivityModel::callsChanged, m_sandboxes, &SandboxesSection::rebuild);
    static_cast<QVBoxLayout *>(m_content->layout())->insertWidget(1, m_activity);
    connect(m_activity, &ActivitySection::rebuilt, this, &PopupWindow::relayout);
    updateTabOrder();
    fitToContent();
}

WorkspacesSection &PopupWindow::addWorkspaces(WorkspacesModel &model)
{
    if (m_workspaces)
        return *m_workspaces;
    m_workspaces = new WorkspacesSection(model, m_content);
    auto *column = static_cast<QVBoxLayout *>(m_content->layout());
    column->insertWidget(column->indexOf(m_sandboxes) + 1, m_workspaces);
    connect(m_workspaces, &CardList::rebuilt, this, &PopupWindow::relayout);
    updateTabOrder();
    return *m_workspaces;
}

NetworkSection &PopupWindow::addNetwork(NetworkModel &model)
{
    if (m_network)
        return *m_network;
    m_network = new NetworkSection(model, m_content);
    auto *column = static_cast<QVBoxLayout *>(m_content->layout());
    column->insertWidget(column->indexOf(m_approvals) + 1, m_network);
    connect(m_network, &CardList::rebuilt, this, &PopupWindow::relayout);
    updateTabOrder();
    return *m_network;
}

void PopupWindow::relayout()
{
    updateTabOrder();
    // The old cards go with deleteLater; measure once they are gone.
    QTimer::singleShot(0, this, [this] {
        if (isVisible())
            fitToContent();
    });
}

void PopupWindow::updateTabOrder()
{
    QList<QWidget *> chain = m_approvals->focusChain();
    if (m_network)
        chain += m_network->focusChain();
    if (m_activity)
        chain += m_activity->focusChain();
    chain += m_sandboxes->focusChain();
    if (m_workspaces)
        chain += m_workspaces->focusChain();
    chain += m_status->focusChain();
    for (int i = 1; i < chain.size(); ++i)
        QWidget::setTabOrder(chain.at(i - 1), chain.at(i));
}

void PopupWindow::fitToContent()
{
    m_content->adjustSize();
    const QFontMetrics fm(font());
    const int minWidth = fm.averageCharWidth() * 88;
    QSize want = m_content->sizeHint();
    want.setWidth(qMax(want.width(), minWidth) + m_scroll->verticalScrollBar()->sizeHint().width());
    // The pinned Status part below the scroll area.
    want.setHeight(want.height() + m_status->sizeHint().height() + layout()->spacing());
    QScreen *s = screen() ? screen() : QGuiApplication::primaryScreen();
    if (s) {
        const QRect avail = s->availableGeometry();
        want = want.boundedTo(QSize(avail.width() * 9 / 10, avail.height() * 9 / 10));
    }
    resize(want);
}

void PopupWindow::showNear(const QRect &anchor)
{
    // Idle deadlines move without a change signal; a fresh read when the user looks is enough.
    m_sandboxes->rebuild();
    fitToContent();
    QScreen *s = anchor.isValid() ? QGuiApplication::screenAt(anchor.center()) : nullptr;
    if (!s)
        s = QGuiApplication::primaryScreen();
    const QRect avail = s ? s->availableGeometry() : QRect(QPoint(0, 0), size());
    QPoint pos;
    if (anchor.isValid()) {
        // Below the icon when it sits in a top panel, above it otherwise; right edges aligned.
        pos.setX(anchor.right() - width());
        pos.setY(anchor.center().y() < avail.center().y() ? anchor.bottom() + 1 : anchor.top() - height());
    } else {
        pos = avail.bottomRight() - QPoint(width(), height());
    }
    pos.setX(qBound(avail.left(), pos.x(), qMax(avail.left(), avail.right() - width())));
    pos.setY(qBound(avail.top(), pos.y(), qMax(avail.top(), avail.bottom() - height())));
    move(pos);
    show();
    raise();
    activateWindow();
}

void PopupWindow::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape) {
        hide();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace chat2sbx::ui
