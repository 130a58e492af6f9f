// The Activity view over a real in-process Controller, the fake sbx and real MCP over HTTP: two bash
// commands started by the agent appear with their output updating live; Stop ends one (the helper
// kills its process group); the recent tool calls list shows the calls. Screenshots go to
// <build>/test-output/screenshots/.
#include "SandboxHarness.h"
#include "McpTestClient.h"
#include "tray_support.h"

#include "popup/ActivitySection.h"
#include "popup/PopupWindow.h"
#include "popup/SandboxesSection.h"
#include "bindings/ServiceModels.h"
#include "tray/TrayApp.h"
#include "runtime/Controller.h"

#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TrayActivityTest : public QObject {
    Q_OBJECT

private slots:
    void twoRunningCommandsLiveOutputAndStop()
    {
        TestEnvironment env;
        pointFakeSbxAt(env);
        Controller controller(env.config());
        ui::ServiceModels models = ui::makeServiceModels(controller);
        ui::TrayApp tray(*models.approvals, *models.sandboxes, *models.status,
                         ui::TrayPaths{env.dataRoot(), env.dataRoot() + QStringLiteral("/AGENTS.md"), chat2sbxBinary()});
        tray.setActivityModel(*models.activity);
        QSignalSpy started(&controller, &Controller::started);
        controller.start();
        QVERIFY(started.wait(30000));
        McpTestClient mcp(env.mcpUrl());
        QString error;
        QVERIFY2(mcp.open(&error), qPrintable(error));

        const QJsonObject created = mcp.callToolResult(QStringLiteral("sandbox_create"), {});
        const QString id = created.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(!id.isEmpty(), qPrintable(QJsonDocument(created).toJson()));
        auto startLoop = [&](const QString &tag) {
            const QJsonObject r = mcp.callToolResult(QStringLiteral("bash"),
                {{QStringLiteral("sandbox_id"), id},
                 {QStringLiteral("command"), QStringLiteral("i=0; while [ $i -lt 600 ]; do i=$((i+1)); echo %1-line-$i; sleep 0.1; done").arg(tag)},
                 {QStringLiteral("yield_time_ms"), 300}});
            return r.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("session_id")).toString();
        };
        const QString first = startLoop(QStringLiteral("alpha"));
        const QString second = startLoop(QStringLiteral("beta"));
        QVERIFY(!first.isEmpty() && !second.isEmpty());

        tray.openPopup();
        ui::ActivitySection *section = tray.popup().activity();
        QVERIFY(section);
        QVERIFY(waitFor([&] { return section->runningCount() == 2; }, 10000));
        auto outputOf = [&](const QString &session) {
            QWidget *card = tray.popup().findChild<QWidget *>(QStringLiteral("command:") + session);
            QLabel *l = card ? card->findChild<QLabel *>(QStringLiteral("commandOutput")) : nullptr;
            return l ? l->text() : QString();
        };
        QVERIFY2(waitFor([&] { return outputOf(first).contains("alpha-line-") && outputOf(second).contains("beta-line-"); }, 15000),
                 qPrintable(outputOf(first) + " | " + outputOf(second)));
        // Live: the shown lines move on while the popup is open.
        const QString before = outputOf(second);
        QVERIFY(waitFor([&] { return outputOf(second) != before; }, 10000));
        QVERIFY(section->callCount() >= 3);
        saveScreenshot(tray.popup(), QStringLiteral("tray_activity_two_running"));

        // The Destroy confirmation counts them.
        settleWidgets();
        tray.popup().findChild<QPushButton *>(QStringLiteral("destroy:") + id)->click();
        QMessageBox *box = tray.popup().sandboxes().confirmation();
        QVERIFY(box);
        QVERIFY2(box->informativeText().startsWith(QStringLiteral("2 commands are still running")), qPrintable(box->informativeText()));
        box->findChild<QPushButton *>(QStringLiteral("cancelDestroy"))->click();

        QPushButton *stop = tray.popup().findChild<QPushButton *>(QStringLiteral("stop:") + first);
        QVERIFY(stop);
        stop->click();
        QVERIFY(waitFor([&] { return section->runningCount() == 1; }, 15000));
        settleWidgets();
        QVERIFY(!tray.popup().findChild<QWidget *>(QStringLiteral("command:") + first));
        // The agent sees it stopped too.
        const QJsonObject polled = mcp.callToolResult(QStringLiteral("bash_poll"), {{QStringLiteral("sandbox_id"), id},
                                                                            {QStringLiteral("session_id"), first},
                                                                            {QStringLiteral("yield_time_ms"), 0}});
        QCOMPARE(polled.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("exited"));
        saveScreenshot(tray.popup(), QStringLiteral("tray_activity_after_stop"));

        mcp.callToolResult(QStringLiteral("bash_stop"), {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("session_id"), second}});
        tray.popup().hide();
        QSignalSpy stopped(&controller, &Controller::stopped);
        controller.stop();
        QVERIFY(stopped.wait(15000));
    }
};

QTEST_MAIN(TrayActivityTest)
#include "tst_tray_activity.moc"
