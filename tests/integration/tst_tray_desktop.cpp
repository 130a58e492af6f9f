// The tray on a real desktop: this test runs itself again inside tests/desktop/desktop-session.sh
// (Xvfb, a private session bus, openbox, trayer's XEmbed tray), with the real xcb platform and the
// fake sbx. As a person would: it clicks the tray icon (xdotool), finds the popup's Approve button
// by the accessibility tree (Qt's own accessibility interfaces, the ones AT-SPI serves) and presses
// it; `chat2sbx approval list --json --all` then says approved. The popup is undecorated
// (_NET_FRAME_EXTENTS 0 or absent), touches the icon's edge, is at most 640 px tall with an
// approval and sandboxes waiting. With dunst as the desktop's notification server, a request arrives
// as a notification with buttons. Screenshots of the whole screen are saved.
#include "SandboxHarness.h"
#include "TestSupport.h"
#include "McpTestClient.h"
#include "tray_support.h"

#include "popup/ApprovalsSection.h"
#include "notifications/DesktopNotifications.h"
#include "popup/PopupWindow.h"
#include "bindings/ServiceModels.h"
#include "tray/TrayApp.h"
#include "runtime/Controller.h"

#include <QAccessible>
#include <QAccessibleActionInterface>
#include <QApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDir>
#include <QJsonArray>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTest>

#include <memory>

#include <unistd.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

// Runs a desktop tool (installers/deps.sh --test installs them); its output in `out`.
bool runTool(const QString &program, const QStringList &args, QString *out = nullptr)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(15000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("%s failed: %s", qPrintable(program), p.readAllStandardError().constData());
        return false;
    }
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput());
    return true;
}

QString screenshot(const QString &name)
{
    const QString dir = QString::fromLocal8Bit(qgetenv("CHAT2SBX_TEST_BINARY_DIR")) + QStringLiteral("/test-output/screenshots");
    QDir().mkpath(dir);
    const QString path = dir + QLatin1Char('/') + name + QStringLiteral(".png");
    runTool(QStringLiteral("import"), {QStringLiteral("-window"), QStringLiteral("root"), path});
    qInfo("screenshot: %s", qPrintable(path));
    return path;
}

// The accessible object below `root` with `role` whose name starts with `name`, depth first.
QAccessibleInterface *findAccessible(QAccessibleInterface *root, QAccessible::Role role, const QString &name)
{
    if (!root)
        return nullptr;
    if (root->role() == role && root->text(QAccessible::Name).startsWith(name) && !root->state().invisible)
        return root;
    for (int i = 0; i < root->childCount(); ++i)
        if (QAccessibleInterface *found = findAccessible(root->child(i), role, name))
            return found;
    return nullptr;
}

} // namespace

class TestTrayDesktop : public QObject {
    Q_OBJECT
private slots:
    void clickTheIconApproveByAccessibilityUndecoratedAtTheIcon()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set");
        QTRY_VERIFY_WITH_TIMEOUT(QSystemTrayIcon::isSystemTrayAvailable(), 10000);
        TestEnvironment env;
        const QString roots = env.root() + QStringLiteral("/repos");
        const QString thesis = roots + QStringLiteral("/thesis");
        QVERIFY(QDir().mkpath(thesis));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        TraySession s(env);
        ui::ApprovalsSection::setUndoWindowMs(ui::ApprovalsSection::kUndoWindowMs);   // as users have it
        ui::TrayApp &tray = *s.tray;
        ui::ServiceModels &models = s.models;
        McpTestClient &mcp = s.mcp;
        tray.setActivityModel(*models.activity);
        tray.addWorkspaces(*models.workspaces);
        tray.addNetwork(*models.network);
        tray.show();
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));

        // In use: two sandboxes, a folder request and a network request wait.
        for (int i = 0; i < 2; ++i)
            QVERIFY(mcp.callToolResult(QStringLiteral("sandbox_create"), {}, 60000).value(QStringLiteral("isError")).toBool() == false);
        const QJsonObject asked = mcp.callToolResult(QStringLiteral("workspace_request"),
                                                     {{QStringLiteral("host_path"), thesis}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        const QString approvalId = asked.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        QVERIFY2(approvalId.startsWith(QLatin1String("apr_")), qPrintable(QJsonDocument(asked).toJson()));

        // The icon is in trayer's panel: click it as a person would.
        QTRY_VERIFY_WITH_TIMEOUT(tray.trayIcon().geometry().isValid() && !tray.trayIcon().geometry().isEmpty(), 10000);
        const QRect icon = tray.trayIcon().geometry();
        screenshot(QStringLiteral("desktop_before_click"));
        QVERIFY(runTool(QStringLiteral("xdotool"), {QStringLiteral("mousemove"), QString::number(icon.center().x()),
                                                QString::number(icon.center().y()), QStringLiteral("click"), QStringLiteral("1")}));
        ui::PopupWindow &popup = tray.popup();
        QTRY_VERIFY_WITH_TIMEOUT(popup.isVisible(), 10000);
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        QTRY_VERIFY_WITH_TIMEOUT(popup.approvals().rowCount() == 1, 10000);
        settleWidgets();
        QTest::qWait(300);
        screenshot(QStringLiteral("desktop_popup_in_use"));

        // Undecorated: the window manager draws no frame.
        QString extents;
        QVERIFY(runTool(QStringLiteral("xprop"), {QStringLiteral("-id"), QString::number(popup.winId()), QStringLiteral("_NET_FRAME_EXTENTS")},
                        &extents));
        QVERIFY2(!extents.contains(QLatin1Char('=')) || extents.contains(QStringLiteral("= 0, 0, 0, 0")), qPrintable(extents));
        // At the icon: trayer is a top panel, so the popup hangs from the icon's lower edge and spans it.
        const QRect placed = popup.frameGeometry();
        QVERIFY2(placed.top() == icon.bottom() + 1 && placed.left() <= icon.right() && placed.right() >= icon.left(),
                 qPrintable(QStringLiteral("popup %1,%2 %3x%4, icon %5,%6 %7x%8").arg(placed.x()).arg(placed.y()).arg(placed.width())
                                .arg(placed.height()).arg(icon.x()).arg(icon.y()).arg(icon.width()).arg(icon.height())));
        QVERIFY2(placed.height() <= ui::PopupWindow::kMaxHeight, qPrintable(QString::number(placed.height())));

        // Approve, found through the accessibility tree and clicked with the pointer. A second request
        // waits below it: its buttons must not slide under the pointer (a double click would decide it).
        const QString other = roots + QStringLiteral("/notes");
        QVERIFY(QDir().mkpath(other));
        const QJsonObject second = mcp.callToolResult(QStringLiteral("workspace_request"),
                                                      {{QStringLiteral("host_path"), other}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        QVERIFY2(!second.value(QStringLiteral("isError")).toBool(), qPrintable(QJsonDocument(second).toJson()));
        QTRY_VERIFY_WITH_TIMEOUT(popup.approvals().rowCount() == 2, 10000);
        settleWidgets();
        QAccessibleInterface *approve = findAccessible(QAccessible::queryAccessibleInterface(&popup), QAccessible::Button,
                                                       QStringLiteral("Approve direct access to ") + thesis);
        QVERIFY2(approve, "no accessible Approve button in the popup");
        const QPoint pointer = approve->rect().center();   // global, as AT-SPI gives it
        QVERIFY(runTool(QStringLiteral("xdotool"), {QStringLiteral("mousemove"), QString::number(pointer.x()), QString::number(pointer.y()),
                                                QStringLiteral("click"), QStringLiteral("1")}));
        QTRY_VERIFY_WITH_TIMEOUT(popup.findChild<QPushButton *>(QStringLiteral("undo:") + approvalId), 10000);
        QCOMPARE(models.approvals->pending().size(), 2);   // not yet: the undo window
        settleWidgets();
        QWidget *under = QApplication::widgetAt(pointer);
        QVERIFY2(!qobject_cast<QPushButton *>(under), qPrintable(under ? under->objectName() : QStringLiteral("-")));
        screenshot(QStringLiteral("desktop_popup_approved_undo"));
        QTRY_COMPARE_WITH_TIMEOUT(models.approvals->pending().size(), 1, 10000);
        const CliResult listed = runCli(env, {QStringLiteral("approval"), QStringLiteral("list"), QStringLiteral("--json"),
                                              QStringLiteral("--all")}, 30000);
        const QJsonArray approvals = QJsonDocument::fromJson(listed.out).array();
        bool approved = false;
        for (const QJsonValue &a : approvals)
            approved = approved || (a.toObject().value(QStringLiteral("approval_id")).toString() == approvalId
                                    && a.toObject().value(QStringLiteral("state")).toString() == QLatin1String("approved"));
        QVERIFY2(approved, listed.out.constData());
        QTest::qWait(300);
        screenshot(QStringLiteral("desktop_popup_approved"));

        // Escape closes it.
        QTest::keyClick(&popup, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!popup.isVisible(), 5000);
    }

    // With a real notification server on the desktop (dunst, Debian's): a folder request arrives as
    // a notification with its buttons, drawn on the screen, instead of Qt's balloon.
    // A config.json the loader refuses: the tray, started as from the desktop (no terminal), says why
    // on screen instead of exiting with nothing shown.
    void aRefusedConfigIsShownOnScreen()
    {
        TestEnvironment env;
        const QString config = env.root() + QStringLiteral("/bad-config.json");
        QVERIFY(writeFile(config, "{\"port\": 0}\n"));
        env.set(QStringLiteral("CHAT2SBX_CONFIG"), config);
        QProcessEnvironment environment = env.processEnvironment();
        for (const char *name : {"DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "QT_QPA_PLATFORM"})
            if (qEnvironmentVariableIsSet(name))
                environment.insert(QLatin1String(name), qEnvironmentVariable(name));
        QProcess tray;
        tray.setProcessEnvironment(environment);
        tray.start(chat2sbxBinary(), {QStringLiteral("tray")});
        QVERIFY(tray.waitForStarted(scaled(10000)));
        QString found;
        const bool shown = waitFor([&] {
            return runTool(QStringLiteral("xdotool"), {QStringLiteral("search"), QStringLiteral("--onlyvisible"), QStringLiteral("--name"),
                                                       QStringLiteral("chat2sbx cannot start")},
                           &found) && !found.trimmed().isEmpty();
        }, 20000);
        QTest::qWait(500);   // painted
        screenshot(QStringLiteral("desktop_config_refused"));
        const bool stillUp = tray.state() == QProcess::Running;
        tray.kill();
        tray.waitForFinished(scaled(5000));
        QVERIFY2(shown, qPrintable(QStringLiteral("no window named 'chat2sbx cannot start'; the tray %1; it said: %2")
                                       .arg(stillUp ? QStringLiteral("still runs") : QStringLiteral("exited"),
                                            QString::fromUtf8(tray.readAllStandardError()))));
        QVERIFY(stillUp);
    }

    void aRequestAsADesktopNotification()
    {
        QProcess dunst;
        dunst.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        dunst.start(QStringLiteral("dunst"), {});
        QVERIFY2(dunst.waitForStarted(10000), "dunst did not start (installers/deps.sh --test installs it)");
        QDBusConnectionInterface *bus = QDBusConnection::sessionBus().interface();
        QTRY_VERIFY_WITH_TIMEOUT(bus && bus->isServiceRegistered(QStringLiteral("org.freedesktop.Notifications")).value(), 10000);
        TestEnvironment env;
        const QString roots = env.root() + QStringLiteral("/repos");
        QVERIFY(QDir().mkpath(roots + QStringLiteral("/webshop")));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        TraySession s(env);
        ui::TrayApp &tray = *s.tray;
        tray.show();
        QTRY_VERIFY_WITH_TIMEOUT(tray.desktopNotifications().available(), 10000);
        QSignalSpy balloon(&tray, &ui::TrayApp::notified);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        McpTestClient &mcp = s.mcp;
        mcp.callToolResult(QStringLiteral("workspace_request"), {{QStringLiteral("host_path"), roots + QStringLiteral("/webshop")},
                                                               {QStringLiteral("mode"), QStringLiteral("direct")}});
        QTRY_VERIFY_WITH_TIMEOUT(!tray.desktopNotifications().shownKeys().isEmpty(), 10000);
        QTest::qWait(1000);   // dunst draws it
        screenshot(QStringLiteral("desktop_notification"));
        QCOMPARE(balloon.size(), 0);   // no Qt balloon beside it
        QVERIFY(!tray.popup().isVisible());   // nothing opened by itself, nothing took the focus
        dunst.terminate();
        dunst.waitForFinished(5000);
    }
};

// Runs again inside a desktop of its own unless it is in one already.
int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("CHAT2SBX_DESKTOP_SESSION"))
        return execInside("desktop-session.sh", "tray desktop test: bash", argc, argv);
    QApplication app(argc, argv);
    QApplication::setQuitOnLastWindowClosed(false);
    TestTrayDesktop test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_tray_desktop.moc"
