// The tray over a real in-process Controller (the server `serve` runs), the fake sbx and real MCP over
// HTTP: approvals requested through MCP appear in the popup and the buttons decide them; Destroy
// (confirmed) removes the sandbox from the fake sbx; tunnel state changes reach the Status part.
// With a notification server on a private session bus (a test double that records Notify and plays
// the user's click with ActionInvoked), a folder request is decided from its notification, once; a
// burst of requests is one notification; a request decided by the CLI withdraws its notification.
// Every test saves a screenshot of the popup under <build>/test-output/screenshots/.
#include "SandboxHarness.h"
#include "TestSupport.h"
#include "CloudSupport.h"
#include "McpTestClient.h"
#include "tray_support.h"

#include "popup/ApprovalsSection.h"
#include "popup/PopupHeader.h"
#include "popup/PopupWindow.h"
#include "runtime/Controller.h"
#include "sandbox/changes/CheckpointService.h"
#include "state/CheckpointRepository.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "popup/SandboxesSection.h"
#include "bindings/ServiceModels.h"
#include "notifications/DecisionNotices.h"
#include "notifications/DesktopNotifications.h"
#include "tray/TrayApp.h"
#include "workspace/ApprovalService.h"
#include "workspace/WorkspaceService.h"
#include "popup/WorkspacesSection.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDir>
#include <QJsonArray>
#include <QElapsedTimer>
#include <QMap>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QToolButton>
#include <QTest>

#include <memory>

#include <csignal>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {


QStringList fakeSbxNames(const TestEnvironment &env)
{
    QStringList names;
    const CliResult ls = runFakeSbx(env, {QStringLiteral("ls"), QStringLiteral("--json")});
    const QJsonArray list = QJsonDocument::fromJson(ls.out).object().value(QStringLiteral("sandboxes")).toArray();
    for (const QJsonValue &v : list)
        names << v.toObject().value(QStringLiteral("name")).toString();
    return names;
}

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

// org.freedesktop.Notifications as a desktop serves it (spec 1.2), on its own connection to the
// private bus: records every Notify and CloseNotification, plays a click with ActionInvoked.
class NotificationServerDouble : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    struct Shown {
        uint id = 0;
        QString summary;
        QString body;
        QStringList actions;
        QString category;
        int expireTimeout = 0;
    };
    QList<Shown> notifies;   // every Notify, in order
    QList<uint> closedByClient;
    QSet<uint> open;         // on screen now
    QDBusConnection bus{QStringLiteral("none")};

    bool attach(const QString &address, QString &error)
    {
        bus = QDBusConnection::connectToBus(address, QStringLiteral("notification-server-double"));
        if (!bus.isConnected() || !bus.registerService(QStringLiteral("org.freedesktop.Notifications"))
            || !bus.registerObject(QStringLiteral("/org/freedesktop/Notifications"), this,
                                   QDBusConnection::ExportAllSlots | QDBusConnection::ExportAllSignals)) {
            error = bus.lastError().message();
            return false;
        }
        return true;
    }
    void detach()
    {
        bus.unregisterObject(QStringLiteral("/org/freedesktop/Notifications"));
        bus.unregisterService(QStringLiteral("org.freedesktop.Notifications"));
        QDBusConnection::disconnectFromBus(QStringLiteral("notification-server-double"));
    }
    // The user presses a button: ActionInvoked, then the notification closes (reason 2, dismissed).
    void click(uint id, const QString &action)
    {
        emitSignal(QStringLiteral("ActionInvoked"), {id, action});
        open.remove(id);
        emitSignal(QStringLiteral("NotificationClosed"), {id, 2u});
    }
    const Shown *lastFor(const QString &bodyPart) const
    {
        for (auto it = notifies.crbegin(); it != notifies.crend(); ++it)
            if (it->body.contains(bodyPart))
                return &*it;
        return nullptr;
    }

public slots:
    QStringList GetCapabilities() { return {QStringLiteral("actions"), QStringLiteral("body"), QStringLiteral("persistence")}; }
    uint Notify(const QString &, uint replacesId, const QString &, const QString &summary, const QString &body,
                const QStringList &actions, const QVariantMap &hints, int expireTimeout)
    {
        const uint id = replacesId != 0 ? replacesId : ++m_next;
        notifies.append({id, summary, body, actions, hints.value(QStringLiteral("category")).toString(), expireTimeout});
        open.insert(id);
        return id;
    }
    void CloseNotification(uint id)
    {
        closedByClient << id;
        if (open.remove(id))
            emitSignal(QStringLiteral("NotificationClosed"), {id, 3u});
    }
    QString GetServerInformation(QString &vendor, QString &version, QString &specVersion)
    {
        vendor = QStringLiteral("chat2sbx tests");
        version = QStringLiteral("1");
        specVersion = QStringLiteral("1.2");
        return QStringLiteral("notification-server-double");
    }

private:
    void emitSignal(const QString &name, const QVariantList &args)
    {
        QDBusMessage m = QDBusMessage::createSignal(QStringLiteral("/org/freedesktop/Notifications"),
                                                    QStringLiteral("org.freedesktop.Notifications"), name);
        m.setArguments(args);
        bus.send(m);
    }
    uint m_next = 0;
};

// A session bus of the test's own (dbus-daemon --session), never the user's.
struct PrivateBus {
    QString address;
    qint64 pid = 0;
    bool start(QString &error)
    {
        QProcess daemon;
        daemon.start(QStringLiteral("dbus-daemon"), {QStringLiteral("--session"), QStringLiteral("--fork"),
                                                     QStringLiteral("--print-address=1"), QStringLiteral("--print-pid=1")});
        if (!daemon.waitForFinished(15000) || daemon.exitCode() != 0) {
            error = QStringLiteral("dbus-daemon: ") + QString::fromLocal8Bit(daemon.readAllStandardError());
            return false;
        }
        const QList<QByteArray> lines = daemon.readAllStandardOutput().split('\n');
        address = QString::fromUtf8(lines.value(0).trimmed());
        pid = lines.value(1).trimmed().toLongLong();
        return !address.isEmpty() && pid > 0;
    }
    ~PrivateBus()
    {
        if (pid > 0)
            ::kill(static_cast<pid_t>(pid), SIGTERM);
    }
};

// What a tray with cloud sandboxes on needs (the fake's template present, no warm local ones).
QMap<QString, QString> cloudSettings()
{
    return {{QStringLiteral("FAKE_SBX_TEMPLATES"), pinnedTemplate()}, {QStringLiteral("CHAT2SBX_CLOUD_SANDBOXES"), QStringLiteral("1")},
            {QStringLiteral("CHAT2SBX_WARM_SANDBOXES"), QStringLiteral("0")}};
}

// A tray over a real Controller whose desktop has the notification server double, host folders
// allowed below `roots` (made), the notification server seen by the tray.
struct NotifyingTray {
    NotificationServerDouble server;
    TestEnvironment env;
    QString roots = env.root() + QStringLiteral("/repos");
    std::unique_ptr<TraySession> session;

    bool up(const QString &busAddress, QString &error, const QMap<QString, QString> &settings = {})
    {
        if (!server.attach(busAddress, error) || !QDir().mkpath(roots))
            return false;
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        for (auto it = settings.cbegin(); it != settings.cend(); ++it)
            env.set(it.key(), it.value());
        session = std::make_unique<TraySession>(env);
        if (!session->start(error))
            return false;
        QElapsedTimer waited;
        waited.start();
        while (!session->tray->desktopNotifications().available() && waited.elapsed() < scaled(5000))
            QTest::qWait(20);
        if (!session->tray->desktopNotifications().available())
            error = QStringLiteral("the tray did not see the notification server");
        return error.isEmpty();
    }
    ~NotifyingTray()
    {
        session.reset();
        // The name goes with the double: the next test's desktop starts without a server.
        server.detach();
    }
};

} // namespace

class TestTray : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set: the fake sbx was not built");
        // Before anything opens the session bus: every tray of this test talks to the private one,
        // where a notification server is only while a test puts the double there.
        QString error;
        QVERIFY2(m_bus.start(error), qPrintable(error));
        qputenv("DBUS_SESSION_BUS_ADDRESS", m_bus.address.toUtf8());
    }

    // A folder request's notification has Approve and Reject; Approve decides it as the popup does
    // (the CLI lists it as approved), once: a second click on the stale notification changes nothing.
    void approveFromTheNotification()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error), qPrintable(error));
        NotificationServerDouble &server = t.server;
        TraySession &s = *t.session;
        TestEnvironment &env = t.env;
        const QString repo = t.roots + QStringLiteral("/thesis");
        QVERIFY(QDir().mkpath(repo));

        const QJsonObject asked = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                       {{QStringLiteral("host_path"), repo}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        const QString approvalId = asked.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        QVERIFY2(approvalId.startsWith(QLatin1String("apr_")), qPrintable(compact(asked)));
        QTRY_VERIFY_WITH_TIMEOUT(server.lastFor(repo), chat2sbx::test::scaled(5000));
        const NotificationServerDouble::Shown shown = *server.lastFor(repo);
        QVERIFY2(shown.actions.contains(QStringLiteral("approve")) && shown.actions.contains(QStringLiteral("Approve"))
                     && shown.actions.contains(QStringLiteral("reject")),
                 qPrintable(shown.actions.join(QLatin1Char(','))));
        // Nothing opened or took the focus: the popup's widgets are not even made until it opens.
        QVERIFY(!s.tray->popupMade());
        // Not an instant message; expires as the desktop decides (the request stays in the tray).
        QCOMPARE(shown.category, QStringLiteral("x-chat2sbx.request"));
        QCOMPARE(shown.expireTimeout, -1);

        server.click(shown.id, QStringLiteral("approve"));
        QTRY_COMPARE_WITH_TIMEOUT(s.models.approvals->pending().size(), 0, chat2sbx::test::scaled(5000));
        const CliResult listed = runCli(env, {QStringLiteral("approval"), QStringLiteral("list"), QStringLiteral("--json"),
                                              QStringLiteral("--all")}, 30000);
        QVERIFY2(listed.out.contains("approved") && listed.out.contains(approvalId.toUtf8()), listed.out.constData());
        QVERIFY(!s.tray->popupMade());
        server.click(shown.id, QStringLiteral("reject"));   // stale: decided already
        QTest::qWait(300);
        const QJsonObject again = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                       {{QStringLiteral("host_path"), repo}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        QCOMPARE(again.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("approved"));
    }

    // Opening the popup, which shows the request, withdraws its notification: notifications sat in
    // the popup's corner over its buttons.
    void openingThePopupWithdrawsTheRequestsNotifications()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error), qPrintable(error));
        NotificationServerDouble &server = t.server;
        TraySession &s = *t.session;
        const QString repo = t.roots + QStringLiteral("/webshop");
        QVERIFY(QDir().mkpath(repo));
        s.mcp.callToolResult(QStringLiteral("workspace_request"), {{QStringLiteral("host_path"), repo}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        QTRY_VERIFY_WITH_TIMEOUT(server.lastFor(repo), chat2sbx::test::scaled(5000));
        const uint id = server.lastFor(repo)->id;
        s.tray->openPopup();
        QTRY_VERIFY_WITH_TIMEOUT(server.closedByClient.contains(id), chat2sbx::test::scaled(5000));
        QCOMPARE(s.models.approvals->pending().size(), 1);   // withdrawn, not decided
        s.popup().hide();
    }

    // A click on a request notification's body opens the popup at that request's card: its first
    // button has the focus, whatever else waits above it.
    void aClickOnTheBodyOpensThatRequestsCard()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error), qPrintable(error));
        TraySession &s = *t.session;
        QStringList ids;
        for (const char *name : {"above", "clicked"}) {
            const QString dir = t.roots + QLatin1Char('/') + QLatin1String(name);
            QVERIFY(QDir().mkpath(dir));
            const QJsonObject asked = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                           {{QStringLiteral("host_path"), dir}, {QStringLiteral("mode"), QStringLiteral("direct")}});
            ids << asked.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
            QTest::qWait(ui::DecisionNotices::kGatherMs + 100);   // one notification each, not a burst
        }
        const QString clicked = t.roots + QStringLiteral("/clicked");
        QTRY_VERIFY_WITH_TIMEOUT(t.server.lastFor(clicked), chat2sbx::test::scaled(5000));
        t.server.click(t.server.lastFor(clicked)->id, QStringLiteral("default"));
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().isVisible(), chat2sbx::test::scaled(5000));
        QWidget *focus = s.popup().focusWidget();
        QVERIFY(focus);
        QCOMPARE(focus->objectName(), QStringLiteral("approve:") + ids.at(1));
        QCOMPARE(s.models.approvals->pending().size(), 2);   // opened, nothing decided
        s.popup().hide();
    }

    // A cloud sandbox minutes from the end of its time-to-live: a warning with Extend, which
    // extends it (the sandbox then ends later), once per end.
    void aCloudSandboxNearItsEndWarnsWithExtend()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error, cloudSettings()), qPrintable(error));
        TraySession &s = *t.session;
        const QString id = createInCloud(s.mcp, {{QStringLiteral("ttl"), QStringLiteral("5m")}}, 60000);
        QVERIFY2(!id.isEmpty(), qPrintable(s.mcp.lastBody));
        const auto expiresAt = [&s, &id] {
            for (const ui::SandboxRow &r : s.models.sandboxes->sandboxes())
                if (r.id == id)
                    return r.expiresAtMs;
            return qint64(-1);
        };
        const qint64 before = expiresAt();
        QVERIFY(before > 0);
        const auto warning = [&t] {
            for (const NotificationServerDouble::Shown &n : std::as_const(t.server.notifies))
                if (n.summary.startsWith(QLatin1String("chat2sbx: cloud sandbox ")) && n.summary.contains(QLatin1String(" ends at ")))
                    return &n;
            return static_cast<const NotificationServerDouble::Shown *>(nullptr);
        };
        QTRY_VERIFY_WITH_TIMEOUT(warning(), chat2sbx::test::scaled(10000));
        QVERIFY2(warning()->actions.contains(QStringLiteral("extend")) && warning()->actions.contains(QStringLiteral("Extend")),
                 qPrintable(warning()->actions.join(QLatin1Char(','))));
        const uint shownId = warning()->id;
        t.server.click(shownId, QStringLiteral("extend"));
        QTRY_VERIFY_WITH_TIMEOUT(expiresAt() > before + 10 * 60 * 1000, chat2sbx::test::scaled(10000));
        // Past the warning window now: no second warning for the new end.
        QTest::qWait(500);
        int warnings = 0;
        for (const NotificationServerDouble::Shown &n : std::as_const(t.server.notifies))
            warnings += n.summary.contains(QLatin1String(" ends at ")) ? 1 : 0;
        QCOMPARE(warnings, 1);
        QVERIFY(!s.mcp.callToolResult(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}}, 60000)
                     .value(QStringLiteral("isError")).toBool(true));
    }

    // A cloud port on the internet waits in the tray like any request: its card says what it is,
    // its notification has Publish / Don't publish, and Publish gives the agent its URL.
    void aPublicPortIsPublishedFromTheNotification()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error, cloudSettings()), qPrintable(error));
        TraySession &s = *t.session;
        const QString id = createInCloud(s.mcp, {}, 60000);
        QVERIFY2(!id.isEmpty(), qPrintable(s.mcp.lastBody));
        const QJsonObject port{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("port"), 8080}};
        const QString approval = s.mcp.callToolResult(QStringLiteral("sandbox_expose"), port)
                                     .value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        QVERIFY(approval.startsWith(QLatin1String("pub_")));
        QTRY_COMPARE_WITH_TIMEOUT(s.models.approvals->pending().size(), 1, chat2sbx::test::scaled(5000));
        const ui::ApprovalRow row = s.models.approvals->pending().first();
        QVERIFY(row.isPublicPort());
        QVERIFY2(row.path.startsWith(QLatin1String("port 8080 of ")), qPrintable(row.path));
        const auto shown = [&t] {
            for (const NotificationServerDouble::Shown &n : std::as_const(t.server.notifies))
                if (n.summary == QLatin1String("chat2sbx: a port on the internet"))
                    return &n;
            return static_cast<const NotificationServerDouble::Shown *>(nullptr);
        };
        QTRY_VERIFY_WITH_TIMEOUT(shown(), chat2sbx::test::scaled(5000));
        QVERIFY2(shown()->actions.contains(QStringLiteral("Publish")) && shown()->actions.contains(QStringLiteral("Don't publish")),
                 qPrintable(shown()->actions.join(QLatin1Char(','))));
        t.server.click(shown()->id, QStringLiteral("approve"));
        QString url;
        QTRY_VERIFY_WITH_TIMEOUT((url = s.mcp.callToolResult(QStringLiteral("sandbox_expose"), port)
                                            .value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("url")).toString())
                                     .startsWith(QLatin1String("https://")),
                                 chat2sbx::test::scaled(10000));
        QVERIFY(!s.mcp.callToolResult(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}}, 60000)
                     .value(QStringLiteral("isError")).toBool(true));
    }

    // A notification server that takes the name after the tray started (a tray started at login
    // before GNOME Shell's notification service) is used from then on.
    void aNotificationServerThatComesLaterIsUsed()
    {
        TestEnvironment env;
        const QString roots = env.root() + QStringLiteral("/repos");
        QVERIFY(QDir().mkpath(roots + QStringLiteral("/late")));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        TraySession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        QTest::qWait(300);
        QVERIFY(!s.tray->desktopNotifications().available());
        NotificationServerDouble server;
        QVERIFY2(server.attach(m_bus.address, error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(s.tray->desktopNotifications().available(), chat2sbx::test::scaled(5000));
        s.mcp.callToolResult(QStringLiteral("workspace_request"),
                             {{QStringLiteral("host_path"), roots + QStringLiteral("/late")}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        QTRY_VERIFY_WITH_TIMEOUT(server.lastFor(roots + QStringLiteral("/late")), chat2sbx::test::scaled(5000));
        server.detach();
        QTRY_VERIFY_WITH_TIMEOUT(!s.tray->desktopNotifications().available(), chat2sbx::test::scaled(5000));
    }

    // Two requests wait when the tray stops; started again, it shows both cards and notifies again
    // (before, the header counted "2 wait for you" and nothing showed them).
    void waitingRequestsAreShownAndNotifiedAfterARestart()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error), qPrintable(error));
        QStringList ids;
        for (const char *name : {"first", "second"}) {
            const QString dir = t.roots + QLatin1Char('/') + QLatin1String(name);
            QVERIFY(QDir().mkpath(dir));
            const QJsonObject asked = t.session->mcp.callToolResult(
                QStringLiteral("workspace_request"), {{QStringLiteral("host_path"), dir}, {QStringLiteral("mode"), QStringLiteral("direct")}});
            ids << asked.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        }
        QTRY_VERIFY_WITH_TIMEOUT(!t.server.notifies.isEmpty(), chat2sbx::test::scaled(5000));
        t.session.reset();   // the tray stops with both waiting
        t.server.notifies.clear();
        t.session = std::make_unique<TraySession>(t.env);
        QVERIFY2(t.session->start(error), qPrintable(error));
        TraySession &s = *t.session;
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QPushButton>(QStringLiteral("approve:") + ids.at(0))
                                     && s.find<QPushButton>(QStringLiteral("approve:") + ids.at(1)),
                                 chat2sbx::test::scaled(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!t.server.notifies.isEmpty(), chat2sbx::test::scaled(10000));
        const QString said = t.server.notifies.constLast().summary + QLatin1Char(' ') + t.server.notifies.constLast().body;
        QVERIFY2(said.contains(QStringLiteral("2 requests")) || (said.contains(QStringLiteral("first")) || said.contains(QStringLiteral("second"))),
                 qPrintable(said));
    }

    // ChatGPT's connector calls itself "openai-mcp": the user reads "ChatGPT" on the card and the
    // notification.
    void chatGptIsShownByTheNameTheUserKnows()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error), qPrintable(error));
        TraySession &s = *t.session;
        McpTestClient chatGpt(t.env.mcpUrl(), QStringLiteral("openai-mcp"));
        QVERIFY(chatGpt.open());
        const QString dir = t.roots + QStringLiteral("/notes");
        QVERIFY(QDir().mkpath(dir));
        chatGpt.callToolResult(QStringLiteral("workspace_request"), {{QStringLiteral("host_path"), dir}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        QTRY_VERIFY_WITH_TIMEOUT(t.server.lastFor(dir), chat2sbx::test::scaled(5000));
        QVERIFY2(t.server.lastFor(dir)->body.startsWith(QStringLiteral("ChatGPT asks")), qPrintable(t.server.lastFor(dir)->body));
        const auto pending = s.models.approvals->pending();
        QCOMPARE(pending.size(), 1);
        QCOMPARE(pending.first().client, QStringLiteral("ChatGPT"));
    }

    // Ten requests in a moment are one notification (replaced as more come), not ten; it opens the popup.
    void aBurstIsOneNotification()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error), qPrintable(error));
        NotificationServerDouble &server = t.server;
        TraySession &s = *t.session;
        const QString roots = t.roots;
        for (int i = 0; i < 10; ++i) {
            const QString dir = roots + QStringLiteral("/p%1").arg(i);
            QVERIFY(QDir().mkpath(dir));
            s.mcp.callToolResult(QStringLiteral("workspace_request"), {{QStringLiteral("host_path"), dir}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        }
        const int pending = static_cast<int>(s.models.approvals->pending().size());
        QVERIFY(pending >= 2);
        QTRY_VERIFY_WITH_TIMEOUT(!server.notifies.isEmpty()
                                     && server.notifies.constLast().summary.contains(QStringLiteral("%1 requests").arg(pending)),
                                 chat2sbx::test::scaled(5000));
        QTest::qWait(ui::DecisionNotices::kGatherMs * 2);
        QCOMPARE(server.open.size(), 1);
        QSet<uint> ids;
        for (const auto &n : server.notifies)
            ids.insert(n.id);
        QVERIFY2(ids.size() <= 2, qPrintable(QString::number(ids.size())));   // at most the first alone, then the burst
        server.click(server.notifies.constLast().id, QStringLiteral("default"));
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().isVisible(), chat2sbx::test::scaled(5000));
    }

    // An agent's network request: Allow for this sandbox / Deny on the notification; Deny decides it.
    void denyANetworkRequestFromTheNotification()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error), qPrintable(error));
        TraySession &s = *t.session;
        s.tray->addNetwork(*s.models.network);
        const QJsonObject created = s.mcp.callToolResult(QStringLiteral("sandbox_create"), {}, 60000);
        const QString id = created.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(compact(created)));
        const QJsonObject asked = s.mcp.callToolResult(QStringLiteral("network_request"),
                                                       {{QStringLiteral("sandbox_id"), id},
                                                        {QStringLiteral("hosts"), QJsonArray{QStringLiteral("files.example.org")}},
                                                        {QStringLiteral("reason"), QStringLiteral("fetch the data set")}});
        QVERIFY2(!asked.value(QStringLiteral("isError")).toBool(), qPrintable(compact(asked)));
        QTRY_VERIFY_WITH_TIMEOUT(t.server.lastFor(QStringLiteral("files.example.org")), chat2sbx::test::scaled(5000));
        const NotificationServerDouble::Shown shown = *t.server.lastFor(QStringLiteral("files.example.org"));
        QVERIFY2(shown.actions.contains(QStringLiteral("Allow for this sandbox")) && shown.actions.contains(QStringLiteral("deny"))
                     && shown.body.contains(QStringLiteral("fetch the data set")),
                 qPrintable(shown.actions.join(QLatin1Char(',')) + QLatin1Char(' ') + shown.body));
        QCOMPARE(s.models.network->pending().size(), 1);
        t.server.click(shown.id, QStringLiteral("deny"));
        QTRY_COMPARE_WITH_TIMEOUT(s.models.network->pending().size(), 0, chat2sbx::test::scaled(5000));
    }

    // A file export_file put on this computer: a notification with Open and Show in folder.
    void anExportIsANotificationWithOpenAndShowInFolder()
    {
        NotifyingTray t;
        const QString exports = t.env.root() + QStringLiteral("/Downloads/chat2sbx");
        QString error;
        QVERIFY2(t.up(m_bus.address, error, {{QStringLiteral("CHAT2SBX_EXPORT_DIR"), exports}}), qPrintable(error));
        NotificationServerDouble &server = t.server;
        TraySession &s = *t.session;
        s.tray->addWorkspaces(*s.models.workspaces);
        const QJsonObject created = s.mcp.callToolResult(QStringLiteral("sandbox_create"), {}, 60000);
        const QString id = created.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(compact(created)));
        s.mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("command"), QStringLiteral("echo done > report.txt")}});
        const QJsonObject exported = s.mcp.callToolResult(QStringLiteral("export_file"),
                                                          {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("path"), QStringLiteral("report.txt")}});
        QCOMPARE(exported.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("host_path")).toString(),
                 exports + QStringLiteral("/report.txt"));
        QTRY_VERIFY_WITH_TIMEOUT(server.lastFor(exports), chat2sbx::test::scaled(5000));
        const NotificationServerDouble::Shown shown = *server.lastFor(exports);
        QVERIFY2(shown.summary.contains(QStringLiteral("report.txt")), qPrintable(shown.summary));
        QVERIFY2(shown.actions.contains(QStringLiteral("open")) && shown.actions.contains(QStringLiteral("Show in folder")),
                 qPrintable(shown.actions.join(QLatin1Char(','))));
    }

    // exportNeedsApproval: export_file waits; the notification says which file, from where, and has
    // Save / Don't save; Save decides it (the CLI lists it approved) and the agent's next call copies it.
    void anExportThatWaitsIsSavedFromTheNotification()
    {
        NotifyingTray t;
        const QString exports = t.env.root() + QStringLiteral("/Downloads/chat2sbx");
        QString error;
        QVERIFY2(t.up(m_bus.address, error, {{QStringLiteral("CHAT2SBX_EXPORT_DIR"), exports},
                                             {QStringLiteral("CHAT2SBX_EXPORT_NEEDS_APPROVAL"), QStringLiteral("1")}}),
                 qPrintable(error));
        TraySession &s = *t.session;
        s.tray->addWorkspaces(*s.models.workspaces);
        const QJsonObject created = s.mcp.callToolResult(QStringLiteral("sandbox_create"), {}, 60000);
        const QString id = created.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(compact(created)));
        s.mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("command"), QStringLiteral("echo done > summary.md")}});
        const QJsonObject args{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("path"), QStringLiteral("summary.md")}};
        const QJsonObject asked = s.mcp.callToolResult(QStringLiteral("export_file"), args);
        const QJsonObject result = asked.value(QStringLiteral("structuredContent")).toObject();
        QVERIFY2(result.value(QStringLiteral("status")).toString() == QLatin1String("approval_required"), qPrintable(compact(asked)));
        const QString exportId = result.value(QStringLiteral("export_id")).toString();
        QVERIFY(!QFileInfo::exists(exports + QStringLiteral("/summary.md")));

        QTRY_VERIFY_WITH_TIMEOUT(t.server.lastFor(QStringLiteral("summary.md")), chat2sbx::test::scaled(5000));
        const NotificationServerDouble::Shown shown = *t.server.lastFor(QStringLiteral("summary.md"));
        QVERIFY2(shown.actions.contains(QStringLiteral("Save")) && shown.actions.contains(QStringLiteral("Don't save"))
                     && shown.body.contains(QStringLiteral("exportNeedsApproval")),
                 qPrintable(shown.actions.join(QLatin1Char(',')) + QLatin1Char(' ') + shown.body));
        QCOMPARE(s.models.approvals->pending().size(), 1);
        QVERIFY(s.models.approvals->pending().first().isExport());
        s.popup().showNear({});
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().findChild<QPushButton *>(QStringLiteral("approve:") + exportId), chat2sbx::test::scaled(5000));
        QCOMPARE(s.popup().findChild<QPushButton *>(QStringLiteral("approve:") + exportId)->accessibleName(),
                 QStringLiteral("Save summary.md on this computer"));
        saveScreenshot(s.popup(), QStringLiteral("tray_export_waits"));
        s.popup().hide();
        t.server.click(shown.id, QStringLiteral("approve"));
        QTRY_COMPARE_WITH_TIMEOUT(s.models.approvals->pending().size(), 0, chat2sbx::test::scaled(5000));
        const CliResult listed = runCli(t.env, {QStringLiteral("approval"), QStringLiteral("list"), QStringLiteral("--all"),
                                                QStringLiteral("--json")}, 30000);
        QVERIFY2(listed.out.contains(exportId.toUtf8()) && listed.out.contains("\"approved\""), listed.out.constData());

        const QJsonObject saved = s.mcp.callToolResult(QStringLiteral("export_file"), args);
        QCOMPARE(saved.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("host_path")).toString(),
                 exports + QStringLiteral("/summary.md"));
        const auto savedShown = [&t] {
            return std::any_of(t.server.notifies.cbegin(), t.server.notifies.cend(),
                               [](const NotificationServerDouble::Shown &n) { return n.summary.contains(QStringLiteral("summary.md saved")); });
        };
        QTRY_VERIFY_WITH_TIMEOUT(savedShown(), chat2sbx::test::scaled(5000));
    }

    // Decided from a terminal: the notification is withdrawn (CloseNotification).
    void aCliDecisionWithdrawsTheNotification()
    {
        NotifyingTray t;
        QString error;
        QVERIFY2(t.up(m_bus.address, error), qPrintable(error));
        NotificationServerDouble &server = t.server;
        TraySession &s = *t.session;
        TestEnvironment &env = t.env;
        const QString repo = t.roots + QStringLiteral("/notes");
        QVERIFY(QDir().mkpath(repo));
        const QJsonObject asked = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                       {{QStringLiteral("host_path"), repo}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        const QString approvalId = asked.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        QTRY_VERIFY_WITH_TIMEOUT(server.lastFor(repo), chat2sbx::test::scaled(5000));
        const uint id = server.lastFor(repo)->id;
        const CliResult decided = runCli(env, {QStringLiteral("approval"), QStringLiteral("reject"), approvalId}, 30000);
        QVERIFY2(decided.exitCode == 0, decided.err.constData());
        QTRY_VERIFY_WITH_TIMEOUT(server.closedByClient.contains(id), chat2sbx::test::scaled(15000));
        QVERIFY(!server.open.contains(id));
    }

    void destroyRemovesSandboxFromFakeSbx()
    {
        TestEnvironment env;
        TraySession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        s.tray->openPopup();
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));
        QCOMPARE(s.popup().sandboxes().rowCount(), 0);

        const QJsonObject created = s.mcp.callToolResult(QStringLiteral("sandbox_create"), {}, 60000);
        QVERIFY2(!created.value(QStringLiteral("isError")).toBool() && !created.contains(QStringLiteral("transportError")),
                 qPrintable(compact(created)));
        const QString id = created.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(compact(created)));
        const QString runtime = s.controller->sandboxes().get(id)->record.runtimeName;
        QVERIFY(fakeSbxNames(env).contains(runtime));

        // The sandboxesChanged signal brought it into the popup, running.
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QPushButton>(QStringLiteral("destroy:") + id), chat2sbx::test::scaled(10000));
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QWidget>(QStringLiteral("sandbox:") + id)->findChild<QLabel *>(QStringLiteral("title"))->text()
                        .contains(QLatin1String("running")), chat2sbx::test::scaled(5000));
        QTRY_COMPARE_WITH_TIMEOUT(s.labelText(QStringLiteral("active")), QStringLiteral("1 active / limit unlimited, 0 warm"), chat2sbx::test::scaled(5000));
        saveScreenshot(s.popup(), QStringLiteral("tray_sandbox_running"));

        QTest::mouseClick(s.find<QPushButton>(QStringLiteral("destroy:") + id), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QMessageBox *box = s.popup().sandboxes().confirmation();
        // Asked by the name people read, not the internal id.
        const QString name = s.models.sandboxes->sandboxes().value(0).name;
        QVERIFY2(!name.isEmpty() && box->text() == QStringLiteral("Destroy sandbox %1?").arg(name), qPrintable(box->text()));
        QTest::mouseClick(box->findChild<QPushButton *>(QStringLiteral("confirmDestroy")), Qt::LeftButton);

        QTRY_VERIFY_WITH_TIMEOUT(s.popup().sandboxes().rowCount() == 0, chat2sbx::test::scaled(30000));
        QVERIFY(!fakeSbxNames(env).contains(runtime));
        QVERIFY(!QFileInfo::exists(env.sbxState() + QStringLiteral("/sandboxes/") + runtime));
        QCOMPARE(s.controller->sandboxes().get(id)->record.state, SandboxState::Destroyed);
        QTRY_COMPARE_WITH_TIMEOUT(s.labelText(QStringLiteral("active")), QStringLiteral("0 active / limit unlimited, 0 warm"), chat2sbx::test::scaled(5000));
        saveScreenshot(s.popup(), QStringLiteral("tray_sandbox_destroyed"));
    }

    // A checkpoint an agent took is under its sandbox in the popup; Restore there takes the sandbox
    // back (the present checkpointed first), Fork makes a second sandbox, and sandbox_get lists them.
    void checkpointsAreRestoredAndForkedFromThePopup()
    {
        TestEnvironment env;
        TraySession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        s.tray->openPopup();
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));
        const QJsonObject created = s.mcp.callToolResult(QStringLiteral("sandbox_create"), {}, 60000);
        const QString id = created.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(compact(created)));
        const QString workspace = s.controller->sandboxes().get(id)->workspace->hostPath;
        QVERIFY(writeFile(workspace + QStringLiteral("/plan.md"), "first plan\n"));
        const QJsonObject saved = s.mcp.callToolResult(QStringLiteral("sandbox_checkpoint"),
                                                       {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("label"), QStringLiteral("first plan")}},
                                                       60000);
        const QString ckp = saved.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("checkpoint_id")).toString();
        QVERIFY2(ckp.startsWith(QLatin1String("ckp_")), qPrintable(compact(saved)));
        const QJsonObject got = s.mcp.callToolResult(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}}, 30000);
        const QJsonArray listed = got.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("checkpoints")).toArray();
        QVERIFY2(listed.size() == 1 && listed.at(0).toObject().value(QStringLiteral("checkpoint_id")).toString() == ckp, qPrintable(compact(got)));
        QVERIFY(writeFile(workspace + QStringLiteral("/plan.md"), "second plan\n"));

        QTRY_VERIFY_WITH_TIMEOUT(s.find<QToolButton>(QStringLiteral("expand:") + id), chat2sbx::test::scaled(10000));
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QWidget>(QStringLiteral("sandbox:") + id)->findChild<QLabel *>(QStringLiteral("title"))->text()
                                     .contains(QLatin1String("1 checkpoint")), chat2sbx::test::scaled(10000));
        QTest::mouseClick(s.find<QToolButton>(QStringLiteral("expand:") + id), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QPushButton>(QStringLiteral("restore:") + ckp), chat2sbx::test::scaled(5000));
        QVERIFY(s.labelText(QStringLiteral("checkpoint:") + ckp).contains(QLatin1String("first plan")));
        saveScreenshot(s.popup(), QStringLiteral("tray_checkpoints"));
        QTest::mouseClick(s.find<QPushButton>(QStringLiteral("restore:") + ckp), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().sandboxes().confirmation(), chat2sbx::test::scaled(5000));
        QTest::mouseClick(s.popup().sandboxes().confirmation()->findChild<QPushButton *>(QStringLiteral("confirmRestore")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().sandboxes().message().contains(QLatin1String("back at ") + ckp), chat2sbx::test::scaled(60000));
        QCOMPARE(readFile(workspace + QStringLiteral("/plan.md")), QByteArray("first plan\n"));
        QCOMPARE(s.controller->checkpoints().list(id).size(), 2);   // the undo checkpoint

        QTRY_VERIFY_WITH_TIMEOUT(s.find<QPushButton>(QStringLiteral("fork:") + ckp) && s.find<QPushButton>(QStringLiteral("fork:") + ckp)->isEnabled(),
                                 chat2sbx::test::scaled(10000));
        QTest::mouseClick(s.find<QPushButton>(QStringLiteral("fork:") + ckp), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().sandboxes().message().startsWith(QLatin1String("forked as")), chat2sbx::test::scaled(60000));
        QTRY_COMPARE_WITH_TIMEOUT(s.popup().sandboxes().rowCount(), 2, chat2sbx::test::scaled(10000));
        saveScreenshot(s.popup(), QStringLiteral("tray_checkpoint_forked"));

        // A restore under way (its row, as a restart would find it) shows on the sandbox's line.
        QString dbError;
        QVERIFY(CheckpointRepository(s.controller->database()).beginRestore({id, ckp, ckp, 1}, dbError));
        emit s.controller->checkpoints().checkpointsChanged(id);
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QWidget>(QStringLiteral("sandbox:") + id)->findChild<QLabel *>(QStringLiteral("title"))->text()
                                     .contains(QLatin1String("restoring a checkpoint")), chat2sbx::test::scaled(10000));
        QVERIFY(!s.find<QPushButton>(QStringLiteral("restore:") + ckp)->isEnabled());
        QVERIFY(CheckpointRepository(s.controller->database()).endRestore(id, dbError));
    }

    void statusShowsEndpointAndServerState()
    {
        TestEnvironment env;
        env.set(QStringLiteral("CHAT2SBX_MAX_ACTIVE_SANDBOXES"), QStringLiteral("2"));
        TraySession s(env);
        QCOMPARE(s.tray->state(), ui::TrayState::Stopped);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        s.tray->openPopup();
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));
        QCOMPARE(s.tray->state(), ui::TrayState::LocalOnly);
        QCOMPARE(s.labelText(QStringLiteral("endpoint")), env.mcpUrl());
        QCOMPARE(s.labelText(QStringLiteral("server")), QStringLiteral("running"));
        QCOMPARE(s.labelText(QStringLiteral("tunnel")), QStringLiteral("disabled (local-only)"));
        QCOMPARE(s.labelText(QStringLiteral("active")), QStringLiteral("0 active / limit 2, 0 warm"));
        QCOMPARE(s.labelText(QStringLiteral("version")), QStringLiteral(CHAT2SBX_VERSION));
        saveScreenshot(s.popup(), QStringLiteral("tray_status_local_only"));

        QSignalSpy stopped(s.controller.get(), &Controller::stopped);
        s.controller->stop();
        QVERIFY(stopped.wait(15000));
        QCOMPARE(s.labelText(QStringLiteral("server")), QStringLiteral("stopped"));
        QCOMPARE(s.tray->state(), ui::TrayState::Stopped);
    }

    // 300 workspace_request calls from one client leave 5 questions for the user
    // and two notifications (the first request, then "N more"), and another client is still heard.
    void requestFloodIsBoundedAndCoalesced()
    {
        TestEnvironment env;
        const QString roots = env.root() + QStringLiteral("/repos");
        for (int i = 0; i < 300; ++i)
            QVERIFY(QDir().mkpath(roots + QStringLiteral("/d%1").arg(i)));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        TraySession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        s.tray->setApprovalNoticeWindow(1000);
        QSignalSpy notified(s.tray.get(), &ui::TrayApp::notified);
        int asked = 0, refused = 0;
        QString refusal;
        for (int i = 0; i < 300; ++i) {
            const QJsonObject r = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                 {{QStringLiteral("host_path"), roots + QStringLiteral("/d%1").arg(i)},
                                                  {QStringLiteral("mode"), QStringLiteral("direct")}});
            const QJsonObject out = r.value(QStringLiteral("structuredContent")).toObject();
            if (out.value(QStringLiteral("status")).toString() == QLatin1String("approval_required"))
                ++asked;
            else if (r.value(QStringLiteral("isError")).toBool() && ++refused == 1)
                refusal = compact(r);
        }
        QCOMPARE(asked, ApprovalService::kMaxPendingPerClient);
        QCOMPARE(refused, 300 - ApprovalService::kMaxPendingPerClient);
        QVERIFY2(refusal.contains(QLatin1String("this client already has")), qPrintable(refusal));
        QTRY_COMPARE_WITH_TIMEOUT(s.tray->pendingApprovals(), ApprovalService::kMaxPendingPerClient, chat2sbx::test::scaled(5000));
        QTRY_COMPARE_WITH_TIMEOUT(notified.size(), 2, chat2sbx::test::scaled(5000));
        QVERIFY2(notified.at(1).at(1).toString().startsWith(QLatin1String("4 more workspace requests")),
                 qPrintable(notified.at(1).at(1).toString()));
        QTest::qWait(1500);
        QStringList texts;
        for (const QList<QVariant> &n : notified)
            texts << n.at(0).toString() + QStringLiteral(": ") + n.at(1).toString();
        QVERIFY2(notified.size() == 2, qPrintable(texts.join(QLatin1Char('\n'))));
        qInfo("300 workspace_request calls: %d pending approvals, %d refused, %lld notifications", asked, refused,
              qint64(notified.size()));
    }

    void approveThroughPopupGivesMcpWorkspaceId()
    {
        TestEnvironment env;
        const QString roots = env.root() + QStringLiteral("/repos");
        const QString repo = roots + QStringLiteral("/webshop");
        QVERIFY(QDir().mkpath(repo + QStringLiteral("/.git")));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        TraySession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        QSignalSpy notified(s.tray.get(), &ui::TrayApp::notified);

        const QJsonObject asked = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                 {{QStringLiteral("host_path"), repo}, {QStringLiteral("mode"), QStringLiteral("clone")}});
        const QJsonObject first = asked.value(QStringLiteral("structuredContent")).toObject();
        QVERIFY2(first.value(QStringLiteral("status")).toString() == QLatin1String("approval_required"), qPrintable(compact(asked)));
        const QString approvalId = first.value(QStringLiteral("approval_id")).toString();

        // The approvalRequested signal raised a notification; clicking it opens the popup.
        QTRY_COMPARE_WITH_TIMEOUT(notified.size(), 1, chat2sbx::test::scaled(5000));
        QVERIFY(notified.at(0).at(1).toString().contains(repo));
        QCOMPARE(s.tray->pendingApprovals(), 1);
        emit s.tray->trayIcon().messageClicked();
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QPushButton>(QStringLiteral("approve:") + approvalId), chat2sbx::test::scaled(5000));
        QWidget *card = s.find<QWidget>(QStringLiteral("approval:") + approvalId);
        QCOMPARE(card->findChild<QLabel *>(QStringLiteral("path"))->text(), repo);
        QVERIFY(card->findChild<QLabel *>(QStringLiteral("detail"))->text().startsWith(QLatin1String("clone")));
        saveScreenshot(s.popup(), QStringLiteral("tray_approval_pending"));

        QTest::mouseClick(s.find<QPushButton>(QStringLiteral("approve:") + approvalId), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(s.popup().approvals().rowCount(), 0, chat2sbx::test::scaled(5000));
        QVERIFY2(!s.find<QLabel>(QStringLiteral("approvalsMessage"))->isVisible(), qPrintable(s.labelText(QStringLiteral("approvalsMessage"))));
        QCOMPARE(s.tray->pendingApprovals(), 0);

        // The same request again: approved, with the workspace id for sandbox_create.
        const QJsonObject again = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                 {{QStringLiteral("host_path"), repo}, {QStringLiteral("mode"), QStringLiteral("clone")}});
        const QJsonObject second = again.value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(second.value(QStringLiteral("status")).toString(), QStringLiteral("approved"));
        QVERIFY2(second.value(QStringLiteral("workspace_id")).toString().startsWith(QLatin1String("ws_")), qPrintable(compact(again)));
        saveScreenshot(s.popup(), QStringLiteral("tray_approval_approved"));
    }

    void rejectThroughPopupTellsMcp()
    {
        TestEnvironment env;
        const QString roots = env.root() + QStringLiteral("/repos");
        const QString notes = roots + QStringLiteral("/notes");
        QVERIFY(QDir().mkpath(notes));
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), roots);
        TraySession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        s.tray->openPopup();
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));

        const QJsonObject asked = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                 {{QStringLiteral("host_path"), notes}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        const QString approvalId = asked.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("approval_id")).toString();
        QVERIFY2(approvalId.startsWith(QLatin1String("apr_")), qPrintable(compact(asked)));
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QPushButton>(QStringLiteral("reject:") + approvalId), chat2sbx::test::scaled(5000));
        QVERIFY(s.find<QWidget>(QStringLiteral("approval:") + approvalId)->findChild<QLabel *>(QStringLiteral("detail"))->text()
                    .startsWith(QLatin1String("direct")));
        saveScreenshot(s.popup(), QStringLiteral("tray_approval_direct_pending"));

        QTest::mouseClick(s.find<QPushButton>(QStringLiteral("reject:") + approvalId), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(s.popup().approvals().rowCount(), 0, chat2sbx::test::scaled(5000));
        const QJsonObject again = s.mcp.callToolResult(QStringLiteral("workspace_request"),
                                                 {{QStringLiteral("host_path"), notes}, {QStringLiteral("mode"), QStringLiteral("direct")}});
        const QJsonObject second = again.value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(second.value(QStringLiteral("status")).toString(), QStringLiteral("rejected"));
        QVERIFY(!second.contains(QStringLiteral("workspace_id")));
        saveScreenshot(s.popup(), QStringLiteral("tray_approval_rejected"));
    }

    void tunnelStateChangesReachStatus()
    {
        TestEnvironment env;
        const QString secrets = env.root() + QStringLiteral("/secrets");
        QVERIFY(writeFile(secrets + QStringLiteral("/tunnel-id"), "tunnel_0123456789abcdef0123456789abcdef\n"));
        QVERIFY(writeFile(secrets + QStringLiteral("/key"), "sk-test-tray-0123456789\n"));
        env.set(QStringLiteral("CHAT2SBX_ENABLE_TUNNEL"), QStringLiteral("1"));
        env.set(QStringLiteral("CHAT2SBX_TUNNEL_CLIENT"), fakeTunnelClientPath());
        env.set(QStringLiteral("CHAT2SBX_SECRET_DIR"), secrets);
        // Ready first, then the client exits by itself; the restart is far enough away to look at "failed".
        env.set(QStringLiteral("FAKE_TUNNEL_EXIT_AFTER_S"), QStringLiteral("2"));
        env.set(QStringLiteral("CHAT2SBX_TUNNEL_BACKOFF_MS"), QStringLiteral("60000"));
        for (const QString &k : {QStringLiteral("FAKE_TUNNEL_EXIT_AFTER_S")})
            qputenv(k.toUtf8().constData(), env.processEnvironment().value(k).toUtf8());
        TraySession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        s.tray->openPopup();
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));
        s.popup().header().setDetailsShown(true);   // the user opens the Status part
        QTRY_COMPARE_WITH_TIMEOUT(s.labelText(QStringLiteral("tunnel")), QStringLiteral("connected"), chat2sbx::test::scaled(20000));
        QCOMPARE(s.tray->state(), ui::TrayState::TunnelReady);
        QVERIFY(!s.find<QLabel>(QStringLiteral("tunnelError"))->isVisible());
        saveScreenshot(s.popup(), QStringLiteral("tray_tunnel_ready"));

        QTRY_COMPARE_WITH_TIMEOUT(s.labelText(QStringLiteral("tunnel")), QStringLiteral("failed"), chat2sbx::test::scaled(20000));
        QCOMPARE(s.tray->state(), ui::TrayState::Error);
        QVERIFY(s.find<QLabel>(QStringLiteral("tunnelError"))->isVisible());
        QVERIFY2(s.labelText(QStringLiteral("tunnelError")).startsWith(QLatin1String("last error: ")),
                 qPrintable(s.labelText(QStringLiteral("tunnelError"))));
        QVERIFY(!s.labelText(QStringLiteral("tunnelError")).contains(QLatin1String("sk-test")));
        saveScreenshot(s.popup(), QStringLiteral("tray_tunnel_failed"));
        qunsetenv("FAKE_TUNNEL_EXIT_AFTER_S");
    }

    // The tunnel on, but no tunnel id and key were ever given (no files, no keychain): ChatGPT is an
    // optional step not taken yet, so the first run is not red.
    void aTunnelNeverSetUpIsNotAFailure()
    {
        TestEnvironment env;
        env.set(QStringLiteral("CHAT2SBX_ENABLE_TUNNEL"), QStringLiteral("1"));
        env.set(QStringLiteral("CHAT2SBX_TUNNEL_CLIENT"), fakeTunnelClientPath());
        env.set(QStringLiteral("CHAT2SBX_SECRET_DIR"), env.root() + QStringLiteral("/no-secrets"));
        TraySession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        s.tray->openPopup();
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));
        s.popup().header().setDetailsShown(true);
        QTRY_COMPARE_WITH_TIMEOUT(s.labelText(QStringLiteral("tunnel")), QStringLiteral("not set up yet (local-only)"),
                                  chat2sbx::test::scaled(10000));
        QCOMPARE(s.popup().header().stateText(), QStringLiteral("Ready · ChatGPT not connected yet"));
        QVERIFY(s.tray->state() != ui::TrayState::Error);
        QVERIFY(!s.find<QLabel>(QStringLiteral("tunnelError"))->isVisible());   // no red "last error"
        // The guide's ChatGPT step: the two steps, in a few lines (it was an 11-line paragraph).
        QWidget *chatGptStep = s.find<QWidget>(QStringLiteral("step:chatgpt"));
        QVERIFY(chatGptStep);
        QLabel *stepDetail = chatGptStep->findChild<QLabel *>(QStringLiteral("stepDetail"));
        QVERIFY(stepDetail);
        const QString step = stepDetail->text();
        QVERIFY2(step.startsWith(QStringLiteral("Choose the tunnel id and key files")) && step.size() < 220, qPrintable(step));
        saveScreenshot(s.popup(), QStringLiteral("tray_tunnel_not_set_up"));
    }

    // A clone sandbox with changes: its one-line summary and "Fetch as branch" in the Workspaces
    // section; Fetch makes the host branch; Revoke (confirmed) saves the rest and withdraws access.
    void workspacesFetchAsBranchAndRevoke()
    {
        TestEnvironment env;
        const QString root = QDir(env.root()).canonicalPath() + QStringLiteral("/repos");
        const QString repo = root + QStringLiteral("/webapp");
        QVERIFY(QDir().mkpath(repo));
        auto git = [&repo](const QStringList &args) {
            return QString::fromUtf8(runProcess(QStringLiteral("git"), args, {}, repo).out).trimmed();
        };
        git({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")});
        QVERIFY(writeFile(repo + QStringLiteral("/app.py"), "print('hello')\n"));
        git({QStringLiteral("add"), QStringLiteral(".")});
        git({QStringLiteral("-c"), QStringLiteral("user.name=u"), QStringLiteral("-c"), QStringLiteral("user.email=u@example.com"),
             QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("initial")});
        env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), root);
        TraySession s(env);
        s.tray->addWorkspaces(*s.models.workspaces);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        const auto ws = s.controller->workspaces().registerHost(repo, WorkspaceMode::Clone, error);
        QVERIFY2(ws, qPrintable(error));

        const QJsonObject created = s.mcp.callToolResult(QStringLiteral("sandbox_create"), {{QStringLiteral("workspace_id"), ws->id}}, 60000);
        const QString id = created.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
        QVERIFY2(id.startsWith(QLatin1String("sbx_")), qPrintable(compact(created)));
        const QJsonObject work = s.mcp.callToolResult(
            QStringLiteral("bash"),
            {{QStringLiteral("sandbox_id"), id}, {QStringLiteral("yield_time_ms"), 30000},
             {QStringLiteral("command"), QStringLiteral("echo \"print('bye')\" >> app.py && git -c user.name=agent -c user.email=a@example.com "
                                                        "commit -qam 'Say goodbye' && echo 'flask' > requirements.txt")}},
            60000);
        QVERIFY2(work.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("exit_code")).toInt(-1) == 0,
                 qPrintable(compact(work)));

        s.tray->openPopup();
        QVERIFY(QTest::qWaitForWindowExposed(&s.popup()));
        QVERIFY(s.popup().workspaces());
        s.popup().workspaces()->rebuild();
        QTRY_VERIFY_WITH_TIMEOUT(s.find<QPushButton>(QStringLiteral("fetch:") + id), chat2sbx::test::scaled(10000));
        QTRY_VERIFY2_WITH_TIMEOUT(s.labelText(QStringLiteral("changes:") + id).contains(QStringLiteral("1 commit · 2 files +2 −0")),
                                  qPrintable(s.labelText(QStringLiteral("changes:") + id)), chat2sbx::test::scaled(20000));
        QVERIFY(s.find<QPushButton>(QStringLiteral("revoke:") + ws->id));
        QVERIFY2(s.find<QWidget>(QStringLiteral("sandbox:") + id)->findChild<QLabel *>(QStringLiteral("detail"))->text().contains(
                     QLatin1String("mode: clone of ") + repo),
                 "the sandbox row shows the mode");
        s.popup().fitToContent();
        saveScreenshot(s.popup(), QStringLiteral("tray_workspaces_clone_changes"));

        const QString head = git({QStringLiteral("rev-parse"), QStringLiteral("HEAD")});
        QTest::mouseClick(s.find<QPushButton>(QStringLiteral("fetch:") + id), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().workspaces()->message().contains(QStringLiteral("chat2sbx/") + id), chat2sbx::test::scaled(60000));
        QCOMPARE(git({QStringLiteral("log"), QStringLiteral("--format=%s"), QStringLiteral("main..chat2sbx/") + id}),
                 QStringLiteral("chat2sbx: uncommitted changes of the sandbox (staged, unstaged and untracked files)\nSay goodbye"));
        QCOMPARE(git({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}), head);
        QCOMPARE(git({QStringLiteral("status"), QStringLiteral("--porcelain")}), QString());
        saveScreenshot(s.popup(), QStringLiteral("tray_workspaces_fetched"));

        QTest::mouseClick(s.find<QPushButton>(QStringLiteral("revoke:") + ws->id), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().workspaces()->confirmation(), chat2sbx::test::scaled(5000));
        QMessageBox *box = s.popup().workspaces()->confirmation();
        QVERIFY(box->text().contains(repo));
        QTest::mouseClick(box->findChild<QPushButton *>(QStringLiteral("confirmRevoke")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.popup().workspaces()->message().contains(QLatin1String("revoked")), chat2sbx::test::scaled(60000));
        QCOMPARE(s.controller->sandboxes().get(id)->record.state, SandboxState::Destroyed);
        QTRY_VERIFY_WITH_TIMEOUT(!s.find<QWidget>(QStringLiteral("workspace:") + ws->id), chat2sbx::test::scaled(5000));
        saveScreenshot(s.popup(), QStringLiteral("tray_workspaces_revoked"));
    }

    void noSystemTraySaysSoAndOffersServe()
    {
        if (QSystemTrayIcon::isSystemTrayAvailable())
            QSKIP("this desktop has a system tray");
        TestEnvironment env;
        for (const QStringList &args : {QStringList{QStringLiteral("tray")}, QStringList{}}) {
            const CliResult r = runCli(env, args, 30000);
            QVERIFY2(r.exitCode != 0, r.err.constData());
            QVERIFY2(r.err.contains("no system tray is available"), r.err.constData());
            QVERIFY2(r.err.contains("chat2sbx serve"), r.err.constData());
        }
        // Nothing was started: no pid file left, nothing listening.
        QVERIFY(!QFileInfo::exists(env.config().pidFilePath()));
    }

private:
    PrivateBus m_bus;
};

QTEST_MAIN(TestTray)
#include "tst_tray.moc"
