// The popup's widgets over in-memory models: rows, buttons, confirmation, status, icons, screenshots.
#include "ui_popup_fakes.h"

#include "popup/ActivitySection.h"
#include "popup/ApprovalsSection.h"
#include "tray/Autostart.h"
#include "popup/GlobalInstructions.h"
#include "popup/NetworkSection.h"
#include "popup/PopupHeader.h"
#include "popup/PopupWindow.h"
#include "popup/SandboxesSection.h"
#include "popup/StatusSection.h"
#include "TestSupport.h"
#include "tray/TrayApp.h"
#include "tray/TrayIcons.h"
#include "tray/TrayResources.h"
#include "popup/WorkspacesSection.h"
#include "widgets/PopupStyle.h"

#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QRegularExpression>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace chat2sbx;
using namespace chat2sbx::ui;
using namespace chat2sbx::ui::test;

namespace {

QString screenshotDir()
{
    const QString base = chat2sbx::test::binaryDir().isEmpty() ? QDir::currentPath() : chat2sbx::test::binaryDir();
    const QString dir = base + QStringLiteral("/test-output/screenshots");
    QDir().mkpath(dir);
    return dir;
}

// Saves the popup as <build>/test-output/screenshots/<name>.png and prints the path.
QString saveScreenshot(QWidget &w, const QString &name)
{
    const QString path = screenshotDir() + QLatin1Char('/') + name + QStringLiteral(".png");
    QCoreApplication::processEvents();   // the popup refits to its content on the next event loop pass
    const bool ok = w.grab().save(path);
    qInfo().noquote() << "screenshot:" << path << (ok ? "" : "(could not save)");
    return ok ? path : QString();
}

StatusInfo runningStatus()
{
    StatusInfo s;
    s.server = StatusInfo::Server::Running;
    s.endpointUrl = QStringLiteral("http://127.0.0.1:18788/mcp");
    s.tunnel = StatusInfo::Tunnel::Connected;
    s.activeSandboxes = 1;
    s.sandboxLimit = QStringLiteral("3");
    s.version = QStringLiteral(CHAT2SBX_VERSION);
    return s;
}

// Cards of a previous rebuild go with deleteLater; drop them before looking widgets up.
void settle()
{
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

template <typename T>
T *child(QWidget &root, const QString &name)
{
    settle();
    T *w = root.findChild<T *>(name);
    if (!w)
        qWarning().noquote() << "no child" << name;
    return w;
}

} // namespace

class TestUiPopup : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        ensureResources();
        // The plain tray message is what these tests observe: no desktop notification server.
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        // Decisions at once, but in the test of the undo window itself.
        ApprovalsSection::setUndoWindowMs(0);
    }

    // After Approve the card stays where it was, as "Approved: … — Undo" at its height, so the next
    // card's buttons are not under the pointer; Undo brings the buttons back and nothing is
    // decided; the decision is made once the window has passed.
    void aDecisionMovesNothingUnderThePointer()
    {
        ApprovalsSection::setUndoWindowMs(1500);
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        PopupWindow popup(approvals, sandboxes, status);
        approvals.add({QStringLiteral("apr_one"), QStringLiteral("/home/user/src/project"), QStringLiteral("clone"), fixedTime(17, 30)});
        approvals.add({QStringLiteral("apr_two"), QStringLiteral("/home/user/notes"), QStringLiteral("direct"), fixedTime(17, 31)});
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowActive(&popup));
        settle();
        auto *approve = child<QPushButton>(popup, QStringLiteral("approve:apr_one"));
        const QPoint pointer = approve->mapTo(&popup, approve->rect().center());
        const int cardHeight = popup.findChild<QWidget *>(QStringLiteral("approval:apr_one"))->height();
        const QRect nextApprove = child<QPushButton>(popup, QStringLiteral("approve:apr_two"))->geometry().translated(
            child<QPushButton>(popup, QStringLiteral("approve:apr_two"))->parentWidget()->mapTo(&popup, QPoint()));

        QTest::mouseClick(approve, Qt::LeftButton);
        settle();
        QVERIFY(approvals.approved.isEmpty());
        QWidget *placeholder = popup.findChild<QWidget *>(QStringLiteral("approval:apr_one"));
        QVERIFY(placeholder);
        QCOMPARE(placeholder->height(), cardHeight);
        auto *undo = child<QPushButton>(popup, QStringLiteral("undo:apr_one"));
        QVERIFY(undo);
        QVERIFY(undo->hasFocus());
        QVERIFY(placeholder->findChild<QLabel *>(QStringLiteral("decided"))->text().startsWith(QLatin1String("Approved: ")));
        // Where the pointer is, nothing to press: not the next card's Approve, not Undo.
        QWidget *under = popup.childAt(pointer);
        QVERIFY2(!qobject_cast<QPushButton *>(under), qPrintable(under ? under->objectName() : QStringLiteral("-")));
        auto *next = child<QPushButton>(popup, QStringLiteral("approve:apr_two"));
        QCOMPARE(next->geometry().translated(next->parentWidget()->mapTo(&popup, QPoint())), nextApprove);
        saveScreenshot(popup, QStringLiteral("ui_popup_approved_undo"));

        // Undo: the buttons again, nothing decided.
        QTest::mouseClick(undo, Qt::LeftButton);
        settle();
        QVERIFY(child<QPushButton>(popup, QStringLiteral("approve:apr_one")));
        QVERIFY(child<QPushButton>(popup, QStringLiteral("approve:apr_one"))->hasFocus());
        QTest::qWait(1800);
        QVERIFY(approvals.approved.isEmpty());

        // Approve again and let the window pass: decided, the card gone.
        QTest::mouseClick(child<QPushButton>(popup, QStringLiteral("approve:apr_one")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(approvals.approved, QStringList{QStringLiteral("apr_one")}, chat2sbx::test::scaled(5000));
        QTRY_COMPARE_WITH_TIMEOUT(popup.approvals().rowCount(), 1, chat2sbx::test::scaled(5000));
        QVERIFY(!popup.findChild<QWidget *>(QStringLiteral("approval:apr_one")));

        // Decided, then the popup closed: made at once, not lost with the window.
        QTest::mouseClick(child<QPushButton>(popup, QStringLiteral("reject:apr_two")), Qt::LeftButton);
        QVERIFY(approvals.rejected.isEmpty());
        popup.hide();
        QCOMPARE(approvals.rejected, QStringList{QStringLiteral("apr_two")});
        ApprovalsSection::setUndoWindowMs(0);
    }

    void approvalsShowAndDecide()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        QCOMPARE(popup.approvals().rowCount(), 0);

        approvals.add({QStringLiteral("apr_one"), QStringLiteral("/home/user/src/project"), QStringLiteral("clone"), fixedTime(17, 30)});
        approvals.add({QStringLiteral("apr_two"), QStringLiteral("/home/user/notes"), QStringLiteral("direct"), fixedTime(17, 31)});
        QCOMPARE(popup.approvals().rowCount(), 2);
        settle();
        auto *path = popup.findChild<QWidget *>(QStringLiteral("approval:apr_one"))->findChild<QLabel *>(QStringLiteral("path"));
        QCOMPARE(path->text(), QStringLiteral("/home/user/src/project"));
        auto *approve = child<QPushButton>(popup, QStringLiteral("approve:apr_one"));
        QVERIFY(approve);
        QVERIFY(approve->accessibleName().contains(QLatin1String("/home/user/src/project")));
        QVERIFY(approve->text().contains(QLatin1Char('&')));
        saveScreenshot(popup, QStringLiteral("ui_popup_approvals"));

        QTest::mouseClick(approve, Qt::LeftButton);
        QCOMPARE(approvals.approved, QStringList{QStringLiteral("apr_one")});
        QTRY_COMPARE_WITH_TIMEOUT(popup.approvals().rowCount(), 1, chat2sbx::test::scaled(5000));
        QTRY_VERIFY_WITH_TIMEOUT(!popup.findChild<QPushButton *>(QStringLiteral("approve:apr_one")), chat2sbx::test::scaled(5000));

        auto *reject = child<QPushButton>(popup, QStringLiteral("reject:apr_two"));
        QVERIFY(reject);
        approvals.failWith = QStringLiteral("the directory changed since it was requested");
        QTest::mouseClick(reject, Qt::LeftButton);
        auto *message = child<QLabel>(popup, QStringLiteral("approvalsMessage"));
        QVERIFY(message->isVisible());
        QCOMPARE(message->text(), approvals.failWith);
        approvals.failWith.clear();
        QTest::mouseClick(reject, Qt::LeftButton);
        QCOMPARE(approvals.rejected, QStringList{QStringLiteral("apr_two")});
        QTRY_COMPARE_WITH_TIMEOUT(popup.approvals().rowCount(), 0, chat2sbx::test::scaled(5000));
        QVERIFY(!message->isVisible());
    }

    // A hundred sandboxes: a bounded number of cards under one group header, the rest found with the
    // filter; nothing built while the popup is closed.
    void manySandboxesAreGroupedAndFiltered()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        for (int i = 0; i < 100; ++i) {
            SandboxRow row;
            row.id = QStringLiteral("sbx_%1").arg(i, 24, 16, QLatin1Char('0'));
            row.name = QStringLiteral("scratch-%1").arg(i, 4, 10, QLatin1Char('0'));
            row.workspace = QStringLiteral("scratch folder");
            row.workspaceMode = QStringLiteral("managed");
            row.state = QStringLiteral("running");
            sandboxes.rows << row;
        }
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        settle();
        const auto cards = [&popup] {
            int n = 0;
            for (QWidget *w : popup.findChildren<QWidget *>())
                n += w->objectName().startsWith(QLatin1String("sandbox:")) && w->isVisible() ? 1 : 0;
            return n;
        };
        QCOMPARE(cards(), SandboxesSection::kMaxCards);
        QCOMPARE(popup.sandboxes().rowCount(), 100);
        QVERIFY(popup.sandboxes().filter().isVisible());
        QCOMPARE(child<QLabel>(popup, QStringLiteral("group"))->text(), QStringLiteral("scratch folder — managed (100)"));
        QVERIFY(child<QLabel>(popup, QStringLiteral("moreSandboxes"))->text().startsWith(QLatin1String("75 more")));
        saveScreenshot(popup, QStringLiteral("ui_popup_100_sandboxes"));

        popup.sandboxes().filter().setText(QStringLiteral("scratch-0042"));
        settle();
        QCOMPARE(cards(), 1);
        QVERIFY(popup.findChild<QWidget *>(QStringLiteral("sandbox:sbx_") + QStringLiteral("%1").arg(42, 24, 16, QLatin1Char('0'))));
        popup.sandboxes().filter().setText(QStringLiteral("no such thing"));
        settle();
        QCOMPARE(cards(), 0);
        QVERIFY(child<QLabel>(popup, QStringLiteral("noMatch")));
        popup.sandboxes().filter().clear();

        popup.hide();
        settle();
        QCOMPARE(cards(), 0);
        QCOMPARE(popup.findChildren<QWidget *>(QStringLiteral("title")).size(), 0);   // released, not just hidden
        popup.showNear({});
        settle();
        QCOMPARE(cards(), SandboxesSection::kMaxCards);
        popup.hide();
    }

    // "requested just now" does not stay "just now": the popup writes relative times again while it
    // is shown (every PopupWindow::kRelativeTimesMs), without rebuilding the cards.
    // A scratch folder per sandbox: every host folder has its card, the scratch folders only up to
    // the bound (each is listed with its sandbox), the rest counted; none built while closed.
    // A cloud sandbox's scratch is in its VM, not a folder here: the card says so.
    void aCloudScratchSaysWhereItsFilesAre()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        FakeWorkspaces workspaces;
        WorkspaceRow cloud{QStringLiteral("ws_cloud"), QStringLiteral("scratch"), QStringLiteral("managed"), {},
                           {{QStringLiteral("sbx_cloud"), QStringLiteral("running"), QStringLiteral("cloud-1")}}};
        cloud.inCloud = true;
        workspaces.rows << cloud;
        workspaces.rows << WorkspaceRow{QStringLiteral("ws_here"), QStringLiteral("scratch"), QStringLiteral("managed"), {},
                                        {{QStringLiteral("sbx_here"), QStringLiteral("running"), QStringLiteral("here-1")}}};
        PopupWindow popup(approvals, sandboxes, status);
        popup.addWorkspaces(workspaces);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        settle();
        QStringList titles, details;
        for (QLabel *l : popup.workspaces()->findChildren<QLabel *>()) {
            if (l->objectName() == QLatin1String("title"))
                titles << l->text();
            if (l->objectName() == QLatin1String("detail"))
                details << l->text();
        }
        QVERIFY2(titles.contains(QStringLiteral("scratch in the cloud — managed")), qPrintable(titles.join(QLatin1Char('|'))));
        QVERIFY2(titles.contains(QStringLiteral("scratch folder — managed")), qPrintable(titles.join(QLatin1Char('|'))));
        QVERIFY2(std::any_of(details.begin(), details.end(), [](const QString &d) { return d.contains(QLatin1String("not on this computer")); }),
                 qPrintable(details.join(QLatin1Char('|'))));
    }

    void scratchFoldersAreBoundedHostFoldersAreNot()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        FakeWorkspaces workspaces;
        for (int i = 0; i < 100; ++i)
            workspaces.rows << WorkspaceRow{QStringLiteral("ws_%1").arg(i, 24, 16, QLatin1Char('0')), QStringLiteral("scratch"),
                                            QStringLiteral("managed"), {},
                                            {{QStringLiteral("sbx_%1").arg(i, 24, 16, QLatin1Char('0')), QStringLiteral("stopped"),
                                              QStringLiteral("scratch-%1").arg(i)}}};
        for (const char *name : {"thesis", "webshop"})
            workspaces.rows << WorkspaceRow{QStringLiteral("ws_") + QLatin1String(name), QLatin1String(name), QStringLiteral("direct"),
                                            QStringLiteral("/home/alex/") + QLatin1String(name), {}};
        PopupWindow popup(approvals, sandboxes, status);
        popup.addWorkspaces(workspaces);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        settle();
        const auto cards = [&popup] {
            int n = 0;
            for (QWidget *w : popup.workspaces()->findChildren<QWidget *>())
                n += w->objectName().startsWith(QLatin1String("revoke:")) ? 1 : 0;
            return n;
        };
        QCOMPARE(popup.workspaces()->rowCount(), 102);
        QCOMPARE(cards(), WorkspacesSection::kMaxCards);
        QVERIFY(popup.findChild<QWidget *>(QStringLiteral("revoke:ws_thesis")));
        QVERIFY(popup.findChild<QWidget *>(QStringLiteral("revoke:ws_webshop")));
        const QString more = child<QLabel>(popup, QStringLiteral("moreWorkspaces"))->text();
        QVERIFY2(more.startsWith(QLatin1String("77 more scratch folders")), qPrintable(more));
        popup.hide();
        settle();
        QCOMPARE(cards(), 0);
        popup.showNear({});
        settle();
        QCOMPARE(cards(), WorkspacesSection::kMaxCards);
        popup.hide();
    }

    void requestTimesStayCurrent()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        // Asked 57 s ago: "just now" (building the card takes far less than the 3 s left of the minute).
        const qint64 askedAt = QDateTime::currentMSecsSinceEpoch() - 57000;
        approvals.add({QStringLiteral("apr_old"), QStringLiteral("/home/user/notes"), QStringLiteral("direct"), askedAt});
        settle();
        QWidget *card = popup.findChild<QWidget *>(QStringLiteral("approval:apr_old"));
        QVERIFY(card);
        auto *detail = card->findChild<QLabel *>(QStringLiteral("detail"));
        QVERIFY2(detail->text().endsWith(QStringLiteral("requested just now")), qPrintable(detail->text()));
        QPushButton *approve = child<QPushButton>(popup, QStringLiteral("approve:apr_old"));
        while (QDateTime::currentMSecsSinceEpoch() - askedAt < 61000)
            QTest::qWait(100);
        refreshRelativeTimes(&popup);   // what the popup's timer does
        QVERIFY2(detail->text().endsWith(QStringLiteral("requested 1 min ago")), qPrintable(detail->text()));
        QCOMPARE(child<QPushButton>(popup, QStringLiteral("approve:apr_old")), approve);   // the same card, not rebuilt
        popup.hide();
    }

    void destroyAsksFirst()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        SandboxRow row;
        row.id = QStringLiteral("sbx_a1b2c3");
        row.workspace = QStringLiteral("project (ws_123)");
        row.state = QStringLiteral("running");
        row.memory = QStringLiteral("2g");
        row.idleDeadlineMs = fixedTime(19, 0);
        row.ports = {QStringLiteral("8080 → 127.0.0.1:49152")};
        sandboxes.rows = {row};
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        QCOMPARE(popup.sandboxes().rowCount(), 1);
        settle();
        auto *detail = popup.findChild<QWidget *>(QStringLiteral("sandbox:sbx_a1b2c3"))->findChild<QLabel *>(QStringLiteral("detail"));
        QVERIFY(detail->text().contains(QStringLiteral("8080 → 127.0.0.1:49152")));
        QVERIFY(detail->text().contains(QLatin1String("2g")));

        auto *destroy = child<QPushButton>(popup, QStringLiteral("destroy:sbx_a1b2c3"));
        // Cancel first: nothing happens.
        QTest::mouseClick(destroy, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QMessageBox *box = popup.sandboxes().confirmation();
        QVERIFY(box->text().contains(QLatin1String("sbx_a1b2c3")));
        saveScreenshot(*box, QStringLiteral("ui_popup_destroy_confirmation"));
        QTest::mouseClick(box->findChild<QPushButton *>(QStringLiteral("cancelDestroy")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QVERIFY(sandboxes.pendingId.isEmpty());

        QTest::mouseClick(destroy, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QTest::mouseClick(popup.sandboxes().confirmation()->findChild<QPushButton *>(QStringLiteral("confirmDestroy")),
                          Qt::LeftButton);
        QCOMPARE(sandboxes.pendingId, QStringLiteral("sbx_a1b2c3"));
        auto *busy = child<QPushButton>(popup, QStringLiteral("destroy:sbx_a1b2c3"));
        QTRY_VERIFY_WITH_TIMEOUT(busy && busy->isVisible(), chat2sbx::test::scaled(5000));
        QVERIFY(!busy->isEnabled());
        sandboxes.finishDestroy(true);
        QTRY_COMPARE_WITH_TIMEOUT(popup.sandboxes().rowCount(), 0, chat2sbx::test::scaled(5000));
        QCOMPARE(sandboxes.destroyed, QStringList{QStringLiteral("sbx_a1b2c3")});
        saveScreenshot(popup, QStringLiteral("ui_popup_after_destroy"));
    }

    // Pause on a running sandbox: at once when nothing runs; while commands run they are named and
    // the user confirms first; an asleep sandbox has no Pause.
    void pauseNamesRunningCommandsFirst()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        SandboxRow busy;
        busy.id = QStringLiteral("sbx_busy");
        busy.name = QStringLiteral("thesis");
        busy.state = QStringLiteral("running");
        busy.runningCommands = 1;
        SandboxRow asleep;
        asleep.id = QStringLiteral("sbx_asleep");
        asleep.state = QStringLiteral("stopped");
        sandboxes.rows = {busy, asleep};
        sandboxes.runningIn = {QStringLiteral("npm test (bash_1)")};
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        settle();
        // Pause sits with a row's details: none while collapsed, none on an asleep row.
        QVERIFY(!popup.findChild<QPushButton *>(QStringLiteral("pause:sbx_busy")));
        QTest::mouseClick(child<QToolButton>(popup, QStringLiteral("expand:sbx_busy")), Qt::LeftButton);
        QTest::mouseClick(child<QToolButton>(popup, QStringLiteral("expand:sbx_asleep")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(popup.findChild<QPushButton *>(QStringLiteral("pause:sbx_busy")), chat2sbx::test::scaled(5000));
        QVERIFY(!popup.findChild<QPushButton *>(QStringLiteral("pause:sbx_asleep")));
        auto *pause = child<QPushButton>(popup, QStringLiteral("pause:sbx_busy"));
        QVERIFY(pause->accessibleName().contains(QLatin1String("thesis")));

        QTest::mouseClick(pause, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QMessageBox *box = popup.sandboxes().confirmation();
        QVERIFY2(box->informativeText().contains(QLatin1String("npm test (bash_1)")), qPrintable(box->informativeText()));
        saveScreenshot(*box, QStringLiteral("ui_popup_pause_confirmation"));
        QTest::mouseClick(box->findChild<QPushButton *>(QStringLiteral("cancelPause")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QCOMPARE(sandboxes.pauseCalls, QStringList{QStringLiteral("sbx_busy refuse")});
        QCOMPARE(sandboxes.rows.first().state, QStringLiteral("running"));

        QTest::mouseClick(child<QPushButton>(popup, QStringLiteral("pause:sbx_busy")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QTest::mouseClick(popup.sandboxes().confirmation()->findChild<QPushButton *>(QStringLiteral("confirmPause")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(sandboxes.pauseCalls.size(), 3, chat2sbx::test::scaled(5000));
        QCOMPARE(sandboxes.pauseCalls.last(), QStringLiteral("sbx_busy end"));
        QTRY_VERIFY_WITH_TIMEOUT(!popup.findChild<QPushButton *>(QStringLiteral("pause:sbx_busy")), chat2sbx::test::scaled(5000));
    }

    // A cloud sandbox says so on its line, with its size and when its time-to-live ends.
    void cloudRowsSayWhereAndUntilWhen()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        SandboxRow cloud;
        cloud.id = QStringLiteral("sbx_cloud");
        cloud.name = QStringLiteral("scratch-1");
        cloud.state = QStringLiteral("running");
        cloud.workspaceMode = QStringLiteral("managed");
        cloud.cloudSize = QStringLiteral("micro");
        cloud.expiresAtMs = fixedTime(14, 30);
        SandboxRow local = cloud;
        cloud.portLinks.append(PortLink{3000, {}, 0, QStringLiteral("https://p3000-scratch.cloud.example"), false, true});
        local.id = QStringLiteral("sbx_local");
        local.cloudSize.clear();
        local.expiresAtMs = 0;
        sandboxes.rows = {cloud, local};
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        settle();
        const QString cloudTitle = popup.findChild<QWidget *>(QStringLiteral("sandbox:sbx_cloud"))->findChild<QLabel *>(QStringLiteral("title"))->text();
        QVERIFY2(cloudTitle.contains(QStringLiteral("cloud micro · until 14:30")), qPrintable(cloudTitle));
        const QString localTitle = popup.findChild<QWidget *>(QStringLiteral("sandbox:sbx_local"))->findChild<QLabel *>(QStringLiteral("title"))->text();
        QVERIFY2(!localTitle.contains(QLatin1String("cloud")), qPrintable(localTitle));
        saveScreenshot(popup, QStringLiteral("ui_popup_cloud_row"));

        // Expanded, a running cloud sandbox can be extended; a local one has no time-to-live.
        QTest::mouseClick(child<QToolButton>(popup, QStringLiteral("expand:sbx_cloud")), Qt::LeftButton);
        QTest::mouseClick(child<QToolButton>(popup, QStringLiteral("expand:sbx_local")), Qt::LeftButton);
        settle();
        QVERIFY(!popup.findChild<QPushButton *>(QStringLiteral("extend:sbx_local")));
        QPushButton *extend = child<QPushButton>(popup, QStringLiteral("extend:sbx_cloud"));
        QVERIFY2(extend->accessibleName().contains(QLatin1String("scratch-1")) && extend->accessibleName().contains(QLatin1String("14:30")),
                 qPrintable(extend->accessibleName()));
        QTest::mouseClick(extend, Qt::LeftButton);
        settle();
        QCOMPARE(sandboxes.extendCalls, QStringList{QStringLiteral("sbx_cloud")});
        QVERIFY2(popup.sandboxes().message().contains(QLatin1String("now runs until")), qPrintable(popup.sandboxes().message()));
        // Moves: a cloud sandbox comes back; a local one goes to the cloud only when the user allows the cloud.
        QVERIFY(!popup.findChild<QPushButton *>(QStringLiteral("move:sbx_local")));
        QPushButton *bringBack = child<QPushButton>(popup, QStringLiteral("move:sbx_cloud"));
        QVERIFY2(bringBack->text().contains(QLatin1String("Bring back")), qPrintable(bringBack->text()));
        QTest::mouseClick(bringBack, Qt::LeftButton);
        settle();
        // Asked first: what moves, what stays behind.
        QVERIFY(popup.sandboxes().confirmation());
        QVERIFY2(popup.sandboxes().confirmation()->informativeText().contains(QLatin1String("stay behind")),
                 qPrintable(popup.sandboxes().confirmation()->informativeText()));
        QTest::mouseClick(popup.sandboxes().confirmation()->findChild<QPushButton *>(QStringLiteral("confirmMove")), Qt::LeftButton);
        settle();
        QCOMPARE(sandboxes.moveCalls, QStringList{QStringLiteral("sbx_cloud local end")});
        QVERIFY2(popup.sandboxes().message().contains(QLatin1String("runs on this computer")), qPrintable(popup.sandboxes().message()));
        sandboxes.rows[1].canMoveToCloud = true;
        sandboxes.rows[1].movingTo.clear();
        emit sandboxes.changed();
        settle();
        QPushButton *toCloud = child<QPushButton>(popup, QStringLiteral("move:sbx_local"));
        QVERIFY2(toCloud->text().contains(QLatin1String("cloud")) && toCloud->accessibleName().contains(QLatin1String("billed")),
                 qPrintable(toCloud->accessibleName()));
        sandboxes.rows[1].movingTo = QStringLiteral("cloud");
        emit sandboxes.changed();
        settle();
        const QString movingLine = popup.findChild<QWidget *>(QStringLiteral("sandbox:sbx_local"))->findChild<QLabel *>(QStringLiteral("title"))->text();
        QVERIFY2(movingLine.contains(QLatin1String("moving to Docker")), qPrintable(movingLine));
        QVERIFY(!child<QPushButton>(popup, QStringLiteral("move:sbx_local"))->isEnabled());
        saveScreenshot(popup, QStringLiteral("ui_popup_moving"));
        sandboxes.rows[1].movingTo.clear();
        emit sandboxes.changed();
        settle();
        // A public port: its URL in the line, Copy and Unpublish under the expanded row.
        const QString line = popup.findChild<QWidget *>(QStringLiteral("sandbox:sbx_cloud"))->findChild<QLabel *>(QStringLiteral("title"))->text();
        QVERIFY2(line.contains(QStringLiteral("3000→public URL")) && line.contains(QLatin1String("anyone can open it")), qPrintable(line));
        QTest::mouseClick(child<QPushButton>(popup, QStringLiteral("copyUrl:sbx_cloud:3000")), Qt::LeftButton);
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("https://p3000-scratch.cloud.example"));
        QTest::mouseClick(child<QPushButton>(popup, QStringLiteral("unpublish:sbx_cloud:3000")), Qt::LeftButton);
        settle();
        QCOMPARE(sandboxes.unpublishCalls, QStringList{QStringLiteral("sbx_cloud:3000")});
        QVERIFY(!popup.findChild<QPushButton *>(QStringLiteral("unpublish:sbx_local:3000")));
    }

    void checkpointsAreRestoredForkedAndDeletedFromTheirSandbox()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        SandboxRow row;
        row.id = QStringLiteral("sbx_c4e5f6");
        row.name = QStringLiteral("scratch-c4e5");
        row.workspace = QStringLiteral("scratch (ws_123)");
        row.workspaceMode = QStringLiteral("managed");
        row.state = QStringLiteral("stopped");
        row.forkedFrom = QStringLiteral("scratch-a1b2");
        row.checkpoints = {{QStringLiteral("ckp_one"), QStringLiteral("before the upgrade"), QStringLiteral("ready"), fixedTime(9, 0),
                            12 * 1024 * 1024, true},
                           {QStringLiteral("ckp_two"), QString(), QStringLiteral("saving"), fixedTime(9, 30), 0, false}};
        sandboxes.rows = {row};
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        auto *title = popup.findChild<QWidget *>(QStringLiteral("sandbox:sbx_c4e5f6"))->findChild<QLabel *>(QStringLiteral("title"));
        QVERIFY2(title->text().contains(QLatin1String("fork of scratch-a1b2")) && title->text().contains(QLatin1String("2 checkpoints")),
                 qPrintable(title->text()));
        QVERIFY(!popup.findChild<QPushButton *>(QStringLiteral("restore:ckp_one")));   // folded away until expanded
        QTest::mouseClick(child<QToolButton>(popup, QStringLiteral("expand:sbx_c4e5f6")), Qt::LeftButton);
        auto *line = child<QLabel>(popup, QStringLiteral("checkpoint:ckp_one"));
        QTRY_VERIFY_WITH_TIMEOUT(line && line->isVisible(), chat2sbx::test::scaled(5000));
        QVERIFY2(line->text().contains(QLatin1String("before the upgrade")) && line->text().contains(QLatin1String("12.0 MiB"))
                     && line->text().contains(QLatin1String("pinned")),
                 qPrintable(line->text()));
        QVERIFY(child<QLabel>(popup, QStringLiteral("checkpoint:ckp_two"))->text().contains(QLatin1String("saving")));
        QVERIFY(!popup.findChild<QPushButton *>(QStringLiteral("restore:ckp_two")));   // not ready yet
        auto *restore = child<QPushButton>(popup, QStringLiteral("restore:ckp_one"));
        QVERIFY(restore->isEnabled() && restore->accessibleName().contains(QLatin1String("scratch-c4e5")));
        saveScreenshot(popup, QStringLiteral("ui_popup_checkpoints"));

        QTest::mouseClick(restore, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QVERIFY(popup.sandboxes().confirmation()->informativeText().contains(QLatin1String("undone")));
        QTest::mouseClick(popup.sandboxes().confirmation()->findChild<QPushButton *>(QStringLiteral("cancelRestore")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QVERIFY(sandboxes.checkpointCalls.isEmpty());
        QTest::mouseClick(child<QPushButton>(popup, QStringLiteral("restore:ckp_one")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QTest::mouseClick(popup.sandboxes().confirmation()->findChild<QPushButton *>(QStringLiteral("confirmRestore")), Qt::LeftButton);
        QCOMPARE(sandboxes.checkpointCalls, QStringList{QStringLiteral("restore sbx_c4e5f6 ckp_one")});

        QTRY_VERIFY_WITH_TIMEOUT(!popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QTest::mouseClick(child<QPushButton>(popup, QStringLiteral("fork:ckp_one")), Qt::LeftButton);
        QCOMPARE(sandboxes.checkpointCalls.last(), QStringLiteral("fork ckp_one"));
        QTRY_COMPARE_WITH_TIMEOUT(popup.sandboxes().message(), QStringLiteral("forked as sbx_fork"), chat2sbx::test::scaled(5000));

        QTest::mouseClick(child<QPushButton>(popup, QStringLiteral("deleteCheckpoint:ckp_one")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(popup.sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QTest::mouseClick(popup.sandboxes().confirmation()->findChild<QPushButton *>(QStringLiteral("confirmDeleteCheckpoint")),
                          Qt::LeftButton);
        QCOMPARE(sandboxes.checkpointCalls.last(), QStringLiteral("delete ckp_one"));
    }

    // A sandbox in the cloud: its cloud checkpoints say so (and whether memory is kept); one saved
    // on this computer before the move cannot be restored there, and the button says why.
    void cloudCheckpointsSayWhereTheyAre()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        SandboxRow row;
        row.id = QStringLiteral("sbx_d7e8f9");
        row.name = QStringLiteral("scratch-d7e8");
        row.workspace = QStringLiteral("scratch in the cloud");
        row.workspaceMode = QStringLiteral("managed");
        row.state = QStringLiteral("running");
        row.cloudSize = QStringLiteral("small");
        row.checkpoints = {{QStringLiteral("ckp_here"), QStringLiteral("before the move"), QStringLiteral("ready"), fixedTime(9, 0),
                            12 * 1024 * 1024, false, false, false},
                           {QStringLiteral("ckp_mem"), QStringLiteral("server running"), QStringLiteral("ready"), fixedTime(9, 30),
                            qint64(6) << 30, false, true, true}};
        sandboxes.rows = {row};
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        QTest::mouseClick(child<QToolButton>(popup, QStringLiteral("expand:sbx_d7e8f9")), Qt::LeftButton);
        auto *memory = child<QLabel>(popup, QStringLiteral("checkpoint:ckp_mem"));
        QTRY_VERIFY_WITH_TIMEOUT(memory && memory->isVisible(), chat2sbx::test::scaled(5000));
        QVERIFY2(memory->text().contains(QLatin1String("in the cloud, with memory")), qPrintable(memory->text()));
        QVERIFY(!child<QLabel>(popup, QStringLiteral("checkpoint:ckp_here"))->text().contains(QLatin1String("cloud")));
        QVERIFY(child<QPushButton>(popup, QStringLiteral("restore:ckp_mem"))->isEnabled());
        auto *across = child<QPushButton>(popup, QStringLiteral("restore:ckp_here"));
        QVERIFY(!across->isEnabled());
        QVERIFY2(across->toolTip().contains(QLatin1String("bring it back first")), qPrintable(across->toolTip()));
        QVERIFY(child<QPushButton>(popup, QStringLiteral("fork:ckp_here"))->isEnabled());
        saveScreenshot(popup, QStringLiteral("ui_popup_cloud_checkpoints"));
    }

    void statusFollowsModel()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        popup.header().setDetailsShown(true);   // the user opens the Status part
        QCOMPARE(child<QLabel>(popup, QStringLiteral("endpoint"))->text(), QStringLiteral("http://127.0.0.1:18788/mcp"));
        QCOMPARE(child<QLabel>(popup, QStringLiteral("tunnel"))->text(), QStringLiteral("connected"));
        QCOMPARE(child<QLabel>(popup, QStringLiteral("active"))->text(), QStringLiteral("1 active / limit 3, 0 warm"));
        QVERIFY(!child<QLabel>(popup, QStringLiteral("tunnelError"))->isVisible());

        StatusInfo s = status.info;
        s.tunnel = StatusInfo::Tunnel::Failed;
        s.tunnelError = QStringLiteral("tunnel-client exited with code 1: invalid api key");
        s.sandboxLimit = QStringLiteral("unlimited");
        status.set(s);
        QCOMPARE(child<QLabel>(popup, QStringLiteral("tunnel"))->text(), QStringLiteral("failed"));
        QVERIFY(child<QLabel>(popup, QStringLiteral("tunnelError"))->isVisible());
        QVERIFY(child<QLabel>(popup, QStringLiteral("tunnelError"))->text().contains(QLatin1String("invalid api key")));
        QCOMPARE(child<QLabel>(popup, QStringLiteral("active"))->text(), QStringLiteral("1 active / limit unlimited, 0 warm"));
        // Cloud sandboxes are counted apart once there are any.
        s.activeSandboxes = 3;
        s.cloudActiveSandboxes = 2;
        s.cloudWarmSandboxes = 1;
        status.set(s);
        QCOMPARE(child<QLabel>(popup, QStringLiteral("active"))->text(),
                 QStringLiteral("3 active (2 in the cloud) / limit unlimited, 0 warm + 1 in the cloud"));
        s.activeSandboxes = 1;
        s.cloudActiveSandboxes = s.cloudWarmSandboxes = 0;
        status.set(s);
        QCOMPARE(trayStateOf(s), TrayState::Error);
        saveScreenshot(popup, QStringLiteral("ui_popup_tunnel_failed"));

        // ChatGPT never set up (no tunnel id and key given): an optional step, so nothing is red.
        s.tunnel = StatusInfo::Tunnel::NotSetUp;
        s.tunnelError = QStringLiteral("no tunnel credentials in the OS keychain either");
        status.set(s);
        const OverallState notSetUp = overallState(s);
        QCOMPARE(notSetUp.text, QStringLiteral("Ready · ChatGPT not connected yet"));
        QVERIFY(notSetUp.tone != Tone::Error);
        QVERIFY(trayStateOf(s) != TrayState::Error);
        QCOMPARE(child<QLabel>(popup, QStringLiteral("tunnel"))->text(), QStringLiteral("not set up yet (local-only)"));
    }

    void keyboard()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        approvals.rows = {{QStringLiteral("apr_k"), QStringLiteral("/srv/repo"), QStringLiteral("clone"), fixedTime(9, 0)}};
        SandboxRow row;
        row.id = QStringLiteral("sbx_k");
        row.state = QStringLiteral("running");
        sandboxes.rows = {row};
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowActive(&popup));
        auto *approve = child<QPushButton>(popup, QStringLiteral("approve:apr_k"));
        auto *reject = child<QPushButton>(popup, QStringLiteral("reject:apr_k"));
        auto *destroy = child<QPushButton>(popup, QStringLiteral("destroy:sbx_k"));
        auto *copy = child<QPushButton>(popup, QStringLiteral("copyUrl"));
        approve->setFocus();
        QCOMPARE(approve->nextInFocusChain(), reject);
        // A sandbox row: its details expander, then Destroy.
        auto *expand = child<QToolButton>(popup, QStringLiteral("expand:sbx_k"));
        QCOMPARE(reject->nextInFocusChain(), expand);
        QCOMPARE(expand->nextInFocusChain(), destroy);
        // Rows rebuilt after a change keep the visual order.
        approvals.add({QStringLiteral("apr_k2"), QStringLiteral("/srv/other"), QStringLiteral("direct"), fixedTime(9, 5)});
        auto *reject2 = child<QPushButton>(popup, QStringLiteral("reject:apr_k2"));
        auto *destroy2 = child<QPushButton>(popup, QStringLiteral("destroy:sbx_k"));
        QVERIFY(reject2 && destroy2);
        QCOMPARE(reject2->nextInFocusChain()->nextInFocusChain(), destroy2);
        // Expanded, a running row's Pause follows Destroy, as it is drawn below it.
        QTest::mouseClick(child<QToolButton>(popup, QStringLiteral("expand:sbx_k")), Qt::LeftButton);
        auto *destroy3 = child<QPushButton>(popup, QStringLiteral("destroy:sbx_k"));
        QTRY_VERIFY_WITH_TIMEOUT(popup.findChild<QPushButton *>(QStringLiteral("pause:sbx_k")), chat2sbx::test::scaled(5000));
        QCOMPARE(destroy3->nextInFocusChain(), child<QPushButton>(popup, QStringLiteral("pause:sbx_k")));
        QVERIFY(copy->focusPolicy() & Qt::TabFocus);

        QTest::keyClick(&popup, Qt::Key_Escape);
        QVERIFY(!popup.isVisible());
    }

    // Drivable without a mouse or eyes: every control the popup shows (the first-run guide, an
    // approval, a sandbox, the header, Status) has an accessible role and name, and Tab walks them
    // in the order they are drawn, top to bottom.
    void everyControlHasARoleANameAndVisualTabOrder()
    {
        FakeApprovals approvals;
        approvals.rows = {{QStringLiteral("apr_a"), QStringLiteral("/srv/repo"), QStringLiteral("clone"), fixedTime(9, 0)}};
        FakeSandboxes sandboxes;
        SandboxRow row;
        row.id = QStringLiteral("sbx_3f9c1a7e52b04d8e9a61c0b2");
        row.name = QStringLiteral("repo-3f9c");
        row.state = QStringLiteral("running");
        sandboxes.rows = {row};
        FakeStatus status;
        status.info = runningStatus();
        status.info.setupNeeded = true;
        status.info.checklist = {{QStringLiteral("sbx"), QStringLiteral("done"), QStringLiteral("Docker Sandboxes installed"), {}, {}},
                                 {QStringLiteral("login"), QStringLiteral("to do"), QStringLiteral("Signed in to Docker"),
                                  QStringLiteral("Run `sbx login`"), QStringLiteral("sbx login")},
                                 {QStringLiteral("template"), QStringLiteral("blocked"), QStringLiteral("Sandbox template prepared"),
                                  QStringLiteral("after signing in"), QStringLiteral("chat2sbx setup")}};
        PopupWindow popup(approvals, sandboxes, status);
        popup.header().setDetailsShown(true);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowActive(&popup));
        settle();
        QList<QWidget *> controls;
        for (QWidget *w : popup.findChildren<QWidget *>()) {
            if (!w->isVisible() || !(w->focusPolicy() & Qt::TabFocus))
                continue;
            QAccessibleInterface *a = QAccessible::queryAccessibleInterface(w);
            QVERIFY2(a, qPrintable(w->objectName()));
            // A label with links takes the keyboard for them: it reads as text; the rest are buttons.
            QVERIFY2(a->role() == QAccessible::Button || a->role() == QAccessible::CheckBox || a->role() == QAccessible::StaticText,
                     qPrintable(QStringLiteral("%1: role %2").arg(w->objectName()).arg(int(a->role()))));
            QVERIFY2(!a->text(QAccessible::Name).trimmed().isEmpty(), qPrintable(w->objectName() + QStringLiteral(" has no name")));
            if (a->role() != QAccessible::StaticText)
                controls << w;
        }
        QVERIFY2(controls.size() >= 6, qPrintable(QString::number(controls.size())));
        QVERIFY(child<QPushButton>(popup, QStringLiteral("copy:login")));
        // Tab from the first control visits each one, top to bottom (left to right on a line).
        QWidget *first = popup.header().detailsButton();
        first->setFocus();
        QList<QWidget *> visited{first};
        for (QWidget *w = first->nextInFocusChain(); w != first && visited.size() < 200; w = w->nextInFocusChain())
            if (controls.contains(w))
                visited << w;
        QCOMPARE(visited.size(), controls.size());
        auto at = [&popup](QWidget *w) { return w->mapTo(&popup, QPoint(0, 0)); };
        for (int i = 2; i < visited.size(); ++i) {   // after the header's Details, top to bottom
            const QPoint a = at(visited.at(i - 1)), b = at(visited.at(i));
            QVERIFY2(a.y() < b.y() + 4 && (a.y() + 4 < b.y() || a.x() < b.x()),
                     qPrintable(visited.at(i - 1)->objectName() + QStringLiteral(" before ") + visited.at(i)->objectName()));
        }
    }

    void trayIconStatesAndMenu()
    {
        QTemporaryDir dir;
        qputenv("XDG_CONFIG_HOME", (dir.path() + QStringLiteral("/config")).toUtf8());
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        TrayApp tray(approvals, sandboxes, status,
                     TrayPaths{dir.path() + QStringLiteral("/data"), dir.path() + QStringLiteral("/data/AGENTS.md"),
                               QStringLiteral("/opt/chat2sbx dir/bin/chat2sbx")});
        QCOMPARE(tray.state(), TrayState::Stopped);
        QVERIFY(!tray.trayIcon().icon().isNull());
        StatusInfo s = runningStatus();
        s.tunnel = StatusInfo::Tunnel::Disabled;
        status.set(s);
        QCOMPARE(tray.state(), TrayState::LocalOnly);
        s.tunnel = StatusInfo::Tunnel::Connected;
        status.set(s);
        QCOMPARE(tray.state(), TrayState::TunnelReady);
        s.server = StatusInfo::Server::Failed;
        status.set(s);
        QCOMPARE(tray.state(), TrayState::Error);

        QSignalSpy notified(&tray, &TrayApp::notified);
        approvals.add({QStringLiteral("apr_n"), QStringLiteral("/srv/repo"), QStringLiteral("clone"), fixedTime(9, 0)});
        QCOMPARE(tray.pendingApprovals(), 1);
        QCOMPARE(notified.size(), 1);
        QVERIFY(notified.at(0).at(1).toString().contains(QLatin1String("/srv/repo")));
        QVERIFY(tray.trayIcon().toolTip().contains(QLatin1String("1 approval pending")));
        // Clicking the notification opens the popup.
        emit tray.trayIcon().messageClicked();
        QVERIFY(tray.popup().isVisible());
        tray.popup().hide();

        for (const char *name : {"openPopup", "editInstructions", "openDataFolder", "copyUrl", "startAtLogin", "quit"})
            QVERIFY2(tray.action(QLatin1String(name)), name);
        QVERIFY(tray.action(QStringLiteral("quit"))->text().contains(QLatin1Char('&')));
        QSignalSpy quit(&tray, &TrayApp::quitRequested);
        tray.action(QStringLiteral("quit"))->trigger();
        QCOMPARE(quit.size(), 1);

        tray.action(QStringLiteral("copyUrl"))->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), s.endpointUrl);

        // Start at login writes and removes the XDG autostart entry.
        const QString entry = dir.path() + QStringLiteral("/config/autostart/chat2sbx.desktop");
        QCOMPARE(Autostart::entryPath(), entry);
        tray.action(QStringLiteral("startAtLogin"))->trigger();
        QVERIFY(QFile::exists(entry));
        QVERIFY(tray.action(QStringLiteral("startAtLogin"))->isChecked());
        const QByteArray text = chat2sbx::test::readFile(entry);
        QVERIFY2(text.contains("Exec=\"/opt/chat2sbx dir/bin/chat2sbx\" tray\n"), text.constData());
        QVERIFY(text.startsWith("[Desktop Entry]\n"));
        tray.action(QStringLiteral("startAtLogin"))->trigger();
        QVERIFY(!QFile::exists(entry));
        QVERIFY(!tray.action(QStringLiteral("startAtLogin"))->isChecked());
        qunsetenv("XDG_CONFIG_HOME");
    }

    // A burst of approval requests is two notifications, not one per request.
    void approvalNotificationsAreCoalesced()
    {
        QTemporaryDir dir;
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        TrayApp tray(approvals, sandboxes, status,
                     TrayPaths{dir.path() + QStringLiteral("/data"), dir.path() + QStringLiteral("/data/AGENTS.md"), QString()});
        tray.setApprovalNoticeWindow(300);
        QSignalSpy notified(&tray, &TrayApp::notified);
        for (int i = 0; i < 40; ++i)   // (each request re-reads the popup's list: keep the burst small here)
            approvals.add({QStringLiteral("apr_%1").arg(i), QStringLiteral("/srv/r%1").arg(i), QStringLiteral("direct"), fixedTime(9, 0)});
        QCOMPARE(notified.size(), 1);
        QVERIFY(notified.at(0).at(1).toString().contains(QLatin1String("/srv/r0")));
        QTRY_COMPARE_WITH_TIMEOUT(notified.size(), 2, chat2sbx::test::scaled(5000));
        QVERIFY2(notified.at(1).at(1).toString().startsWith(QLatin1String("39 more workspace requests are waiting")),
                 qPrintable(notified.at(1).at(1).toString()));
        QTest::qWait(700);
        QCOMPARE(notified.size(), 2);   // nothing more to say
        // A later request, after a quiet window, is shown with its path again.
        approvals.add({QStringLiteral("apr_late"), QStringLiteral("/srv/late"), QStringLiteral("clone"), fixedTime(9, 5)});
        QCOMPARE(notified.size(), 3);
        QVERIFY(notified.at(2).at(1).toString().contains(QLatin1String("/srv/late")));
    }

    void globalInstructionsFromExample()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + QStringLiteral("/data/AGENTS.md");
        QString error;
        QVERIFY2(ensureGlobalInstructions(path, error), qPrintable(error));
        const QByteArray text = chat2sbx::test::readFile(path);
        QVERIFY(text.contains("advisory"));
        QVERIFY(text.contains("~/workspace"));
        chat2sbx::test::writeFile(path, "mine\n");
        QVERIFY(ensureGlobalInstructions(path, error));
        QCOMPARE(chat2sbx::test::readFile(path), QByteArray("mine\n"));
    }

    void fullPopupScreenshot()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus status;
        status.info = runningStatus();
        approvals.rows = {{QStringLiteral("apr_7Qm2x9"), QStringLiteral("/home/alex/src/webshop"), QStringLiteral("clone"), fixedTime(17, 32)},
                          {QStringLiteral("apr_k3Lp0a"), QStringLiteral("/home/alex/Documents/thesis"), QStringLiteral("direct"), fixedTime(17, 40)}};
        SandboxRow a;
        a.id = QStringLiteral("sbx_Hq81vT");
        a.workspace = QStringLiteral("webshop (ws_Y2b7)");
        a.state = QStringLiteral("running");
        a.memory = QStringLiteral("4g");
        a.idleDeadlineMs = fixedTime(23, 10);
        a.ports = {QStringLiteral("3000 → 127.0.0.1:49153"), QStringLiteral("5432 → 127.0.0.1:49154")};
        SandboxRow b;
        b.id = QStringLiteral("sbx_p0Ze4c");
        b.workspace = QStringLiteral("scratch (ws_Mn3q)");
        b.state = QStringLiteral("creating");
        sandboxes.rows = {a, b};
        PopupWindow popup(approvals, sandboxes, status);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        QCoreApplication::processEvents();
        // Nothing clipped: every card's labels get their full height.
        for (QLabel *l : popup.findChildren<QLabel *>())
            if (l->isVisible() && !l->text().isEmpty() && l->wordWrap())
                QVERIFY2(l->height() >= l->heightForWidth(l->width()), qPrintable(l->text()));
        for (QPushButton *button : popup.findChildren<QPushButton *>())
            if (button->isVisible())
                QVERIFY2(button->width() >= button->sizeHint().width() && button->height() >= button->sizeHint().height(),
                         qPrintable(button->text()));
        const QString scale = qEnvironmentVariable("QT_SCALE_FACTOR");
        QVERIFY(!saveScreenshot(popup, scale.isEmpty() ? QStringLiteral("ui_popup") : QStringLiteral("ui_popup_scale") + scale).isEmpty());
    }

    // A light and a dark high-contrast theme: every tone, and every line the popup shows, reaches
    // WCAG's 4.5:1 against the popup's background (the tones follow the palette).
    void readableOnLightAndDarkHighContrastPalettes()
    {
        const QPalette original = QApplication::palette();
        for (const bool dark : {false, true}) {
            QPalette p;
            const QColor bg = dark ? QColor(Qt::black) : QColor(Qt::white);
            const QColor fg = dark ? QColor(Qt::white) : QColor(Qt::black);
            for (const auto role : {QPalette::Window, QPalette::Base, QPalette::Button})
                p.setColor(role, bg);
            for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
                p.setColor(role, fg);
            QApplication::setPalette(p);
            for (const Tone t : {Tone::Error, Tone::Warning, Tone::Success, Tone::Muted})
                QVERIFY2(contrastRatio(QColor(toneColour(t)), bg) >= 4.5, qPrintable(toneColour(t)));

            FakeApprovals approvals;
            FakeSandboxes sandboxes;
            FakeStatus status;
            status.info = runningStatus();
            status.info.tunnel = StatusInfo::Tunnel::Unauthorized;   // an error line in the status
            approvals.rows = {{QStringLiteral("apr_7Qm2x9"), QStringLiteral("/home/alex/src/webshop"), QStringLiteral("direct"), fixedTime(17, 32)}};
            SandboxRow a;
            a.id = QStringLiteral("sbx_Hq81vT");
            a.workspace = QStringLiteral("webshop (ws_Y2b7)");
            a.state = QStringLiteral("failed");
            sandboxes.rows = {a};
            PopupWindow popup(approvals, sandboxes, status);
            popup.showNear({});
            QVERIFY(QTest::qWaitForWindowExposed(&popup));
            settle();
            const QRegularExpression colour(QStringLiteral("color:\\s*(#[0-9a-fA-F]{6})"));
            int checked = 0;
            for (QLabel *l : popup.findChildren<QLabel *>()) {
                if (!l->isVisible() || l->text().isEmpty())
                    continue;
                QColor text = l->palette().color(QPalette::WindowText);
                const QRegularExpressionMatch sheet = colour.match(l->styleSheet());
                if (sheet.hasMatch())
                    text = QColor(sheet.captured(1));
                QVERIFY2(contrastRatio(text, bg) >= 4.5, qPrintable(text.name() + QLatin1Char(' ') + l->text()));
                for (auto it = colour.globalMatch(l->text()); it.hasNext();) {
                    const QColor inline_(it.next().captured(1));
                    QVERIFY2(contrastRatio(inline_, bg) >= 4.5, qPrintable(inline_.name() + QLatin1Char(' ') + l->text()));
                }
                ++checked;
            }
            QVERIFY(checked >= 5);
            saveScreenshot(popup, dark ? QStringLiteral("ui_popup_high_contrast_dark") : QStringLiteral("ui_popup_high_contrast_light"));
        }
        QApplication::setPalette(original);
    }

    // Every section the tray shows, filled as on a busy afternoon: the README's picture of the popup
    // (docs/screenshots/popup.png is a copy of ui_popup_every_section.png).
    void everySectionScreenshot()
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const QString shop = QStringLiteral("sbx_3f9c1a7e52b04d8e9a61c0b2");
        const QString notes = QStringLiteral("sbx_81d0e4c9a3f2476b5e0d19c8");
        FakeApprovals approvals;
        approvals.rows = {{QStringLiteral("apr_k3Lp0a"), QStringLiteral("/home/alex/Documents/thesis"), QStringLiteral("direct"), now - 40000}};
        FakeSandboxes sandboxes;
        SandboxRow a;
        a.id = shop;
        a.name = QStringLiteral("webshop-3f9c");
        a.workspace = QStringLiteral("webshop");
        a.workspaceMode = QStringLiteral("clone");
        a.hostPath = QStringLiteral("/home/alex/src/webshop");
        a.state = QStringLiteral("running");
        a.runningCommands = 1;
        a.ports = {QStringLiteral("5173 → 127.0.0.1:49153")};
        SandboxRow b;
        b.id = notes;
        b.name = QStringLiteral("scratch-81d0");
        b.workspace = QStringLiteral("scratch");
        b.workspaceMode = QStringLiteral("managed");
        b.state = QStringLiteral("stopped");
        b.sleptAtMs = now - 600000;
        sandboxes.rows = {a, b};
        FakeStatus status;
        status.info = runningStatus();
        status.info.activeSandboxes = 2;
        status.info.tunnel = StatusInfo::Tunnel::Connected;
        status.info.sbx = QStringLiteral("sbx v0.47.0, signed in, template chat2sbx-shell:0.1.0 present");
        FakeActivity activity;
        activity.rows << RunningCommandRow{shop, QStringLiteral("bash_aaaaaaaaaaaaaaaaaaaaaaaa"), QStringLiteral("npm run dev"), now - 95000,
                                           {QStringLiteral("ready in 812 ms"), QStringLiteral("➜  Local: http://localhost:5173/")},
                                           QStringLiteral("webshop-3f9c")};
        activity.calls << ToolCallRow{now - 2000, QStringLiteral("openai-mcp"), QStringLiteral("bash"), shop,
                                      QStringLiteral("npm test"), QStringLiteral("ok"), 4120, {}, {}, QStringLiteral("webshop-3f9c")}
                       << ToolCallRow{now - 9000, QStringLiteral("openai-mcp"), QStringLiteral("edit"), shop,
                                      QStringLiteral("src/cart.ts"), QStringLiteral("ok"), 38, {}, {}, QStringLiteral("webshop-3f9c")}
                       << ToolCallRow{now - 15000, QStringLiteral("openai-mcp"), QStringLiteral("network_request"), shop,
                                      QStringLiteral("registry.npmjs.org"), QStringLiteral("ok"), 3, {}, {}, QStringLiteral("webshop-3f9c")};
        FakeWorkspaces workspaces;
        workspaces.rows = {{QStringLiteral("ws_5b2e9d0c7a1f4e3b8c6d2a90"), QStringLiteral("webshop"), QStringLiteral("clone"),
                            QStringLiteral("/home/alex/src/webshop"), {{shop, QStringLiteral("running")}}},
                           {QStringLiteral("ws_0c4a7e1b9d2f5a8c3e6b1d47"), QStringLiteral("scratch"), QStringLiteral("managed"), {},
                            {{notes, QStringLiteral("stopped")}}}};
        workspaces.summaries.insert(shop, QStringLiteral("2 commits · 3 files +48 −7"));
        FakeNetwork network;
        network.requests = {{QStringLiteral("net_7d1e0a9c4b3f2e8d5a6c1b09"), shop, {QStringLiteral("registry.npmjs.org")},
                             QStringLiteral("npm install needs the package registry"), QStringLiteral("openai-mcp"), now - 15000,
                             QStringLiteral("webshop-3f9c")}};
        network.blockedRows = {{shop, {QStringLiteral("fonts.googleapis.com")}, QStringLiteral("webshop-3f9c")}};
        network.rules = {{1, QStringLiteral("pypi.org")}};

        PopupWindow popup(approvals, sandboxes, status);
        popup.setActivityModel(activity);
        popup.addWorkspaces(workspaces);
        popup.addNetwork(network);
        popup.showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&popup));
        QCoreApplication::processEvents();
        QCOMPARE(popup.approvals().rowCount(), 1);
        QCOMPARE(popup.activity()->runningCount(), 1);
        QCOMPARE(popup.activity()->callCount(), 3);
        QCOMPARE(popup.workspaces()->rowCount(), 2);
        // A scratch folder is named by the sandbox that uses it, not by its ws_ id.
        auto *trash = popup.findChild<QPushButton *>(QStringLiteral("revoke:ws_0c4a7e1b9d2f5a8c3e6b1d47"));
        QVERIFY(trash);
        QVERIFY2(!trash->accessibleName().contains(QLatin1String("ws_")) && trash->accessibleName().startsWith(QLatin1String("Move the scratch folder of ")),
                 qPrintable(trash->accessibleName()));
        QVERIFY(popup.findChild<QWidget *>(QStringLiteral("networkRequest:net_7d1e0a9c4b3f2e8d5a6c1b09")));
        QVERIFY(popup.findChild<QWidget *>(QStringLiteral("blocked:") + shop));
        QVERIFY(popup.findChild<QWidget *>(QStringLiteral("alwaysRules")));
        auto *changes = popup.findChild<QLabel *>(QStringLiteral("changes:") + shop);
        QVERIFY(changes);
        QVERIFY2(changes->text().contains(QStringLiteral("2 commits")), qPrintable(changes->text()));
        for (QLabel *l : popup.findChildren<QLabel *>())
            if (l->isVisible() && !l->text().isEmpty() && l->wordWrap())
                QVERIFY2(l->height() >= l->heightForWidth(l->width()), qPrintable(l->text()));
        QVERIFY(!saveScreenshot(popup, QStringLiteral("ui_popup_every_section_scrolled")).isEmpty());
        // The whole content at once, as on a tall screen (the offscreen one is 800 px high).
        auto *scroll = popup.findChild<QScrollArea *>();
        QVERIFY(scroll && scroll->widget());
        const int chrome = popup.height() - scroll->viewport()->height();
        QWidget *content = scroll->widget();
        const int contentHeight = content->hasHeightForWidth() ? content->heightForWidth(scroll->viewport()->width())
                                                               : content->sizeHint().height();
        QVERIFY2(popup.height() <= PopupWindow::kMaxHeight, qPrintable(QString::number(popup.height())));
        popup.setFixedHeight(contentHeight + chrome);
        QCoreApplication::processEvents();
        QVERIFY(!scroll->verticalScrollBar()->isVisible());
        QVERIFY(!saveScreenshot(popup, QStringLiteral("ui_popup_every_section")).isEmpty());
    }

    // The same popup at 200%: this executable again, QT_SCALE_FACTOR=2 set before its QApplication.
    void fullPopupScreenshotAt200Percent()
    {
        if (!qEnvironmentVariableIsEmpty("QT_SCALE_FACTOR"))
            QSKIP("already the scaled run");
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_SCALE_FACTOR"), QStringLiteral("2"));
        // A 2560x1600 offscreen screen, so the whole popup fits at 200% (the default 800x600 would scroll).
        QTemporaryDir dir;
        const QString screens = dir.path() + QStringLiteral("/screens.json");
        QVERIFY(chat2sbx::test::writeFile(screens, R"({"screens":[{"name":"big","x":0,"y":0,"width":2560,"height":1600,)"
                                                   R"("logicalDpi":96,"logicalBaseDpi":96,"dpr":1}]})"));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen:configfile=") + screens);
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::ForwardedChannels);
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("fullPopupScreenshot")});
        QVERIFY(child.waitForFinished(60000));
        QCOMPARE(child.exitStatus(), QProcess::NormalExit);
        QCOMPARE(child.exitCode(), 0);
        QVERIFY(QFile::exists(screenshotDir() + QStringLiteral("/ui_popup_scale2.png")));
    }
};

QTEST_MAIN(TestUiPopup)
#include "tst_ui_popup.moc"
