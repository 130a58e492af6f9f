#pragma once

#include "tray/SniTypes.h"

#include <QDBusConnection>
#include <QDBusVariant>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

class QAction;
class QMenu;

namespace chat2sbx::ui::sni {

// A QMenu served as com.canonical.dbusmenu, the menu a StatusNotifierItem names in its Menu
// property: the host (GNOME Shell's AppIndicator extension, KDE Plasma) draws it and sends the
// user's clicks back as Event(id, "clicked"). Item 0 is the menu itself; every QAction gets an id
// of its own for as long as it lives. A change to the menu's actions is one LayoutUpdated.
class DBusMenuExporter : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "com.canonical.dbusmenu")
    Q_PROPERTY(uint Version READ version)
    Q_PROPERTY(QString TextDirection READ textDirection)
    Q_PROPERTY(QString Status READ status)
    Q_PROPERTY(QStringList IconThemePath READ iconThemePath)
public:
    explicit DBusMenuExporter(QMenu &menu, QObject *parent = nullptr);

    // How the host reads a label: as dbusmenu says (KDE Plasma), or as GNOME Shell's AppIndicator
    // extension does (see gnomeShellLabel). A change is one LayoutUpdated.
    enum class LabelDialect { Spec, GnomeShell };
    void setLabelDialect(LabelDialect dialect);
    LabelDialect labelDialect() const { return m_dialect; }

    uint version() const { return 3; }
    QString textDirection() const;
    QString status() const { return QStringLiteral("normal"); }
    QStringList iconThemePath() const { return {}; }
    uint revision() const { return m_revision; }
    // The id the menu gives `action` (0: not in the menu).
    int idOf(QAction *action) const { return m_ids.value(action); }

public slots:
    Q_SCRIPTABLE uint GetLayout(int parentId, int recursionDepth, const QStringList &propertyNames,
                                chat2sbx::ui::sni::MenuLayout &layout);
    Q_SCRIPTABLE chat2sbx::ui::sni::MenuItemList GetGroupProperties(const QList<int> &ids, const QStringList &propertyNames);
    Q_SCRIPTABLE QDBusVariant GetProperty(int id, const QString &name);
    Q_SCRIPTABLE void Event(int id, const QString &eventId, const QDBusVariant &data, uint timestamp);
    Q_SCRIPTABLE QList<int> EventGroup(const chat2sbx::ui::sni::MenuEventList &events);
    Q_SCRIPTABLE bool AboutToShow(int id);
    Q_SCRIPTABLE QList<int> AboutToShowGroup(const QList<int> &ids, QList<int> &idErrors);

signals:
    Q_SCRIPTABLE void ItemsPropertiesUpdated(const chat2sbx::ui::sni::MenuItemList &updated,
                                             const chat2sbx::ui::sni::MenuItemKeysList &removed);
    Q_SCRIPTABLE void LayoutUpdated(uint revision, int parent);
    Q_SCRIPTABLE void ItemActivationRequested(int id, uint timestamp);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    MenuLayout layoutOf(QMenu *menu, int id, int depth, const QStringList &names);
    QVariantMap propertiesOf(QAction *action, const QStringList &names) const;
    int track(QAction *action);
    void watch(QMenu *menu);
    QMenu *menuOf(int id) const;
    void scheduleLayoutUpdate();

    QPointer<QMenu> m_menu;
    QHash<QAction *, int> m_ids;
    QHash<int, QPointer<QAction>> m_actions;
    int m_nextId = 1;
    uint m_revision = 1;
    QTimer m_layoutChanged;   // coalesces a rebuild of many actions into one signal
    LabelDialect m_dialect = LabelDialect::Spec;
};

// The label as dbusmenu writes mnemonics: "_" marks one, "__" is a literal underscore.
QString dbusMenuLabel(const QString &qtText);

// The label GNOME Shell's AppIndicator extension draws as `qtText` reads without its mnemonic. The
// extension does not follow the spec: it drops the first "_" that precedes another character and
// nothing else ("__" stays two), so "my_notes" would show as "mynotes" and dbusMenuLabel's
// "my__notes" as "my_notes" only by luck of position. One "_" put in front is the one it drops.
QString gnomeShellLabel(const QString &qtText);

} // namespace chat2sbx::ui::sni
