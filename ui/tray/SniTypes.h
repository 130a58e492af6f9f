#pragma once

#include <QByteArray>
#include <QDBusArgument>
#include <QDBusVariant>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVariantMap>

// The D-Bus structures of the StatusNotifierItem and com.canonical.dbusmenu interfaces, as the
// desktops that host them (KDE Plasma, GNOME Shell's AppIndicator extension) read them.
namespace chat2sbx::ui::sni {

// One size of an icon: ARGB32 in network byte order (the "a(iiay)" of IconPixmap).
struct IconPixmap {
    int width = 0;
    int height = 0;
    QByteArray argb;
};
using IconPixmapList = QList<IconPixmap>;

// ToolTip: "(sa(iiay)ss)" — icon name, pixmaps, title, body.
struct ToolTip {
    QString iconName;
    IconPixmapList pixmaps;
    QString title;
    QString body;
};

// GetLayout's "(ia{sv}av)": an item, its properties and its children (each a variant of the same).
struct MenuLayout {
    int id = 0;
    QVariantMap properties;
    QList<MenuLayout> children;
};

// GetGroupProperties' and ItemsPropertiesUpdated's "a(ia{sv})".
struct MenuItem {
    int id = 0;
    QVariantMap properties;
};
using MenuItemList = QList<MenuItem>;

// ItemsPropertiesUpdated's removed properties, "a(ias)".
struct MenuItemKeys {
    int id = 0;
    QStringList keys;
};
using MenuItemKeysList = QList<MenuItemKeys>;

// EventGroup's "a(isvu)".
struct MenuEvent {
    int id = 0;
    QString eventId;
    QDBusVariant data;
    uint timestamp = 0;
};
using MenuEventList = QList<MenuEvent>;

// Registers the types with QtDBus; once, before an object using them is exported or called.
void registerTypes();

QDBusArgument &operator<<(QDBusArgument &arg, const IconPixmap &v);
const QDBusArgument &operator>>(const QDBusArgument &arg, IconPixmap &v);
QDBusArgument &operator<<(QDBusArgument &arg, const ToolTip &v);
const QDBusArgument &operator>>(const QDBusArgument &arg, ToolTip &v);
QDBusArgument &operator<<(QDBusArgument &arg, const MenuLayout &v);
const QDBusArgument &operator>>(const QDBusArgument &arg, MenuLayout &v);
QDBusArgument &operator<<(QDBusArgument &arg, const MenuItem &v);
const QDBusArgument &operator>>(const QDBusArgument &arg, MenuItem &v);
QDBusArgument &operator<<(QDBusArgument &arg, const MenuItemKeys &v);
const QDBusArgument &operator>>(const QDBusArgument &arg, MenuItemKeys &v);
QDBusArgument &operator<<(QDBusArgument &arg, const MenuEvent &v);
const QDBusArgument &operator>>(const QDBusArgument &arg, MenuEvent &v);

} // namespace chat2sbx::ui::sni

Q_DECLARE_METATYPE(chat2sbx::ui::sni::IconPixmap)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::IconPixmapList)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::ToolTip)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::MenuLayout)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::MenuItem)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::MenuItemList)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::MenuItemKeys)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::MenuItemKeysList)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::MenuEvent)
Q_DECLARE_METATYPE(chat2sbx::ui::sni::MenuEventList)
