#include "tray/StatusNotifierItem.h"

#include "tray/DBusMenuExporter.h"

#include <QCoreApplication>
#include <QCursor>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusServiceWatcher>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QtEndian>

#include <algorithm>
#include <cstdio>

namespace chat2sbx::ui::sni {

namespace {
const QString kItemPath = QStringLiteral("/StatusNotifierItem");
const QString kMenuPath = QStringLiteral("/MenuBar");
constexpr int kRegisterTimeoutMs = 5000;
} // namespace

IconPixmapList iconPixmaps(const QIcon &icon)
{
    IconPixmapList list;
    for (int size : {16, 22, 24, 32, 48, 64}) {
        const QImage image = icon.pixmap(size, size).toImage().convertToFormat(QImage::Format_ARGB32);
        if (image.isNull())
            continue;
        IconPixmap p;
        p.width = image.width();
        p.height = image.height();
        p.argb.resize(static_cast<qsizetype>(image.width()) * image.height() * 4);
        auto *out = reinterpret_cast<quint32 *>(p.argb.data());
        for (int y = 0; y < image.height(); ++y) {
            const auto *line = reinterpret_cast<const quint32 *>(image.constScanLine(y));
            for (int x = 0; x < image.width(); ++x)
                *out++ = qToBigEndian(line[x]);
        }
        list.append(p);
    }
    return list;
}

StatusNotifierItem::StatusNotifierItem(const QString &id, QMenu &menu, const QDBusConnection &bus, QObject *parent)
    : QObject(parent), m_id(id), m_menu(menu), m_bus(bus), m_title(id)
{
    registerTypes();
    m_menuExporter = new DBusMenuExporter(menu, this);
}

StatusNotifierItem::~StatusNotifierItem()
{
    if (!m_published)
        return;
    m_bus.unregisterObject(kItemPath);
    m_bus.unregisterObject(kMenuPath);
    m_bus.unregisterService(m_service);
}

bool StatusNotifierItem::hostAvailable(const QDBusConnection &bus)
{
    // A question to the bus daemon, answered at once; asked once, when the tray starts.
    return bus.isConnected() && bus.interface() && bus.interface()->isServiceRegistered(QLatin1String(kWatcherService));
}

bool StatusNotifierItem::publish(QString &error)
{
    if (m_published)
        return true;
    if (!m_bus.isConnected()) {
        error = QStringLiteral("no D-Bus session bus: %1").arg(m_bus.lastError().message());
        return false;
    }
    const auto exported = QDBusConnection::ExportScriptableSlots | QDBusConnection::ExportScriptableSignals
                          | QDBusConnection::ExportAllProperties;
    if (!m_bus.registerObject(kItemPath, this, exported) || !m_bus.registerObject(kMenuPath, m_menuExporter, exported)) {
        m_bus.unregisterObject(kItemPath);
        error = QStringLiteral("the session bus refused the tray item's objects: %1").arg(m_bus.lastError().message());
        return false;
    }
    m_service = QStringLiteral("org.kde.StatusNotifierItem-%1-1").arg(QCoreApplication::applicationPid());
    if (!m_bus.registerService(m_service)) {
        m_bus.unregisterObject(kItemPath);
        m_bus.unregisterObject(kMenuPath);
        error = QStringLiteral("the session bus refused the name %1: %2").arg(m_service, m_bus.lastError().message());
        return false;
    }
    m_published = true;
    m_watcher = new QDBusServiceWatcher(QLatin1String(kWatcherService), m_bus,
                                        QDBusServiceWatcher::WatchForRegistration | QDBusServiceWatcher::WatchForUnregistration, this);
    connect(m_watcher, &QDBusServiceWatcher::serviceRegistered, this, &StatusNotifierItem::registerWithWatcher);
    connect(m_watcher, &QDBusServiceWatcher::serviceUnregistered, this, [this] { m_registered = false; });
    registerWithWatcher();
    return true;
}

namespace {
// GNOME Shell's AppIndicator extension runs in the shell's own process.
bool isGnomeShell(uint pid)
{
    QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
    return comm.open(QIODevice::ReadOnly) && comm.read(64).trimmed() == "gnome-shell";
}
} // namespace

void StatusNotifierItem::registerWithWatcher()
{
    QDBusMessage ask = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.DBus"), QStringLiteral("/org/freedesktop/DBus"),
                                                      QStringLiteral("org.freedesktop.DBus"), QStringLiteral("GetConnectionUnixProcessID"));
    ask << QString::fromLatin1(kWatcherService);
    auto *pending = new QDBusPendingCallWatcher(m_bus.asyncCall(ask, kRegisterTimeoutMs), this);
    connect(pending, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        const QDBusPendingReply<uint> pid = *w;
        // Unknown (another pid namespace, an error): the spec's way, which KDE Plasma follows.
        m_menuExporter->setLabelDialect(pid.isValid() && isGnomeShell(pid.value()) ? DBusMenuExporter::LabelDialect::GnomeShell
                                                                                   : DBusMenuExporter::LabelDialect::Spec);
        sendRegistration();
    });
}

void StatusNotifierItem::sendRegistration()
{
    QDBusMessage call = QDBusMessage::createMethodCall(QLatin1String(kWatcherService), QStringLiteral("/StatusNotifierWatcher"),
                                                       QLatin1String(kWatcherService), QStringLiteral("RegisterStatusNotifierItem"));
    call << m_service;
    auto *pending = new QDBusPendingCallWatcher(m_bus.asyncCall(call, kRegisterTimeoutMs), this);
    connect(pending, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        if (w->isError()) {
            // The watcher may come (back) later; serviceRegistered then registers again.
            const QByteArray line = "chat2sbx: the desktop's tray did not take the icon: " + w->error().message().toUtf8() + '\n';
            std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stderr);
            return;
        }
        m_registered = true;
        emit registered();
    });
}

void StatusNotifierItem::setIcon(const QString &name, const QIcon &icon)
{
    m_iconName = name;
    m_iconPixmaps = iconPixmaps(icon);
    emit NewIcon();
}

void StatusNotifierItem::setAttentionIcon(const QString &name, const QIcon &icon)
{
    m_attentionIconName = name;
    m_attentionPixmaps = iconPixmaps(icon);
    emit NewAttentionIcon();
}

void StatusNotifierItem::setIconThemePath(const QString &path)
{
    if (path == m_iconThemePath)
        return;
    m_iconThemePath = path;
    emit NewIconThemePath(path);
}

void StatusNotifierItem::setNeedsAttention(bool needed)
{
    if (needed == m_needsAttention)
        return;
    m_needsAttention = needed;
    emit NewStatus(status());
}

void StatusNotifierItem::setToolTip(const QString &title, const QString &body)
{
    if (title == m_toolTipTitle && body == m_toolTipBody)
        return;
    m_toolTipTitle = title;
    m_toolTipBody = body;
    emit NewToolTip();
}

void StatusNotifierItem::setTitle(const QString &title)
{
    if (title == m_title)
        return;
    m_title = title;
    emit NewTitle();
}

ToolTip StatusNotifierItem::toolTip() const
{
    return {m_needsAttention ? m_attentionIconName : m_iconName, {}, m_toolTipTitle, m_toolTipBody};
}

QString StatusNotifierItem::accessibleDescription() const
{
    return m_toolTipBody.isEmpty() ? m_title : m_title + QStringLiteral(": ") + QString(m_toolTipBody).replace(QLatin1Char('\n'), QStringLiteral(". "));
}

void StatusNotifierItem::ContextMenu(int x, int y)
{
    // Hosts that draw no dbusmenu ask the item to show its own.
    m_menu.popup(QPoint(x, y));
}

void StatusNotifierItem::Activate(int, int)
{
    emit activated();
}

void StatusNotifierItem::SecondaryActivate(int, int)
{
    emit activated();
}

void StatusNotifierItem::ProvideXdgActivationToken(const QString &token)
{
    // Any program on the session bus may call this: a token is short and printable, or ignored.
    constexpr int kMaxTokenLength = 512;
    if (token.isEmpty() || token.size() > kMaxTokenLength
        || std::any_of(token.cbegin(), token.cend(), [](QChar c) { return c.unicode() <= 0x20 || c.unicode() >= 0x7f; }))
        return;
    // Qt's Wayland shell integration activates the next window with this variable and then unsets
    // it; the children chat2sbx starts get an explicit environment, so it does not leak to them.
    qputenv("XDG_ACTIVATION_TOKEN", token.toLatin1());
}

void StatusNotifierItem::Scroll(int, const QString &)
{
}

} // namespace chat2sbx::ui::sni
