#include "popup/PopupWindow.h"

#include "popup/ActivitySection.h"
#include "popup/ApprovalsSection.h"
#include "firstrun/FirstRunSection.h"
#include "popup/SandboxesSection.h"
#include "popup/StatusSection.h"
#include "popup/WorkspacesSection.h"
#include "popup/NetworkSection.h"
#include "popup/PopupHeader.h"
#include "widgets/PopupStyle.h"

#include <QAbstractButton>
#include <QApplication>
#include <QPainter>

#include <QGuiApplication>
#include <QHideEvent>
#include <QKeyEvent>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTimer>
#include <QVBoxLayout>

#ifdef __GLIBC__
#include <malloc.h>
#include <utility>
#endif

namespace chat2sbx::ui {

PopupWindow::PopupWindow(ApprovalsModel &approvals, SandboxesModel &sandboxes, StatusModel &status, QWidget *parent)
    : QWidget(parent, Qt::Tool | Qt::FramelessWindowHint | Qt::WindowStaysOnTopHint), m_approvalsModel(approvals),
      m_statusModel(status)
{
    setObjectName(QStringLiteral("popup"));
    setWindowTitle(QStringLiteral("chat2sbx"));
    setAccessibleName(QStringLiteral("chat2sbx approvals, sandboxes and status"));

    m_content = new QWidget;
    auto *column = new QVBoxLayout(m_content);
    m_firstRun = new FirstRunSection(status, m_content);
    m_approvals = new ApprovalsSection(approvals, m_content);
    m_sandboxes = new SandboxesSection(sandboxes, m_content);
    m_status = new StatusSection(status, this);
    column->addWidget(m_firstRun);
    column->addWidget(m_approvals);
    column->addWidget(m_sandboxes);
    column->addStretch(1);

    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(m_content);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setFocusPolicy(Qt::NoFocus);
    m_header = new PopupHeader(this);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(1, 1, 1, 1);   // inside the 1 px border paintEvent draws
    auto *top = new QVBoxLayout;
    top->setContentsMargins(column->contentsMargins().left(), column->contentsMargins().top(),
                            column->contentsMargins().right(), 0);
    top->addWidget(m_header);
    outer->addLayout(top);
    outer->addWidget(m_scroll, 1);
    auto *pinned = new QVBoxLayout;
    pinned->setContentsMargins(column->contentsMargins().left(), 0, column->contentsMargins().right(),
                               column->contentsMargins().bottom());
    pinned->addWidget(m_status);
    outer->addLayout(pinned);

    connect(m_status, &StatusSection::copyUrlRequested, this, &PopupWindow::copyUrlRequested);
    m_relativeTimes.setInterval(kRelativeTimesMs);
    connect(&m_relativeTimes, &QTimer::timeout, this, [this] { refreshRelativeTimes(this); });
    connect(m_approvals, &CardList::rebuilt, this, &PopupWindow::relayout);
    connect(m_firstRun, &FirstRunSection::rebuilt, this, &PopupWindow::relayout);
    connect(m_sandboxes, &CardList::rebuilt, this, &PopupWindow::relayout);
    connect(m_status, &StatusSection::refreshed, this, &PopupWindow::relayout);
    connect(&status, &StatusModel::changed, this, &PopupWindow::refreshHeader);
    connect(m_header, &PopupHeader::detailsToggled, this, [this](bool shown) {
        m_status->setVisible(shown);
        relayout();
    });
    connect(&approvals, &ApprovalsModel::changed, this, &PopupWindow::refreshHeader);
    refreshHeader();
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
    auto *column = static_cast<QVBoxLayout *>(m_content->layout());
    column->insertWidget(column->indexOf(m_network ? static_cast<QWidget *>(m_network) : m_approvals) + 1, m_activity);
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
    m_networkModel = &model;
    connect(&model, &NetworkModel::changed, this, &PopupWindow::refreshHeader);
    refreshHeader();
    auto *column = static_cast<QVBoxLayout *>(m_content->layout());
    column->insertWidget(column->indexOf(m_approvals) + 1, m_network);
    connect(m_network, &CardList::rebuilt, this, &PopupWindow::relayout);
    updateTabOrder();
    return *m_network;
}

namespace {
void giveMemoryBack()
{
#ifdef __GLIBC__
    malloc_trim(0);   // freed pages go back to the system instead of staying in the process
#endif
}

QSettings windowSettings()
{
    return QSettings(QSettings::IniFormat, QSettings::UserScope, QStringLiteral("chat2sbx"), QStringLiteral("tray"));
}
const QString kWindowSizeKey = QStringLiteral("window/size");
} // namespace

void PopupWindow::setPresentation(Presentation presentation)
{
    if (presentation == m_presentation)
        return;
    const bool shown = isVisible();
    m_presentation = presentation;
    if (presentation == Presentation::AppWindow) {
        setWindowFlags(Qt::Window);
        setMinimumSize(0, 0);
        setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
        fitToContent();
        const QSize remembered = windowSettings().value(kWindowSizeKey).toSize();
        if (remembered.isValid())
            resize(remembered.expandedTo(minimumSize()));
    } else {
        setWindowFlags(Qt::Tool | Qt::FramelessWindowHint | Qt::WindowStaysOnTopHint);
        fitToContent();
    }
    if (shown)
        show();
}

void PopupWindow::hideEvent(QHideEvent *event)
{
    m_approvals->decideNow();
    // Sandbox and scratch folder cards are the popup's biggest part: gone while it is closed, built again
    // when it opens (showNear reads the rows afresh anyway), and their memory given back.
    m_sandboxes->releaseCards();
    if (m_workspaces)
        m_workspaces->releaseCards();
    QTimer::singleShot(200, this, [] { giveMemoryBack(); });   // once the cards' deleteLater ran
    if (m_presentation == Presentation::AppWindow && !event->spontaneous())
        windowSettings().setValue(kWindowSizeKey, size());
    QWidget::hideEvent(event);
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
    QList<QWidget *> chain{m_header->detailsButton()};
    chain += m_firstRun->focusChain();
    chain += m_approvals->focusChain();
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

void PopupWindow::refreshHeader()
{
    int waiting = m_approvalsModel.pending().size();
    if (m_networkModel)
        waiting += m_networkModel->pending().size();
    const StatusInfo status = m_statusModel.status();
    m_header->present(status, waiting);
    // The server itself failed: the details say why, without a click. Everything else that is
    // wrong is a step of the first-run guide, which leads the popup then.
    if (status.server == StatusInfo::Server::Failed && !m_header->detailsShown())
        m_header->setDetailsShown(true);
    m_status->setVisible(m_header->detailsShown());
}

void PopupWindow::fitToContent()
{
    const QFontMetrics fm(font());
    const int scrollBar = m_scroll->verticalScrollBar()->sizeHint().width();
    const int width = fm.averageCharWidth() * kWidthChars + scrollBar;
    // The rows wrap at the width they get, which leaves room for the scroll bar.
    const int contentWidth = width - scrollBar - 2;
    const int contentHeight = m_content->hasHeightForWidth() ? m_content->heightForWidth(contentWidth) : m_content->sizeHint().height();
    // The header above and the pinned Status part below the scroll area.
    int height = contentHeight + m_header->sizeHint().height() + 3 * layout()->spacing() + 2;
    if (!m_status->isHidden())
        height += m_status->hasHeightForWidth() ? m_status->heightForWidth(width) : m_status->sizeHint().height();
    height = qMin(height, kMaxHeight);
    QScreen *s = screen() ? screen() : QGuiApplication::primaryScreen();
    if (s)
        height = qMin(height, s->availableGeometry().height() * 9 / 10);
    if (m_presentation == Presentation::AppWindow) {
        // The user sizes the window; it starts at what the panel would be and never narrower.
        setMinimumSize(width, qMin(height, 240));
        if (!isVisible() && !windowSettings().contains(kWindowSizeKey))
            resize(width, qMax(height, 480));
        return;
    }
    setFixedSize(width, height);
}

void PopupWindow::showNear(const QRect &anchor)
{
    // Idle deadlines move without a change signal; a fresh read when the user looks is enough. Cards
    // built a moment ago (the popup just made for this opening) are that read already.
    if (!m_sandboxes->builtWithin(kFreshCardsMs))
        m_sandboxes->rebuild();
    if (m_workspaces && !m_workspaces->builtWithin(kFreshCardsMs))
        m_workspaces->rebuild();
    fitToContent();
    if (m_presentation == Presentation::AppWindow) {
        // Placed by the desktop; activation as the platform allows it (xdg-activation on Wayland).
        if (isMinimized())
            showNormal();
        show();
        raise();
        activateWindow();
        return;
    }
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

bool PopupWindow::focusRequest(const QString &requestId)
{
    if (requestId.isEmpty())
        return false;
    // The first button of each kind of request card is named "<action>:<id>" by its section.
    for (const QString &first : {QStringLiteral("approve:"), QStringLiteral("allowSandbox:")}) {
        auto *button = m_content->findChild<QAbstractButton *>(first + requestId);
        if (!button)
            continue;
        // The whole card in sight (its path and reason above the buttons), not only the button.
        QWidget *card = button;
        while (card->parentWidget() && !qobject_cast<CardList *>(card->parentWidget()) && card->parentWidget() != m_content)
            card = card->parentWidget();
        m_scroll->ensureWidgetVisible(card);
        button->setFocus(Qt::OtherFocusReason);
        return true;
    }
    return false;
}

// Focus went elsewhere (a click outside, another window): the popup closes, unless the window
// that took the focus is its own (the Destroy… confirmation). Looked at a moment later, once the
// focus has settled. Platforms without a window manager (offscreen, minimal) move no focus.
bool PopupWindow::event(QEvent *event)
{
    if (event->type() == QEvent::Show) {
        refreshRelativeTimes(this);
        m_relativeTimes.start();
        m_paintPending = true;
    } else if (event->type() == QEvent::Hide) {
        m_relativeTimes.stop();
    }
    static const bool managed = QGuiApplication::platformName() != QLatin1String("offscreen")
                                && QGuiApplication::platformName() != QLatin1String("minimal");
    if (event->type() == QEvent::WindowDeactivate && isVisible() && managed && m_presentation == Presentation::AtIcon) {
        QTimer::singleShot(100, this, [this] {
            if (isVisible() && !ownsActiveWindow()) {
                hide();
                m_focusClosed.start();
            }
        });
    }
    return QWidget::event(event);
}

bool PopupWindow::justClosedByFocusLoss() const
{
    return m_focusClosed.isValid() && m_focusClosed.elapsed() < 400;
}

bool PopupWindow::ownsActiveWindow() const
{
    for (const QWidget *w = QApplication::activeWindow(); w; w = w->parentWidget())
        if (w == this)
            return true;
    return false;
}

void PopupWindow::paintEvent(QPaintEvent *event)
{
    QWidget::paintEvent(event);
    if (std::exchange(m_paintPending, false))
        QTimer::singleShot(0, this, &PopupWindow::painted);   // after the children painted and the window was flushed
    if (m_presentation == Presentation::AppWindow)
        return;   // the desktop draws the window's frame
    QPainter painter(this);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(rect().adjusted(0, 0, -1, -1));
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
