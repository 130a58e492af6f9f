#include "notifications/DesktopNotifications.h"

#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>

namespace chat2sbx::ui {
namespace {
const QString kService = QStringLiteral("org.freedesktop.Notifications");
const QString kPath = QStringLiteral("/org/freedesktop/Notifications");
const QString kInterface = QStringLiteral("org.freedesktop.Notifications");
} // namespace

DesktopNotifications::DesktopNotifications(const QDBusConnection &bus, QObject *parent) : QObject(parent), m_bus(bus)
{
    if (!m_bus.isConnected())
        return;
    m_bus.connect(QString(), kPath, kInterface, QStringLiteral("ActionInvoked"), this, SLOT(onActionInvoked(uint,QString)));
    m_bus.connect(QString(), kPath, kInterface, QStringLiteral("NotificationClosed"), this, SLOT(onClosed(uint,uint)));
}

void DesktopNotifications::probe()
{
    if (!m_bus.isConnected())
        return;
    if (!m_watching) {
        // NameOwnerChanged for the server's name only (arg0), as QDBusServiceWatcher would match it.
        m_watching = m_bus.connect(QStringLiteral("org.freedesktop.DBus"), QStringLiteral("/org/freedesktop/DBus"),
                                   QStringLiteral("org.freedesktop.DBus"), QStringLiteral("NameOwnerChanged"), {kService}, QString(),
                                   this, SLOT(onOwnerChanged(QString,QString,QString)));
    }
    const QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface, QStringLiteral("GetCapabilities"));
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call, 5000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        const QDBusPendingReply<QStringList> reply = *w;
        setAvailable(!reply.isError() && reply.value().contains(QStringLiteral("actions")));
    });
}

void DesktopNotifications::onOwnerChanged(const QString &, const QString &, const QString &owner)
{
    // The ids of a server that left mean nothing to the next one.
    m_ids.clear();
    m_keys.clear();
    if (owner.isEmpty())
        setAvailable(false);
    else
        probe();
}

void DesktopNotifications::setAvailable(bool available)
{
    if (available == m_available)
        return;
    m_available = available;
    emit availableChanged(available);
}

QStringList DesktopNotifications::shownKeys() const
{
    QStringList keys = m_ids.keys();
    for (const QString &k : m_pending)
        if (!keys.contains(k))
            keys << k;
    return keys;
}

void DesktopNotifications::show(const QString &key, const QString &title, const QString &body, const QList<Action> &actions)
{
    if (!m_bus.isConnected())
        return;
    QStringList flat;
    for (const Action &a : actions)
        flat << a.key << a.label;
    QVariantMap hints;
    hints.insert(QStringLiteral("urgency"), QVariant::fromValue<uchar>(1));
    hints.insert(QStringLiteral("desktop-entry"), QStringLiteral("chat2sbx"));
    // A request waiting for the user is no instant message: a category of our own, as the
    // specification asks for kinds it does not name.
    hints.insert(QStringLiteral("category"), QStringLiteral("x-chat2sbx.request"));
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface, QStringLiteral("Notify"));
    call << QStringLiteral("chat2sbx") << m_ids.value(key, 0u) << QStringLiteral("chat2sbx") << title << body << flat << hints
         << -1;   // expire_timeout -1: as the desktop does it (GNOME keeps it in its list; the tray keeps the request)
    m_pending.insert(key);
    m_withdrawn.remove(key);
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call, 5000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, key](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        m_pending.remove(key);
        const QDBusPendingReply<uint> reply = *w;
        if (reply.isError())
            return;
        const uint id = reply.value();
        if (const uint old = m_ids.value(key, 0u); old != 0 && old != id)
            m_keys.remove(old);
        m_ids.insert(key, id);
        m_keys.insert(id, key);
        if (m_withdrawn.remove(key))
            withdraw(key);
    });
}

void DesktopNotifications::withdraw(const QString &key)
{
    if (m_pending.contains(key)) {
        m_withdrawn.insert(key);
        return;
    }
    const uint id = m_ids.value(key, 0u);
    if (id == 0)
        return;
    forget(id);
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface, QStringLiteral("CloseNotification"));
    call << id;
    m_bus.asyncCall(call, 5000);
}

void DesktopNotifications::onActionInvoked(uint id, const QString &action)
{
    const QString key = m_keys.value(id);
    if (!key.isEmpty())
        emit actionInvoked(key, action);
}

void DesktopNotifications::onClosed(uint id, uint)
{
    forget(id);
}

void DesktopNotifications::forget(uint id)
{
    const QString key = m_keys.take(id);
    if (!key.isEmpty() && m_ids.value(key) == id)
        m_ids.remove(key);
}

} // namespace chat2sbx::ui
