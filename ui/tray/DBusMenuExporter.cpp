#include "tray/DBusMenuExporter.h"

#include <QAction>
#include <QActionEvent>
#include <QActionGroup>
#include <QGuiApplication>
#include <QMenu>

namespace chat2sbx::ui::sni {

QString dbusMenuLabel(const QString &qtText)
{
    QString out;
    out.reserve(qtText.size());
    for (int i = 0; i < qtText.size(); ++i) {
        const QChar c = qtText.at(i);
        if (c == QLatin1Char('&')) {
            if (i + 1 < qtText.size() && qtText.at(i + 1) == QLatin1Char('&')) {
                out += QLatin1Char('&');
                ++i;
            } else {
                out += QLatin1Char('_');
            }
        } else if (c == QLatin1Char('_')) {
            out += QStringLiteral("__");
        } else {
            out += c;
        }
    }
    return out;
}

QString gnomeShellLabel(const QString &qtText)
{
    QString text;
    text.reserve(qtText.size() + 1);
    for (int i = 0; i < qtText.size(); ++i) {
        if (qtText.at(i) != QLatin1Char('&'))
            text += qtText.at(i);
        else if (i + 1 < qtText.size() && qtText.at(i + 1) == QLatin1Char('&'))
            text += qtText.at(++i);
    }
    // The extension's /_([^_])/ without `g`: with "_" in front, the first match is that one (or,
    // when the text starts with underscores, the last of them, now one more).
    for (int i = 0; i + 1 < text.size(); ++i)
        if (text.at(i) == QLatin1Char('_') && text.at(i + 1) != QLatin1Char('_'))
            return QLatin1Char('_') + text;
    return text;
}

DBusMenuExporter::DBusMenuExporter(QMenu &menu, QObject *parent) : QObject(parent), m_menu(&menu)
{
    registerTypes();
    m_layoutChanged.setSingleShot(true);
    m_layoutChanged.setInterval(0);
    connect(&m_layoutChanged, &QTimer::timeout, this, [this] { emit LayoutUpdated(++m_revision, 0); });
    watch(&menu);
}

void DBusMenuExporter::setLabelDialect(LabelDialect dialect)
{
    if (dialect == m_dialect)
        return;
    m_dialect = dialect;
    scheduleLayoutUpdate();
}

QString DBusMenuExporter::textDirection() const
{
    return QGuiApplication::layoutDirection() == Qt::RightToLeft ? QStringLiteral("rtl") : QStringLiteral("ltr");
}

void DBusMenuExporter::watch(QMenu *menu)
{
    if (menu->property("chat2sbxDBusMenuWatched").toBool())
        return;
    menu->setProperty("chat2sbxDBusMenuWatched", true);
    menu->installEventFilter(this);
}

bool DBusMenuExporter::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::ActionAdded || event->type() == QEvent::ActionRemoved
        || event->type() == QEvent::ActionChanged)
        scheduleLayoutUpdate();
    return QObject::eventFilter(watched, event);
}

void DBusMenuExporter::scheduleLayoutUpdate()
{
    if (!m_layoutChanged.isActive())
        m_layoutChanged.start();
}

int DBusMenuExporter::track(QAction *action)
{
    auto it = m_ids.constFind(action);
    if (it != m_ids.constEnd())
        return *it;
    const int id = m_nextId++;
    m_ids.insert(action, id);
    m_actions.insert(id, action);
    connect(action, &QObject::destroyed, this, [this, action, id] {
        m_ids.remove(action);
        m_actions.remove(id);
    });
    return id;
}

QMenu *DBusMenuExporter::menuOf(int id) const
{
    if (id == 0)
        return m_menu.data();
    const QPointer<QAction> action = m_actions.value(id);
    return action ? action->menu() : nullptr;
}

QVariantMap DBusMenuExporter::propertiesOf(QAction *action, const QStringList &names) const
{
    QVariantMap p;
    if (action->isSeparator()) {
        p.insert(QStringLiteral("type"), QStringLiteral("separator"));
    } else {
        p.insert(QStringLiteral("label"), m_dialect == LabelDialect::GnomeShell ? gnomeShellLabel(action->text())
                                                                                : dbusMenuLabel(action->text()));
        if (action->isCheckable()) {
            p.insert(QStringLiteral("toggle-type"), action->actionGroup() && action->actionGroup()->isExclusive()
                                                        ? QStringLiteral("radio") : QStringLiteral("checkmark"));
            p.insert(QStringLiteral("toggle-state"), action->isChecked() ? 1 : 0);
        }
        if (action->menu())
            p.insert(QStringLiteral("children-display"), QStringLiteral("submenu"));
        if (!action->icon().name().isEmpty())
            p.insert(QStringLiteral("icon-name"), action->icon().name());
    }
    if (!action->isEnabled())
        p.insert(QStringLiteral("enabled"), false);
    if (!action->isVisible())
        p.insert(QStringLiteral("visible"), false);
    if (!action->toolTip().isEmpty() && action->toolTip() != action->text())
        p.insert(QStringLiteral("accessible-desc"), action->toolTip());
    if (names.isEmpty())
        return p;
    QVariantMap wanted;
    for (const QString &name : names)
        if (p.contains(name))
            wanted.insert(name, p.value(name));
    return wanted;
}

MenuLayout DBusMenuExporter::layoutOf(QMenu *menu, int id, int depth, const QStringList &names)
{
    MenuLayout item;
    item.id = id;
    if (id == 0) {
        item.properties.insert(QStringLiteral("children-display"), QStringLiteral("submenu"));
    } else if (const QPointer<QAction> action = m_actions.value(id)) {
        item.properties = propertiesOf(action, names);
    }
    if (!menu || depth == 0)
        return item;
    watch(menu);
    for (QAction *child : menu->actions()) {
        const int childId = track(child);
        if (QMenu *sub = child->menu()) {
            item.children.append(layoutOf(sub, childId, depth < 0 ? -1 : depth - 1, names));
        } else {
            MenuLayout leaf;
            leaf.id = childId;
            leaf.properties = propertiesOf(child, names);
            item.children.append(leaf);
        }
    }
    return item;
}

uint DBusMenuExporter::GetLayout(int parentId, int recursionDepth, const QStringList &propertyNames, MenuLayout &layout)
{
    if (parentId != 0 && !m_actions.value(parentId)) {
        layout = MenuLayout{};
        layout.id = parentId;
        return m_revision;
    }
    layout = layoutOf(menuOf(parentId), parentId, recursionDepth, propertyNames);
    return m_revision;
}

MenuItemList DBusMenuExporter::GetGroupProperties(const QList<int> &ids, const QStringList &propertyNames)
{
    MenuItemList items;
    for (int id : ids) {
        if (id == 0) {
            items.append({0, {{QStringLiteral("children-display"), QStringLiteral("submenu")}}});
        } else if (const QPointer<QAction> action = m_actions.value(id)) {
            items.append({id, propertiesOf(action, propertyNames)});
        }
    }
    return items;
}

QDBusVariant DBusMenuExporter::GetProperty(int id, const QString &name)
{
    const QPointer<QAction> action = m_actions.value(id);
    if (!action)
        return QDBusVariant(QVariant(QString()));
    return QDBusVariant(propertiesOf(action, {name}).value(name, QString()));
}

void DBusMenuExporter::Event(int id, const QString &eventId, const QDBusVariant &data, uint timestamp)
{
    Q_UNUSED(data);
    Q_UNUSED(timestamp);
    if (eventId == QLatin1String("opened")) {
        if (QMenu *menu = menuOf(id))
            emit menu->aboutToShow();
        return;
    }
    if (eventId != QLatin1String("clicked"))
        return;
    QPointer<QAction> action = m_actions.value(id);
    if (!action || !action->isEnabled() || action->menu() || action->isSeparator())
        return;
    // After the reply: what the action does (a dialog, a rebuilt menu) must not run inside the call.
    QTimer::singleShot(0, action, [action] {
        if (action)
            action->trigger();
    });
}

QList<int> DBusMenuExporter::EventGroup(const MenuEventList &events)
{
    QList<int> notFound;
    for (const MenuEvent &e : events) {
        if (e.id != 0 && !m_actions.value(e.id))
            notFound.append(e.id);
        else
            Event(e.id, e.eventId, e.data, e.timestamp);
    }
    return notFound;
}

bool DBusMenuExporter::AboutToShow(int id)
{
    if (QMenu *menu = menuOf(id))
        emit menu->aboutToShow();
    return false;
}

QList<int> DBusMenuExporter::AboutToShowGroup(const QList<int> &ids, QList<int> &idErrors)
{
    for (int id : ids) {
        if (QMenu *menu = menuOf(id))
            emit menu->aboutToShow();
        else
            idErrors.append(id);
    }
    return {};
}

} // namespace chat2sbx::ui::sni
