#pragma once

#include "tray/SniTypes.h"

#include <QDBusConnection>
#include <QDBusObjectPath>
#include <QIcon>
#include <QObject>

class QDBusServiceWatcher;
class QMenu;

namespace chat2sbx::ui::sni {

class DBusMenuExporter;

// The tray icon where the desktop hosts StatusNotifierItems (GNOME Shell with the AppIndicator
// extension, KDE Plasma): org.kde.StatusNotifierItem at /StatusNotifierItem and its menu at
// /MenuBar on the session bus, registered with org.kde.StatusNotifierWatcher (again whenever the
// watcher comes back, as after a shell restart). Unlike QSystemTrayIcon it says NeedsAttention for
// as long as something waits, and names its icons so panels draw them sharp at every scale.
class StatusNotifierItem : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.kde.StatusNotifierItem")
    Q_PROPERTY(QString Category READ category)
    Q_PROPERTY(QString Id READ id)
    Q_PROPERTY(QString Title READ title)
    Q_PROPERTY(QString Status READ status)
    Q_PROPERTY(int WindowId READ windowId)
    Q_PROPERTY(QString IconThemePath READ iconThemePath)
    Q_PROPERTY(QDBusObjectPath Menu READ menu)
    Q_PROPERTY(bool ItemIsMenu READ itemIsMenu)
    Q_PROPERTY(QString IconName READ iconName)
    Q_PROPERTY(chat2sbx::ui::sni::IconPixmapList IconPixmap READ iconPixmap)
    Q_PROPERTY(QString OverlayIconName READ overlayIconName)
    Q_PROPERTY(chat2sbx::ui::sni::IconPixmapList OverlayIconPixmap READ overlayIconPixmap)
    Q_PROPERTY(QString AttentionIconName READ attentionIconName)
    Q_PROPERTY(chat2sbx::ui::sni::IconPixmapList AttentionIconPixmap READ attentionIconPixmap)
    Q_PROPERTY(QString AttentionMovieName READ attentionMovieName)
    Q_PROPERTY(chat2sbx::ui::sni::ToolTip ToolTip READ toolTip)
    // Ayatana's additions, which GNOME's AppIndicator extension reads for screen readers.
    Q_PROPERTY(QString IconAccessibleDesc READ accessibleDescription)
    Q_PROPERTY(QString AttentionAccessibleDesc READ accessibleDescription)
public:
    static constexpr const char *kWatcherService = "org.kde.StatusNotifierWatcher";

    StatusNotifierItem(const QString &id, QMenu &menu, const QDBusConnection &bus = QDBusConnection::sessionBus(),
                       QObject *parent = nullptr);
    ~StatusNotifierItem() override;

    // Whether a watcher is on `bus` now: then a host draws items like this one.
    static bool hostAvailable(const QDBusConnection &bus = QDBusConnection::sessionBus());

    // Exports the item and its menu and registers it with the watcher; false with why when the bus
    // refuses (no session bus, the name taken).
    bool publish(QString &error);
    QString serviceName() const { return m_service; }
    bool isRegistered() const { return m_registered; }

    // Icons by theme name (resolved in iconThemePath) with the same picture as pixmaps.
    void setIcon(const QString &name, const QIcon &icon);
    void setAttentionIcon(const QString &name, const QIcon &icon);
    void setIconThemePath(const QString &path);
    // "Active", or "NeedsAttention" while something waits for the user.
    void setNeedsAttention(bool needed);
    void setToolTip(const QString &title, const QString &body);
    void setTitle(const QString &title);
    DBusMenuExporter &menuExporter() const { return *m_menuExporter; }

    QString category() const { return QStringLiteral("ApplicationStatus"); }
    QString id() const { return m_id; }
    QString title() const { return m_title; }
    QString status() const { return m_needsAttention ? QStringLiteral("NeedsAttention") : QStringLiteral("Active"); }
    int windowId() const { return 0; }
    QString iconThemePath() const { return m_iconThemePath; }
    QDBusObjectPath menu() const { return QDBusObjectPath(QStringLiteral("/MenuBar")); }
    bool itemIsMenu() const { return false; }
    QString iconName() const { return m_iconName; }
    IconPixmapList iconPixmap() const { return m_iconPixmaps; }
    QString overlayIconName() const { return {}; }
    IconPixmapList overlayIconPixmap() const { return {}; }
    QString attentionIconName() const { return m_attentionIconName; }
    IconPixmapList attentionIconPixmap() const { return m_attentionPixmaps; }
    QString attentionMovieName() const { return {}; }
    chat2sbx::ui::sni::ToolTip toolTip() const;
    // What a screen reader says of the icon: the title and the tooltip's text.
    QString accessibleDescription() const;

public slots:
    Q_SCRIPTABLE void ContextMenu(int x, int y);
    Q_SCRIPTABLE void Activate(int x, int y);
    Q_SCRIPTABLE void SecondaryActivate(int x, int y);
    Q_SCRIPTABLE void Scroll(int delta, const QString &orientation);
    // The host's xdg-activation token for the Activate that follows (GNOME's AppIndicator extension,
    // KDE): without it Wayland compositors refuse to raise or focus an existing window.
    Q_SCRIPTABLE void ProvideXdgActivationToken(const QString &token);

signals:
    Q_SCRIPTABLE void NewTitle();
    Q_SCRIPTABLE void NewIcon();
    Q_SCRIPTABLE void NewAttentionIcon();
    Q_SCRIPTABLE void NewOverlayIcon();
    Q_SCRIPTABLE void NewToolTip();
    Q_SCRIPTABLE void NewStatus(const QString &status);
    Q_SCRIPTABLE void NewIconThemePath(const QString &path);

    // For the application: the user activated the item (a click where the host activates,
    // "Open" where it shows the menu first).
    void activated();
    // The watcher took the item (again).
    void registered();

private:
    // Asks which program hosts the watcher (it decides how the menu's labels are written), then
    // registers the item.
    void registerWithWatcher();
    void sendRegistration();

    QString m_id;
    QMenu &m_menu;
    QDBusConnection m_bus;
    DBusMenuExporter *m_menuExporter = nullptr;
    QDBusServiceWatcher *m_watcher = nullptr;
    QString m_service;
    QString m_title;
    QString m_iconThemePath;
    QString m_iconName;
    IconPixmapList m_iconPixmaps;
    QString m_attentionIconName;
    IconPixmapList m_attentionPixmaps;
    QString m_toolTipTitle;
    QString m_toolTipBody;
    bool m_needsAttention = false;
    bool m_published = false;
    bool m_registered = false;
};

// The sizes panels ask for, as SNI pixmaps (ARGB32, network byte order).
IconPixmapList iconPixmaps(const QIcon &icon);

} // namespace chat2sbx::ui::sni
