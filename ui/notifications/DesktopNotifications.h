#pragma once

#include <QDBusConnection>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

namespace chat2sbx::ui {

// A client of the desktop's notification server (org.freedesktop.Notifications on the session bus,
// the Desktop Notifications spec 1.2): notifications with buttons, replaced and withdrawn by a key
// of ours. Every call is asynchronous. A desktop without such a server, or one whose capabilities
// lack "actions", leaves it unavailable: the tray then keeps Qt's own balloon. A server that comes
// (or comes back) later is asked again: a tray started at login may be up before GNOME Shell's.
class DesktopNotifications : public QObject {
    Q_OBJECT
public:
    struct Action {
        QString key;     // "default" is the click on the notification itself
        QString label;
    };

    explicit DesktopNotifications(const QDBusConnection &bus = QDBusConnection::sessionBus(), QObject *parent = nullptr);

    // Asks the server for its capabilities, now and whenever one takes the name; availableChanged
    // follows.
    void probe();
    bool available() const { return m_available; }

    // Shows the notification `key`, or replaces it when it is shown. It never expires by itself:
    // a decision waits for the user however long they are away.
    void show(const QString &key, const QString &title, const QString &body, const QList<Action> &actions);
    // Closes it (decided elsewhere, or nothing left to decide); nothing when it is not shown.
    void withdraw(const QString &key);
    bool isShown(const QString &key) const { return m_ids.contains(key) || m_pending.contains(key); }
    QStringList shownKeys() const;

signals:
    void availableChanged(bool available);
    // The user pressed `action` on the notification `key`.
    void actionInvoked(const QString &key, const QString &action);

private slots:
    void onActionInvoked(uint id, const QString &action);
    void onClosed(uint id, uint reason);
    void onOwnerChanged(const QString &name, const QString &oldOwner, const QString &newOwner);

private:
    void forget(uint id);

    void setAvailable(bool available);

    QDBusConnection m_bus;
    bool m_available = false;
    bool m_watching = false;
    QHash<QString, uint> m_ids;     // key -> the server's id
    QHash<uint, QString> m_keys;    // and back
    QSet<QString> m_pending;        // Notify sent, its id not back yet
    QSet<QString> m_withdrawn;      // withdrawn while pending: closed as soon as the id comes
};

} // namespace chat2sbx::ui
