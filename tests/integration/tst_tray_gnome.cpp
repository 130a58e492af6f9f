// The tray where most sbx users on Linux are: GNOME Shell on Wayland with the AppIndicator
// extension, a StatusNotifierItem host. This test runs itself again inside
// tests/desktop/gnome-session.sh (a headless GNOME Shell of its own, Debian's packages) with Qt's
// wayland platform and the fake sbx, and drives the item over D-Bus the way the shell does, from a
// second connection: the watcher lists it with an icon name, a folder request makes it
// NeedsAttention and leads its menu (the status line, then the request), Approve in that menu
// decides it (the CLI then lists it approved), the item is Active again, and "Open chat2sbx"
// shows a window the shell matches to chat2sbx.desktop; minimized, the shell's own activation
// (with its xdg-activation token) brings it back focused; a request's notification shows its
// buttons on the shell's server and a click on its body opens the window at that request's card.
// Screenshots come from the shell itself: the panel with the attention icon, the menu as the shell
// draws it, the window, the notification.
#include "SandboxHarness.h"
#include "TestSupport.h"
#include "McpTestClient.h"
#include "tray_support.h"

#include "tray/SniTypes.h"
#include "tray/StatusNotifierItem.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCall>
#include <QDBusVariant>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QJsonArray>
#include <QTest>

#include <unistd.h>

using namespace chat2sbx;
using namespace chat2sbx::test;
using chat2sbx::ui::sni::MenuLayout;

namespace {

// The shell's side: a connection of its own, so every call crosses the bus and is marshalled.
QDBusConnection shellSide()
{
    static QDBusConnection c = QDBusConnection::connectToBus(QDBusConnection::SessionBus, QStringLiteral("as-the-shell"));
    return c;
}

// Calls without blocking the event loop that serves the item (it lives in this thread).
QDBusMessage call(const QDBusMessage &message)
{
    QDBusPendingCall pending = shellSide().asyncCall(message, scaled(10000));
    QElapsedTimer t;
    t.start();
    while (!pending.isFinished() && t.elapsed() < scaled(12000))
        QTest::qWait(5);
    pending.waitForFinished();
    return pending.reply();
}

QVariant busProperty(const QString &service, const QString &path, const QString &interface, const QString &name)
{
    QDBusMessage m = QDBusMessage::createMethodCall(service, path, QStringLiteral("org.freedesktop.DBus.Properties"),
                                                    QStringLiteral("Get"));
    m << interface << name;
    const QDBusMessage reply = call(m);
    if (reply.type() != QDBusMessage::ReplyMessage) {
        qWarning("Get %s: %s", qPrintable(name), qPrintable(reply.errorMessage()));
        return {};
    }
    return reply.arguments().value(0).value<QDBusVariant>().variant();
}

QString itemProperty(const QString &service, const QString &name)
{
    return busProperty(service, QStringLiteral("/StatusNotifierItem"), QStringLiteral("org.kde.StatusNotifierItem"), name).toString();
}

MenuLayout menuLayout(const QString &service)
{
    QDBusMessage m = QDBusMessage::createMethodCall(service, QStringLiteral("/MenuBar"), QStringLiteral("com.canonical.dbusmenu"),
                                                    QStringLiteral("GetLayout"));
    m << 0 << -1 << QStringList();
    const QDBusMessage reply = call(m);
    MenuLayout layout;
    if (reply.type() == QDBusMessage::ReplyMessage && reply.arguments().size() == 2)
        reply.arguments().at(1).value<QDBusArgument>() >> layout;
    else
        qWarning("GetLayout: %s", qPrintable(reply.errorMessage()));
    return layout;
}

QString label(const MenuLayout &item)
{
    return item.properties.value(QStringLiteral("label")).toString();
}

const MenuLayout *findLabel(const MenuLayout &root, const QString &text)
{
    for (const MenuLayout &child : root.children) {
        if (label(child).remove(QLatin1Char('_')) == text)
            return &child;
        if (const MenuLayout *found = findLabel(child, text))
            return found;
    }
    return nullptr;
}

bool click(const QString &service, int id)
{
    QDBusMessage m = QDBusMessage::createMethodCall(service, QStringLiteral("/MenuBar"), QStringLiteral("com.canonical.dbusmenu"),
                                                    QStringLiteral("Event"));
    m << id << QStringLiteral("clicked") << QVariant::fromValue(QDBusVariant(0)) << uint(0);
    return call(m).type() == QDBusMessage::ReplyMessage;
}

QString shellEval(const QString &script)
{
    QDBusMessage m = QDBusMessage::createMethodCall(QStringLiteral("org.gnome.Shell"), QStringLiteral("/org/gnome/Shell"),
                                                    QStringLiteral("org.gnome.Shell"), QStringLiteral("Eval"));
    m << script;
    const QDBusMessage reply = call(m);
    if (reply.arguments().size() != 2 || !reply.arguments().at(0).toBool())
        return QStringLiteral("<eval failed: %1 %2>").arg(reply.errorMessage(), reply.arguments().value(1).toString());
    return reply.arguments().at(1).toString();
}

QString shellScreenshot(const QString &name)
{
    const QString dir = QString::fromLocal8Bit(qgetenv("CHAT2SBX_TEST_BINARY_DIR")) + QStringLiteral("/test-output/screenshots");
    QDir().mkpath(dir);
    const QString path = dir + QLatin1Char('/') + name + QStringLiteral(".png");
    QDBusMessage m = QDBusMessage::createMethodCall(QStringLiteral("org.gnome.Shell.Screenshot"), QStringLiteral("/org/gnome/Shell/Screenshot"),
                                                    QStringLiteral("org.gnome.Shell.Screenshot"), QStringLiteral("Screenshot"));
    m << false << false << path;
    const QDBusMessage reply = call(m);
    qInfo("screenshot: %s %s", qPrintable(path), reply.type() == QDBusMessage::ReplyMessage ? "" : qPrintable(reply.errorMessage()));
    return path;
}

// The shell's panel button of our item (the extension names it appindicator-<id>), as JavaScript.
const QString kOurIndicator = QStringLiteral(
    "Object.entries(Main.panel.statusArea).filter(([k]) => k.startsWith('appindicator-') && k.includes('%1')).map(([, v]) => v)[0]");

// How many pixels of the attention badge's yellow (#d4a72c) the shell drew where our panel button
// is: read from a screenshot, whatever the extension's version calls its members.
int badgePixels(const QString &service, const QString &screenshotName)
{
    const QStringList box = shellEval(QStringLiteral("const i = %1; const [x, y] = i.get_transformed_position();"
                                                     " const [w, h] = i.get_transformed_size(); [x, y, w, h].map(Math.round).join(',')")
                                          .arg(kOurIndicator.arg(service)))
                                .remove(QLatin1Char('"'))
                                .split(QLatin1Char(','));
    const QImage shot(shellScreenshot(screenshotName));
    if (box.size() != 4 || shot.isNull())
        return -1;
    const QRect button(box.at(0).toInt(), box.at(1).toInt(), box.at(2).toInt(), box.at(3).toInt());
    int yellow = 0;
    for (int y = button.top(); y <= button.bottom(); ++y)
        for (int x = button.left(); x <= button.right(); ++x) {
            const QColor c = shot.pixelColor(x, y);
            yellow += c.red() > 150 && c.green() > 110 && c.blue() < 100 && c.red() > c.blue() + 80 ? 1 : 0;
        }
    return yellow;
}

} // namespace

class TestTrayGnome : public QObject {
    Q_OBJECT
private slots:
    void theItemOnGnomeShell()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set");
        TestEnvironment env;
        const QString roots = env.root() + QStringLiteral("/repos");
        const QString thesis = roots + QStringLiteral("/thesis");
        QVERIFY(QDir().mkpath(thesis));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        TraySession s(env);
        ui::TrayApp &tray = *s.tray;
        tray.setActivityModel(*s.models.activity);
        tray.addWorkspaces(*s.models.workspaces);
        tray.addNetwork(*s.models.network);
        ui::sni::StatusNotifierItem *item = tray.statusNotifierItem();
        QVERIFY2(item, "the tray did not choose a StatusNotifierItem though the shell's watcher is on the bus");
        tray.show();
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));

        // Registered with the shell's watcher, with an icon by name.
        QTRY_VERIFY_WITH_TIMEOUT(item->isRegistered(), scaled(10000));
        const QString service = item->serviceName();
        const QStringList registered = busProperty(QStringLiteral("org.kde.StatusNotifierWatcher"), QStringLiteral("/StatusNotifierWatcher"),
                                                QStringLiteral("org.kde.StatusNotifierWatcher"),
                                                QStringLiteral("RegisteredStatusNotifierItems")).toStringList();
        const QString unique = QDBusConnection::sessionBus().baseService();
        QVERIFY2(std::any_of(registered.cbegin(), registered.cend(),
                             [&](const QString &r) { return r.startsWith(service) || r.startsWith(unique); }),
                 qPrintable(registered.join(QLatin1Char(' '))));
        QCOMPARE(itemProperty(service, QStringLiteral("IconName")), QStringLiteral("chat2sbx-tray-local"));
        QCOMPARE(itemProperty(service, QStringLiteral("Status")), QStringLiteral("Active"));
        QVERIFY(QFile::exists(itemProperty(service, QStringLiteral("IconThemePath")) + QStringLiteral("/hicolor/scalable/status/chat2sbx-tray-local.svg")));
        // The shell has a panel button for it.
        QTRY_COMPARE_WITH_TIMEOUT(shellEval(QStringLiteral("String(%1 !== undefined)").arg(kOurIndicator.arg(service))), QStringLiteral("\"true\""),
                                  scaled(10000));
        QTest::qWait(800);   // the panel draws the icon
        shellScreenshot(QStringLiteral("gnome_panel_idle"));

        // A folder request: the item asks for attention, and its menu leads with it.
        const QJsonObject asked = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                       {{QStringLiteral("host_path"), thesis}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        const QString approvalId = asked.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        QVERIFY2(approvalId.startsWith(QLatin1String("apr_")), qPrintable(QJsonDocument(asked).toJson()));
        QTRY_COMPARE_WITH_TIMEOUT(itemProperty(service, QStringLiteral("Status")), QStringLiteral("NeedsAttention"), scaled(10000));
        QCOMPARE(itemProperty(service, QStringLiteral("AttentionIconName")), QStringLiteral("chat2sbx-tray-local-attention"));
        MenuLayout menu;
        QTRY_VERIFY_WITH_TIMEOUT((menu = menuLayout(service)).children.size() > 2
                                     && label(menu.children.at(0)).startsWith(QLatin1String("1 waits for you")), scaled(10000));
        QCOMPARE(menu.children.at(0).properties.value(QStringLiteral("enabled")).toBool(), false);
        const MenuLayout request = menu.children.at(1);
        QVERIFY2(label(request).contains(QLatin1String("thesis")), qPrintable(label(request)));
        QCOMPARE(request.properties.value(QStringLiteral("children-display")).toString(), QStringLiteral("submenu"));
        // The shell draws the attention icon (its yellow badge), found by its name in the item's theme path.
        int badge = 0;
        QTRY_VERIFY2_WITH_TIMEOUT((badge = badgePixels(service, QStringLiteral("gnome_panel_attention"))) > 4, qPrintable(QString::number(badge)), scaled(10000));

        // The menu as the shell draws it.
        qInfo("menu open: %s", qPrintable(shellEval(QStringLiteral("const i = %1; i.menu.open(); String(i.menu.isOpen)").arg(kOurIndicator.arg(service)))));
        QTest::qWait(800);
        shellScreenshot(QStringLiteral("gnome_menu"));
        // The request's path as it is on disk, underscores and all: the extension reads labels its own
        // way (DBusMenuExporter's GNOME dialect), and the item found it is the shell that hosts it.
        QVERIFY(thesis.contains(QLatin1Char('_')));
        QString drawn;
        QTRY_VERIFY2_WITH_TIMEOUT((drawn = shellEval(QStringLiteral("%1.menu._getMenuItems().map(m => m.label ? m.label.text : '').join('|')")
                                                         .arg(kOurIndicator.arg(service))))
                                      .contains(QStringLiteral("|Folder %1 (direct)|").arg(thesis)),
                                  qPrintable(drawn), scaled(10000));
        shellEval(QStringLiteral("const i = %1; i.menu.close(); true").arg(kOurIndicator.arg(service)));

        // Approve, chosen in the menu, decides it.
        const MenuLayout *approve = findLabel(request, QStringLiteral("Approve"));
        QVERIFY(approve);
        QVERIFY(click(service, approve->id));
        QTRY_COMPARE_WITH_TIMEOUT(s.models.approvals->pending().size(), 0, scaled(10000));
        const CliResult listed = runCli(env, {QStringLiteral("approval"), QStringLiteral("list"), QStringLiteral("--json"),
                                              QStringLiteral("--all")}, 30000);
        bool approved = false;
        for (const QJsonValue &a : QJsonDocument::fromJson(listed.out).array())
            approved = approved || (a.toObject().value(QStringLiteral("approval_id")).toString() == approvalId
                                    && a.toObject().value(QStringLiteral("state")).toString() == QLatin1String("approved"));
        QVERIFY2(approved, listed.out.constData());
        QTRY_COMPARE_WITH_TIMEOUT(itemProperty(service, QStringLiteral("Status")), QStringLiteral("Active"), scaled(10000));
        QTRY_VERIFY2_WITH_TIMEOUT((badge = badgePixels(service, QStringLiteral("gnome_panel_decided"))) == 0, qPrintable(QString::number(badge)),
                                  scaled(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!label((menu = menuLayout(service)).children.value(0)).contains(QLatin1String("wait")), scaled(10000));

        // "Open chat2sbx": a window of its own, which the shell matches to chat2sbx.desktop.
        const MenuLayout *open = findLabel(menu, QStringLiteral("Open chat2sbx"));
        QVERIFY(open);
        QVERIFY(click(service, open->id));
        ui::PopupWindow &window = tray.popup();
        QTRY_VERIFY_WITH_TIMEOUT(window.isVisible(), scaled(10000));
        QCOMPARE(window.presentation(), ui::PopupWindow::Presentation::AppWindow);
        QString windows;
        QTRY_VERIFY_WITH_TIMEOUT((windows = shellEval(QStringLiteral(
                                      "global.get_window_actors().map(a => a.meta_window.get_wm_class() + '|' + a.meta_window.get_title()).join(';')")))
                                     .contains(QLatin1String("chat2sbx|chat2sbx")),
                                 scaled(10000));
        QTest::qWait(800);
        shellScreenshot(QStringLiteral("gnome_window"));
        qInfo("windows: %s", qPrintable(windows));

        // Minimized, then activated the way the shell does it (a double click on the item: the
        // extension's own open(), which hands the item an xdg-activation token first): the shell
        // brings the window back and gives it the focus. Without the token it would not.
        const QString ourWindows = QStringLiteral("global.get_window_actors().map(a => a.meta_window).filter(w => w.get_wm_class() === 'chat2sbx')");
        shellEval(ourWindows + QStringLiteral(".forEach(w => w.minimize()); true"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.isActiveWindow(), scaled(10000));
        QCOMPARE(shellEval(ourWindows + QStringLiteral(".map(w => String(w.minimized)).join(',')")), QStringLiteral("\"true\""));
        shellEval(QStringLiteral("%1._indicator.open(0, 0, global.display.get_current_time_roundtrip()); true").arg(kOurIndicator.arg(service)));
        const QString focused = QStringLiteral("const w = global.display.focus_window; w ? w.get_wm_class() + '|' + w.minimized : 'none'");
        QTRY_COMPARE_WITH_TIMEOUT(shellEval(focused), QStringLiteral("\"chat2sbx|false\""), scaled(10000));
        QTRY_VERIFY_WITH_TIMEOUT(window.isActiveWindow(), scaled(10000));
        QTest::keyClick(&window, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), scaled(5000));

        // A request's notification on the shell's own server: its buttons, and a click on its body
        // opens chat2sbx at that request's card (focus on its first button), and the notice goes.
        const QString notebook = roots + QStringLiteral("/notebook");
        QVERIFY(QDir().mkpath(notebook));
        const QJsonObject second = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                        {{QStringLiteral("host_path"), notebook}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        const QString secondId = second.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        QVERIFY2(secondId.startsWith(QLatin1String("apr_")), qPrintable(QJsonDocument(second).toJson()));
        const QString ours = QStringLiteral("Main.messageTray.getSources().flatMap(s => s.notifications)"
                                            ".filter(n => n.title === 'chat2sbx: folder access requested'"
                                            " && (n.bannerBodyText ?? n.body ?? '').includes('notebook'))");   // GNOME 43 / 46+
        QString buttons;
        QTRY_COMPARE_WITH_TIMEOUT((buttons = shellEval(ours + QStringLiteral(".map(n => n.actions.map(a => a.label).join('/')).join(';')"))),
                                  QStringLiteral("\"Approve/Reject\""), scaled(10000));
        QTest::qWait(800);   // the banner slides in
        // Its buttons show when the banner is expanded (as under the pointer); the shell's own call.
        qInfo("banner expanded: %s", qPrintable(shellEval(QStringLiteral(
                                         "const b = Main.messageTray._banner; if (b && b.expand) b.expand(false); String(!!b)"))));
        QTest::qWait(500);
        shellScreenshot(QStringLiteral("gnome_notification"));
        shellEval(ours + QStringLiteral("[0].activate(); true"));
        QTRY_VERIFY_WITH_TIMEOUT(window.isVisible(), scaled(10000));
        QTRY_VERIFY_WITH_TIMEOUT(QApplication::focusWidget()
                                     && QApplication::focusWidget()->objectName() == QStringLiteral("approve:") + secondId,
                                 scaled(10000));
        QTRY_COMPARE_WITH_TIMEOUT(shellEval(ours + QStringLiteral(".length")), QStringLiteral("0"), scaled(10000));
        QTest::qWait(800);
        shellScreenshot(QStringLiteral("gnome_window_at_request"));
        QTest::keyClick(&window, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), scaled(5000));
    }
};

// Runs again inside a GNOME Shell of its own unless it is in one already.
int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("CHAT2SBX_GNOME_SESSION"))
        return execInside("gnome-session.sh", "tray gnome test: bash", argc, argv);
    QApplication app(argc, argv);
    QApplication::setQuitOnLastWindowClosed(false);
    TestTrayGnome test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_tray_gnome.moc"
