// The popup's trust views over in-memory models: compact sandbox rows (10 of them, the Status part
// still in view), a direct-mode row saying it writes to the host folder, exposed ports as links with
// LAN-wide ones marked, the Activity view with running commands (Stop) and recent tool calls, and the
// Destroy confirmation counting running commands. Screenshots go to <build>/test-output/screenshots/.
#include "ui_popup_fakes.h"

#include "models/ActivityModel.h"
#include "popup/ActivitySection.h"
#include "popup/PopupHeader.h"
#include "popup/PopupWindow.h"
#include "popup/SandboxesSection.h"
#include "popup/StatusSection.h"
#include "TestSupport.h"

#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QTest>
#include <QToolButton>

using namespace chat2sbx;
using namespace chat2sbx::ui;
using namespace chat2sbx::ui::test;

namespace {

QString save(QWidget &w, const QString &name)
{
    const QString base = chat2sbx::test::binaryDir().isEmpty() ? QDir::currentPath() : chat2sbx::test::binaryDir();
    const QString dir = base + QStringLiteral("/test-output/screenshots");
    QDir().mkpath(dir);
    const QString path = dir + QLatin1Char('/') + name + QStringLiteral(".png");
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
    const bool ok = w.grab().save(path);
    qInfo().noquote() << "screenshot:" << path << (ok ? "" : "(could not save)");
    return ok ? path : QString();
}

void settle()
{
    for (int i = 0; i < 3; ++i) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCoreApplication::processEvents();
    }
}

SandboxRow sandbox(int i, const QString &mode = QStringLiteral("managed"))
{
    SandboxRow r;
    r.id = QStringLiteral("sbx_%1").arg(QString::number(0xa1b2c3d4e5f600 + i, 16).rightJustified(24, QLatin1Char('0')));
    r.workspace = QStringLiteral("project-%1 (ws_%2)").arg(i).arg(QString::number(i).rightJustified(24, QLatin1Char('0')));
    r.workspaceMode = mode;
    r.name = QStringLiteral("project-%1-%2").arg(i).arg(r.id.mid(4, 4));
    r.state = QStringLiteral("running");
    r.memory = QStringLiteral("4g");
    r.idleDeadlineMs = fixedTime(18, i);
    return r;
}

StatusInfo status(int active)
{
    StatusInfo s;
    s.server = StatusInfo::Server::Running;
    s.endpointUrl = QStringLiteral("http://127.0.0.1:18788/mcp");
    s.tunnel = StatusInfo::Tunnel::Connected;
    s.activeSandboxes = active;
    s.version = QStringLiteral(CHAT2SBX_VERSION);
    return s;
}

} // namespace

class UiTrustTest : public QObject {
    Q_OBJECT

private slots:
    void compactRowsWithTenSandboxesKeepStatusInView()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus st;
        st.info = status(10);
        for (int i = 0; i < 10; ++i)
            sandboxes.rows << sandbox(i, i == 2 ? QStringLiteral("clone") : QStringLiteral("managed"));
        sandboxes.rows[2].hostPath = QStringLiteral("/home/user/src/app");
        sandboxes.rows[0].portLinks << PortLink{8080, QStringLiteral("127.0.0.1"), 49152, QStringLiteral("http://127.0.0.1:49152/"), false};
        sandboxes.rows[0].ports << QStringLiteral("8080 → 127.0.0.1:49152");
        sandboxes.rows[1].portLinks << PortLink{3000, QStringLiteral("0.0.0.0"), 41000, QStringLiteral("http://127.0.0.1:41000/"), true};
        PopupWindow popup(approvals, sandboxes, st);
        popup.header().setDetailsShown(true);
        popup.show();
        settle();
        popup.setFixedHeight(600);   // a small screen: the rows scroll
        settle();
        QCOMPARE(popup.sandboxes().rowCount(), 10);
        save(popup, QStringLiteral("trust_ten_sandboxes"));
        // One line per sandbox: each card is at most about two text lines high when collapsed.
        const QList<QLabel *> titles = popup.sandboxes().findChildren<QLabel *>(QStringLiteral("title"));
        QCOMPARE(titles.size(), 10);
        const int lineHeight = popup.fontMetrics().height();
        for (QLabel *t : titles)
            QVERIFY2(t->height() <= lineHeight * 2 + 4, qPrintable(t->text()));
        for (QLabel *d : popup.sandboxes().findChildren<QLabel *>(QStringLiteral("detail")))
            QVERIFY(!d->isVisible());
        // Status is fully inside the window, below the scrolling rows.
        StatusSection &s = popup.status();
        QVERIFY(s.isVisible());
        const QRect inPopup(s.mapTo(&popup, QPoint(0, 0)), s.size());
        QVERIFY2(popup.rect().contains(inPopup), qPrintable(QStringLiteral("status %1,%2 %3x%4 in %5x%6").arg(inPopup.x()).arg(inPopup.y())
                                                                .arg(inPopup.width()).arg(inPopup.height()).arg(popup.width()).arg(popup.height())));
        QVERIFY(!popup.findChild<QScrollArea *>()->widget()->isAncestorOf(&s));
        // Ports are links; the LAN-wide one is marked.
        QVERIFY(titles.at(0)->text().contains(QStringLiteral("href=\"http://127.0.0.1:49152/\"")));
        QVERIFY(!titles.at(0)->text().contains(QStringLiteral("LAN-wide")));
        QVERIFY(titles.at(1)->text().contains(QStringLiteral("LAN-wide")));
        QVERIFY(titles.at(2)->text().contains(QStringLiteral("clone")));
        save(popup, QStringLiteral("trust_ten_sandboxes"));
    }

    void directModeRowSaysItWritesToTheHostFolder()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus st;
        st.info = status(2);
        sandboxes.rows << sandbox(1) << sandbox(2, QStringLiteral("direct"));
        sandboxes.rows[1].hostPath = QStringLiteral("/home/user/src/website");
        sandboxes.rows[1].runningCommands = 2;
        PopupWindow popup(approvals, sandboxes, st);
        popup.show();
        settle();
        QLabel *title = popup.findChild<QWidget *>(QStringLiteral("sandbox:") + sandboxes.rows[1].id)->findChild<QLabel *>(QStringLiteral("title"));
        QVERIFY(title->text().contains(QStringLiteral("direct: writes to /home/user/src/website")));
        QVERIFY(title->text().contains(QStringLiteral("2 commands running")));
        // Expand it: details appear.
        popup.findChild<QToolButton *>(QStringLiteral("expand:") + sandboxes.rows[1].id)->click();
        settle();
        QLabel *detail = popup.findChild<QWidget *>(QStringLiteral("sandbox:") + sandboxes.rows[1].id)->findChild<QLabel *>(QStringLiteral("detail"));
        QVERIFY(detail && detail->isVisible());
        QVERIFY(detail->text().contains(QStringLiteral("mode: direct — writes to /home/user/src/website")));
        save(popup, QStringLiteral("trust_direct_row"));
        // Destroy asks, saying how many commands still run.
        popup.findChild<QPushButton *>(QStringLiteral("destroy:") + sandboxes.rows[1].id)->click();
        QMessageBox *box = popup.sandboxes().confirmation();
        QVERIFY(box);
        QVERIFY2(box->informativeText().startsWith(QStringLiteral("2 commands are still running in it")), qPrintable(box->informativeText()));
        box->findChild<QPushButton *>(QStringLiteral("cancelDestroy"))->click();
    }

    void activityViewShowsRunningCommandsAndStops()
    {
        FakeApprovals approvals;
        FakeSandboxes sandboxes;
        FakeStatus st;
        st.info = status(1);
        sandboxes.rows << sandbox(1);
        FakeActivity activity;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        activity.rows << RunningCommandRow{sandboxes.rows[0].id, QStringLiteral("bash_aaaaaaaaaaaaaaaaaaaaaaaa"),
                                           QStringLiteral("npm run dev"), now - 95000, {QStringLiteral("ready in 812 ms"), QStringLiteral("➜  Local: http://localhost:5173/")}};
        activity.rows << RunningCommandRow{sandboxes.rows[0].id, QStringLiteral("bash_bbbbbbbbbbbbbbbbbbbbbbbb"),
                                           QStringLiteral("pytest -x tests/"), now - 12000, {QStringLiteral("tests/test_api.py::test_list PASSED")}};
        activity.calls << ToolCallRow{now - 2000, QStringLiteral("openai-mcp"), QStringLiteral("bash"), sandboxes.rows[0].id,
                                      QStringLiteral("pytest -x tests/"), QStringLiteral("ok"), 10012, {}}
                       << ToolCallRow{now - 9000, QStringLiteral("openai-mcp"), QStringLiteral("write"), sandboxes.rows[0].id,
                                      QStringLiteral("src/app.py"), QStringLiteral("ok"), 41, {}}
                       << ToolCallRow{now - 15000, QStringLiteral("openai-mcp"), QStringLiteral("sandbox_expose"), sandboxes.rows[0].id,
                                      QStringLiteral("port 7000 on 0.0.0.0:*"), QStringLiteral("error"), 2,
                                      QStringLiteral("the user must allow that first")};
        PopupWindow popup(approvals, sandboxes, st);
        popup.setActivityModel(activity);
        popup.show();
        settle();
        ActivitySection *section = popup.activity();
        QVERIFY(section);
        QVERIFY(activity.watching);
        QCOMPARE(section->runningCount(), 2);
        QCOMPARE(section->callCount(), 3);
        // Output updates in place.
        activity.rows[1].lastLines << QStringLiteral("tests/test_api.py::test_create PASSED");
        emit activity.changed();
        settle();
        QLabel *out = popup.findChild<QWidget *>(QStringLiteral("command:bash_bbbbbbbbbbbbbbbbbbbbbbbb"))->findChild<QLabel *>(QStringLiteral("commandOutput"));
        QVERIFY(out->text().contains(QStringLiteral("test_create PASSED")));
        save(popup, QStringLiteral("trust_activity"));
        popup.findChild<QPushButton *>(QStringLiteral("stop:bash_aaaaaaaaaaaaaaaaaaaaaaaa"))->click();
        settle();
        QCOMPARE(activity.stopped, QStringList{QStringLiteral("bash_aaaaaaaaaaaaaaaaaaaaaaaa")});
        QCOMPARE(section->runningCount(), 1);
        popup.hide();
        QVERIFY(!activity.watching);
    }
};

QTEST_MAIN(UiTrustTest)
#include "tst_ui_trust.moc"
