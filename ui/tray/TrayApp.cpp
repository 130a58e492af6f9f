#include "tray/TrayApp.h"

#include "tray/Autostart.h"
#include "notifications/DecisionNotices.h"
#include "notifications/DesktopNotifications.h"
#include "popup/GlobalInstructions.h"
#include "popup/PopupWindow.h"
#include "models/WorkspacesModel.h"
#include "tray/TrayMenuHead.h"
#include "tray/TrayResources.h"
#include "tray/StatusNotifierItem.h"

#include <QAction>
#include <QLoggingCategory>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QFileInfo>
#include <QClipboard>
#include <QDesktopServices>
#include <QDateTime>
#include <QDir>
#include <QGuiApplication>
#include <QMenu>
#include <QPointer>
#include <QUrl>

#include <cstdio>
#include <utility>

// Off by default; bench/tray.py turns it on to time a click on the icon to the painted popup
// (the monotonic clock is the one a benchmark outside reads too).
Q_LOGGING_CATEGORY(lcTrayTiming, "chat2sbx.tray.timing", QtWarningMsg)

namespace chat2sbx::ui {

TrayApp::TrayApp(ApprovalsModel &approvals, SandboxesModel &sandboxes, StatusModel &status, const TrayPaths &paths,
                 QObject *parent)
    : QObject(parent), m_approvals(approvals), m_sandboxes(sandboxes), m_status(status), m_paths(paths)
{
    ensureResources();
    // The window's app id on Wayland: the desktop matches it to the installed chat2sbx.desktop
    // for the window's name and icon.
    QGuiApplication::setDesktopFileName(QStringLiteral("chat2sbx"));
    m_tray = new QSystemTrayIcon(this);
    m_menu = new QMenu;
    m_menu->setObjectName(QStringLiteral("trayMenu"));

    auto add = [this](const QString &name, const QString &text, auto slot) {
        QAction *a = m_menu->addAction(text);
        a->setObjectName(name);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    QAction *open = add(QStringLiteral("openPopup"), QStringLiteral("&Open chat2sbx"), [this] { openPopup(); });
    m_menu->addSeparator();
    add(QStringLiteral("editInstructions"), QStringLiteral("&Edit global instructions…"), [this] {
        QString error;
        if (!editGlobalInstructions(error))
            reportError(error);
    });
    add(QStringLiteral("openDataFolder"), QStringLiteral("Open &data folder"), [this] {
        QString error;
        if (!openDataFolder(error))
            reportError(error);
    });
    add(QStringLiteral("copyUrl"), QStringLiteral("&Copy MCP URL"), [this] { copyMcpUrl(); });
    m_autostart = add(QStringLiteral("startAtLogin"), QStringLiteral("Start at &login"), [this](bool checked) {
        QString error;
        if (!setStartAtLogin(checked, error))
            reportError(error);
    });
    m_autostart->setCheckable(true);
    m_autostart->setChecked(Autostart::isEnabled());
    m_menu->addSeparator();
    add(QStringLiteral("quit"), QStringLiteral("&Quit"), [this] { emit quitRequested(); });
    m_menuHead = new TrayMenuHead(*m_menu, open, approvals, sandboxes, status, this);
    connect(m_menuHead, &TrayMenuHead::openRequested, this, &TrayApp::openPopup);
    connect(m_menuHead, &TrayMenuHead::failed, this, &TrayApp::reportError);
    connect(m_menuHead, &TrayMenuHead::rebuilt, this, &TrayApp::refreshItemSummary);
    if (sni::StatusNotifierItem::hostAvailable()) {
        m_sni = new sni::StatusNotifierItem(QStringLiteral("chat2sbx"), *m_menu, QDBusConnection::sessionBus(), this);
        m_sni->setTitle(QStringLiteral("chat2sbx"));
        QString error;
        const QString icons = writeThemeIcons(error);
        if (icons.isEmpty())
            reportError(QStringLiteral("the tray icon is drawn from pixmaps only: ") + error);
        m_sni->setIconThemePath(icons);
        connect(m_sni, &sni::StatusNotifierItem::activated, this, &TrayApp::togglePopup);
    } else {
        m_tray->setContextMenu(m_menu);
    }
    m_popupAsAppWindow = m_sni || QGuiApplication::platformName().startsWith(QLatin1String("wayland"));
    // Where the desktop's notification server has buttons, requests are decided from there too.
    m_desktop = new DesktopNotifications(QDBusConnection::sessionBus(), this);
    m_decisions = new DecisionNotices(*m_desktop, approvals, [this](const QString &requestId) { openPopup(requestId); }, this);
    connect(m_decisions, &DecisionNotices::failed, this, &TrayApp::reportError);
    connect(m_desktop, &DesktopNotifications::actionInvoked, this, &TrayApp::onNotificationAction);
    connect(&sandboxes, &SandboxesModel::cloudExpiryNear, this, &TrayApp::notifyCloudExpiry);
    m_desktop->probe();

    connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            togglePopup();
    });
    connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] { openPopup(); });
    connect(&m_status, &StatusModel::changed, this, &TrayApp::refreshIcon);
    connect(&m_approvals, &ApprovalsModel::changed, this, &TrayApp::refreshIcon);
    connect(&m_approvals, &ApprovalsModel::requested, this, &TrayApp::notifyApproval);
    m_noticeWindow.setSingleShot(true);
    m_noticeWindow.setInterval(kApprovalNoticeWindowMs);
    connect(&m_noticeWindow, &QTimer::timeout, this, &TrayApp::endApprovalNoticeWindow);
    refreshIcon();
    refreshItemSummary();
}

TrayApp::~TrayApp()
{
    delete m_popup;
    delete m_menu;
}

PopupWindow &TrayApp::popup()
{
    return ensurePopup();
}

PopupWindow &TrayApp::ensurePopup()
{
    if (m_popup)
        return *m_popup;
    m_popup = new PopupWindow(m_approvals, m_sandboxes, m_status);
    if (m_popupAsAppWindow)
        m_popup->setPresentation(PopupWindow::Presentation::AppWindow);
    // The sections in the order TrayCommand adds them.
    if (m_activity)
        m_popup->setActivityModel(*m_activity);
    if (m_workspaces)
        m_popup->addWorkspaces(*m_workspaces);
    if (m_network)
        giveNetworkToPopup();
    connect(m_popup, &PopupWindow::copyUrlRequested, this, &TrayApp::copyMcpUrl);
    connect(m_popup, &PopupWindow::painted, this, [this] {
        QElapsedTimer now;
        now.start();
        qCInfo(lcTrayTiming, "popup painted at monotonic %lld ms, %lld ms after it was asked for", now.msecsSinceReference(),
               m_popupOpened.isValid() ? m_popupOpened.elapsed() : -1LL);
    });
    return *m_popup;
}

void TrayApp::show()
{
    QString error;
    if (m_sni && m_sni->publish(error))
        return;
    if (m_sni) {
        reportError(error + QStringLiteral("; using the XEmbed tray icon"));
        delete std::exchange(m_sni, nullptr);
        m_tray->setContextMenu(m_menu);
    }
    m_tray->show();
}

void TrayApp::togglePopup()
{
    if (!m_popup)
        return openPopup();
    // Qt's own balloon: a click on the icon while it shows is messageClicked (which opened the
    // popup a moment ago) and then this Trigger, which must not close it again.
    if (m_popup->isVisible() && m_popupOpened.isValid() && m_popupOpened.elapsed() < 400)
        return;
    if (m_popup->isVisible() && (m_popup->presentation() == PopupWindow::Presentation::AtIcon || m_popup->isActiveWindow()))
        m_popup->hide();
    else if (!m_popup->justClosedByFocusLoss())
        openPopup();
}

int TrayApp::waiting() const
{
    return m_menuHead->waiting();
}

void TrayApp::setActivityModel(ActivityModel &activity)
{
    m_activity = &activity;
    if (m_popup)
        m_popup->setActivityModel(activity);
}

void TrayApp::openPopup(const QString &requestId)
{
    m_popupOpened.start();
    m_decisions->withdrawAll();
    PopupWindow &popup = ensurePopup();
    popup.showNear(m_tray->geometry());
    if (!requestId.isEmpty())
        popup.focusRequest(requestId);
}

QAction *TrayApp::action(const QString &objectName) const
{
    return m_menu->findChild<QAction *>(objectName);
}

void TrayApp::refreshIcon()
{
    const StatusInfo s = m_status.status();
    const TrayState state = trayStateOf(s);
    const int pending = static_cast<int>(m_approvals.pending().size());
    const bool iconChanged = state != m_state || (pending > 0) != (m_pending > 0) || m_tray->icon().isNull();
    if (iconChanged)
        m_tray->setIcon(ui::trayIcon(state, pending));
    m_tray->setToolTip(trayToolTip(s, pending));
    if (m_sni) {
        if (iconChanged) {
            m_sni->setIcon(trayIconName(state, false), ui::trayIcon(state, 0));
            m_sni->setAttentionIcon(trayIconName(state, true), ui::trayIcon(state, 1));
        }
    }
    m_state = state;
    m_pending = pending;
}

void TrayApp::refreshItemSummary()
{
    if (!m_sni)
        return;
    // NeedsAttention for as long as anything waits, network requests included.
    m_sni->setNeedsAttention(m_menuHead->waiting() > 0);
    QString body = m_menuHead->statusLine();
    const QString details = trayToolTip(m_status.status(), 0).section(QLatin1Char('\n'), 1);
    if (!details.isEmpty())
        body += QLatin1Char('\n') + details;
    m_sni->setToolTip(QStringLiteral("chat2sbx"), body);
}

void TrayApp::showNotice(const QString &title, const QString &body, bool warning, int timeoutMs)
{
    if (m_sni && m_desktop->available()) {
        // No XEmbed icon to hang Qt's balloon from: the desktop's own notification.
        m_desktop->show(QStringLiteral("notice:") + title, title, body, {});
        return;
    }
    m_tray->showMessage(title, body, warning ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information, timeoutMs);
}

void TrayApp::addWorkspaces(WorkspacesModel &workspaces)
{
    m_workspaces = &workspaces;
    if (m_popup)
        m_popup->addWorkspaces(workspaces);
    connect(&workspaces, &WorkspacesModel::notice, this, [this](const QString &title, const QString &body, bool warning) {
        showNotice(title, body, warning, warning ? 0 : 15000);
        emit notified(title, body);
    });
    connect(&workspaces, &WorkspacesModel::fileExported, this, &TrayApp::notifyExport);
}

void TrayApp::notifyExport(const QString &hostPath, const QString &sandboxName)
{
    const QFileInfo file(hostPath);
    const QString title = QStringLiteral("chat2sbx: %1 saved").arg(file.fileName());
    const QString body = QStringLiteral("From %1, in %2.").arg(sandboxName, file.absolutePath());
    if (m_desktop->available()) {
        m_desktop->show(QStringLiteral("export:") + hostPath, title, body,
                        {{QStringLiteral("open"), QStringLiteral("Open")}, {QStringLiteral("show"), QStringLiteral("Show in folder")}});
        return;
    }
    showNotice(title, body, false, 15000);
    emit notified(title, body);
}

void TrayApp::notifyCloudExpiry(const QString &id, const QString &name, qint64 expiresAtMs, bool atCeiling)
{
    const QString title = QStringLiteral("chat2sbx: cloud sandbox %1 ends at %2")
                              .arg(name, QDateTime::fromMSecsSinceEpoch(expiresAtMs).toString(QStringLiteral("HH:mm")));
    const QString body = atCeiling ? QStringLiteral("It is 24 h old, the longest Docker's cloud keeps a sandbox: its VM and the work in "
                                                    "it go then. Copy out what you need first.")
                                   : QStringLiteral("Its time in Docker's cloud runs out then, and its VM with the work in it goes (or "
                                                    "stops, where your plan allows). Extend keeps it longer.");
    if (m_desktop->available()) {
        QList<DesktopNotifications::Action> actions;
        if (!atCeiling)
            actions.append({QStringLiteral("extend"), QStringLiteral("Extend")});
        actions.append({QStringLiteral("default"), QStringLiteral("Review")});
        m_desktop->show(QStringLiteral("expiry:") + id, title, body, actions);
        return;
    }
    showNotice(title, body, true, 30000);
    emit notified(title, body);
}

void TrayApp::onNotificationAction(const QString &key, const QString &action)
{
    if (key.startsWith(QLatin1String("expiry:"))) {
        const QString id = key.mid(7);
        if (action == QLatin1String("default"))
            return openPopup();
        if (action == QLatin1String("extend"))
            m_sandboxes.extend(id, [self = QPointer<TrayApp>(this)](bool ok, const QString &message) {
                if (self && !ok)
                    self->reportError(message);
            });
        return;
    }
    if (!key.startsWith(QLatin1String("export:")))
        return;
    const QString path = key.mid(7);
    if (action == QLatin1String("open") && !QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
        reportError(QStringLiteral("no application is set up to open %1").arg(path));
    else if (action == QLatin1String("show"))
        showInFolder(path);
}

// The file manager's own "show this file" (org.freedesktop.FileManager1), else its folder.
void TrayApp::showInFolder(const QString &path)
{
    QDBusMessage call = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.FileManager1"),
                                                       QStringLiteral("/org/freedesktop/FileManager1"),
                                                       QStringLiteral("org.freedesktop.FileManager1"), QStringLiteral("ShowItems"));
    call << QStringList{QUrl::fromLocalFile(path).toString()} << QString();
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call, 5000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, path](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        if (w->isError() && !QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).absolutePath())))
            reportError(QStringLiteral("no file manager is set up to open %1").arg(QFileInfo(path).absolutePath()));
    });
}

void TrayApp::addNetwork(NetworkModel &network)
{
    m_network = &network;
    if (m_popup)
        giveNetworkToPopup();
    m_decisions->addNetwork(network);
    connect(&network, &NetworkModel::requested, this, [this](const NetworkRequestRow &row) {
        if (m_desktop->available())
            return m_decisions->networkRequested(row);
        QString body = QStringLiteral("%1 asks network access to %2 for sandbox %3.")
                           .arg(row.client.isEmpty() ? QStringLiteral("ChatGPT") : row.client,
                                row.hosts.join(QStringLiteral(", ")), row.sandboxName.isEmpty() ? row.sandboxId : row.sandboxName);
        if (!row.reason.isEmpty())
            body += QStringLiteral(" Reason: “%1”.").arg(row.reason);
        body += QStringLiteral(" Click to review.");
        showNotice(QStringLiteral("chat2sbx: network access requested"), body, false, 30000);
        emit notified(QStringLiteral("chat2sbx: network access requested"), body);
    });
    m_menuHead->addNetwork(network);
    network.refreshBlocked();
}

void TrayApp::giveNetworkToPopup()
{
    m_popup->addNetwork(*m_network);
    // Each running sandbox's proxy log is a child process: read once the popup is on screen, not
    // between the click and the paint (a hundred of them kept the popup blank for 300 ms).
    connect(m_popup, &PopupWindow::painted, m_network, [network = m_network] { network->refreshBlocked(); });
}

void TrayApp::notifyApproval(const ApprovalRow &row)
{
    if (m_desktop->available())
        return m_decisions->approvalRequested(row);
    if (m_noticeWindow.isActive()) {
        ++m_heldNotices;
        return;
    }
    QString body = QStringLiteral("%1 asks for %2 access to %3.")
                       .arg(row.client.isEmpty() ? QStringLiteral("ChatGPT") : row.client, row.mode, row.path);
    if (!row.reason.isEmpty())
        body += QStringLiteral(" Reason: “%1”.").arg(row.reason);
    body += QStringLiteral(" Click to review.");
    showApprovalNotice(body);
}

void TrayApp::endApprovalNoticeWindow()
{
    if (m_heldNotices == 0)
        return;
    const int held = std::exchange(m_heldNotices, 0);
    showApprovalNotice(held == 1 ? QStringLiteral("1 more workspace request is waiting for your decision. Click to review.")
                                 : QStringLiteral("%1 more workspace requests are waiting for your decision. Click to review.")
                                       .arg(held));
}

void TrayApp::showApprovalNotice(const QString &body)
{
    const QString title = QStringLiteral("chat2sbx: approval requested");
    m_tray->showMessage(title, body, ui::trayIcon(m_state, 1), 15000);
    m_noticeWindow.start();
    emit notified(title, body);
}

void TrayApp::reportError(const QString &text)
{
    const QByteArray b = (QStringLiteral("chat2sbx: ") + text + QLatin1Char('\n')).toUtf8();
    std::fwrite(b.constData(), 1, static_cast<size_t>(b.size()), stderr);
    showNotice(QStringLiteral("chat2sbx"), text, true, 10000);
}

bool TrayApp::editGlobalInstructions(QString &error)
{
    if (!ensureGlobalInstructions(m_paths.agentsFile, error))
        return false;
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(m_paths.agentsFile))) {
        error = QStringLiteral("no application is set up to open %1").arg(m_paths.agentsFile);
        return false;
    }
    return true;
}

bool TrayApp::openDataFolder(QString &error)
{
    QDir().mkpath(m_paths.dataRoot);
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(m_paths.dataRoot))) {
        error = QStringLiteral("no file manager is set up to open %1").arg(m_paths.dataRoot);
        return false;
    }
    return true;
}

void TrayApp::copyMcpUrl()
{
    QGuiApplication::clipboard()->setText(m_status.status().endpointUrl);
}

bool TrayApp::setStartAtLogin(bool enabled, QString &error)
{
    const bool ok = Autostart::setEnabled(enabled, m_paths.executable, error);
    m_autostart->setChecked(Autostart::isEnabled());
    return ok;
}

} // namespace chat2sbx::ui
