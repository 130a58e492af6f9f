// The tray's Network section over a real in-process Controller, the fake sbx (whose proxy blocks
// with the policy's 403 body) and MCP over HTTP: a blocked curl shows under "Blocked in <sandbox>"
// with an Allow button; a network_request shows as a card whose "Allow for this sandbox" runs
// `sbx policy allow network --sandbox <rt> HOST` and the retried curl reaches the host; "Allow
// always" adds a global rule listed with Remove, which runs `sbx policy rm network --resource HOST`.
// Saves a screenshot under <build>/test-output/screenshots/.
#include "SandboxHarness.h"
#include "McpTestClient.h"
#include "tray_support.h"

#include "popup/NetworkSection.h"
#include "popup/PopupWindow.h"
#include "bindings/ServiceModels.h"
#include "tray/TrayApp.h"
#include "runtime/Controller.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QList<QStringList> fakeCalls(const TestEnvironment &env)
{
    QList<QStringList> out;
    QFile f(env.sbxState() + QStringLiteral("/calls.log"));
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray &line : f.readAll().split('\n')) {
        QStringList args;
        for (const QJsonValue &v : QJsonDocument::fromJson(line).array())
            args << v.toString();
        if (!args.isEmpty())
            out << args;
    }
    return out;
}

QString runtimeName(const TestEnvironment &env)
{
    for (const QStringList &c : fakeCalls(env)) {
        const qsizetype i = c.indexOf(QStringLiteral("--name"));
        if (c.first() == QLatin1String("create") && i > 0)
            return c.at(i + 1);
    }
    return {};
}

} // namespace

class TestTrayNetwork : public QObject {
    Q_OBJECT

private slots:
    // The plain tray message is what this test observes: no desktop notification server.
    void initTestCase() { qunsetenv("DBUS_SESSION_BUS_ADDRESS"); }
    void blockedHostsRequestsAndAlwaysRules()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
        if (QStandardPaths::findExecutable(QStringLiteral("curl")).isEmpty()
            || QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("needs curl and python3");
        TestEnvironment env;
        env.set(QStringLiteral("FAKE_SBX_IDLE_STOP_MS"), QStringLiteral("off"));
        pointFakeSbxAt(env);
        qputenv("FAKE_SBX_IDLE_STOP_MS", "off");

        const QString site = env.root() + QStringLiteral("/site");
        QVERIFY(QDir().mkpath(site));
        QFile page(site + QStringLiteral("/hello.txt"));
        QVERIFY(page.open(QIODevice::WriteOnly));
        page.write("hello through the tray\n");
        page.close();
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        QProcess web;
        web.start(QStandardPaths::findExecutable(QStringLiteral("python3")),
                  {QStringLiteral("-m"), QStringLiteral("http.server"), QString::number(port), QStringLiteral("--bind"),
                   QStringLiteral("127.0.0.1"), QStringLiteral("--directory"), site});
        QVERIFY(web.waitForStarted());
        const auto stopWeb = qScopeGuard([&web] { web.kill(); web.waitForFinished(); });
        const QString host = QStringLiteral("127.0.0.1:%1").arg(port);
        const QString curl = QStringLiteral("curl -sS -m 10 http://%1/hello.txt").arg(host);

        auto controller = std::make_unique<Controller>(env.config());
        ui::ServiceModels models = ui::makeServiceModels(*controller);
        ui::TrayApp tray(*models.approvals, *models.sandboxes, *models.status,
                         ui::TrayPaths{env.dataRoot(), env.dataRoot() + QStringLiteral("/AGENTS.md"), chat2sbxBinary()});
        tray.addNetwork(*models.network);
        QSignalSpy notified(&tray, &ui::TrayApp::notified);
        const auto stopController = qScopeGuard([&controller] {
            QSignalSpy stopped(controller.get(), &Controller::stopped);
            controller->stop();
            stopped.wait(15000);
        });
        QSignalSpy started(controller.get(), &Controller::started);
        controller->start();
        QVERIFY(started.wait(30000));
        McpTestClient mcp(env.mcpUrl());
        QString error;
        QVERIFY2(mcp.open(&error), qPrintable(error));

        const QJsonObject created = mcp.callToolResult(QStringLiteral("sandbox_create"), {}, 60000);
        const QString sandboxId = created.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(!sandboxId.isEmpty(), QJsonDocument(created).toJson().constData());
        const QString runtime = runtimeName(env);

        // A blocked curl; the popup's Network section lists the host with an Allow button.
        QJsonObject bash = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("command"), curl}})
                               .value(QStringLiteral("structuredContent")).toObject();
        QVERIFY2(bash.contains(QStringLiteral("network_blocked")), QJsonDocument(bash).toJson().constData());
        tray.popup().show();
        models.network->refreshBlocked();
        const QString blockedButton = QStringLiteral("allowBlocked:%1:%2").arg(sandboxId, host);
        QTRY_VERIFY_WITH_TIMEOUT(tray.popup().findChild<QPushButton *>(blockedButton), 10000);

        // An agent's request: a card, a notification; two requests to show both buttons.
        QJsonObject r = mcp.callToolResult(QStringLiteral("network_request"),
                                     {{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("hosts"), QJsonArray{host}},
                                      {QStringLiteral("reason"), QStringLiteral("download the test page")}})
                            .value(QStringLiteral("structuredContent")).toObject();
        const QString requestId = r.value(QStringLiteral("request_id")).toString();
        QVERIFY(!requestId.isEmpty());
        r = mcp.callToolResult(QStringLiteral("network_request"),
                         {{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("hosts"), QJsonArray{QStringLiteral("*.example.net")}}})
                .value(QStringLiteral("structuredContent")).toObject();
        const QString alwaysId = r.value(QStringLiteral("request_id")).toString();
        QTRY_VERIFY(tray.popup().findChild<QWidget *>(QStringLiteral("networkRequest:") + alwaysId));
        QVERIFY(notified.size() >= 2);
        QVERIFY(notified.first().at(1).toString().contains(host));
        settleWidgets();
        // One card per host: the host asked for is decided on its request's card, not offered again as blocked.
        QVERIFY2(!tray.popup().findChild<QPushButton *>(blockedButton), "the requested host is also offered as blocked");
        tray.popup().fitToContent();
        saveScreenshot(tray.popup(), QStringLiteral("tray_network_requests"));

        // Allow for this sandbox → the exact sbx command → the retried curl works.
        QPushButton *allowHere = tray.popup().findChild<QPushButton *>(QStringLiteral("allowSandbox:") + requestId);
        QVERIFY(allowHere);
        allowHere->click();
        QTRY_VERIFY_WITH_TIMEOUT(fakeCalls(env).contains(QStringList{QStringLiteral("policy"), QStringLiteral("allow"),
                                                                     QStringLiteral("network"), QStringLiteral("--sandbox"),
                                                                     runtime, host}),
                                 10000);
        QTRY_VERIFY(!tray.popup().findChild<QWidget *>(QStringLiteral("networkRequest:") + requestId));
        bash = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("command"), curl}})
                   .value(QStringLiteral("structuredContent")).toObject();
        QVERIFY2(bash.value(QStringLiteral("output")).toString().contains(QStringLiteral("hello through the tray")),
                 QJsonDocument(bash).toJson().constData());

        // Allow always → a global rule listed with Remove; Remove runs sbx policy rm without --sandbox.
        tray.popup().findChild<QPushButton *>(QStringLiteral("allowAlways:") + alwaysId)->click();
        QTRY_VERIFY_WITH_TIMEOUT(fakeCalls(env).contains(QStringList{QStringLiteral("policy"), QStringLiteral("allow"),
                                                                     QStringLiteral("network"), QStringLiteral("*.example.net")}),
                                 10000);
        QTRY_VERIFY(tray.popup().findChild<QWidget *>(QStringLiteral("alwaysRules")));
        settleWidgets();
        tray.popup().fitToContent();
        saveScreenshot(tray.popup(), QStringLiteral("tray_network_always_rule"));
        QPushButton *remove = nullptr;
        for (QPushButton *b : tray.popup().findChildren<QPushButton *>()) {
            if (b->objectName().startsWith(QStringLiteral("removeRule:")) && b->isVisible())
                remove = b;
        }
        QVERIFY(remove);
        remove->click();
        QTRY_VERIFY_WITH_TIMEOUT(fakeCalls(env).contains(QStringList{QStringLiteral("policy"), QStringLiteral("rm"), QStringLiteral("network"),
                                                                     QStringLiteral("--resource"), QStringLiteral("*.example.net")}),
                                 10000);
        QTRY_VERIFY(!tray.popup().findChild<QWidget *>(QStringLiteral("alwaysRules")));
    }
};

QTEST_MAIN(TestTrayNetwork)
#include "tst_tray_network.moc"
