// StatusReport: what /healthz answers is what `chat2sbx status` reads back (counts, tunnel, sbx),
// a bare answer leaves the private parts unknown, and problems() names exactly what is wrong.
#include "config/Config.h"
#include "runtime/SetupChecklist.h"
#include "runtime/StatusReport.h"
#include "runtime/StatusReportBuilder.h"

#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;

namespace {

Config localOnly()
{
    Config c;
    c.enableTunnel = false;
    return c;
}

StatusReport serverReport()
{
    Config c = localOnly();
    c.maxActiveSandboxes = 3;
    StatusReport r = statusFromConfig(c);
    r.serverRunning = r.healthy = r.mcpReachable = true;
    r.version = QStringLiteral("9.9.9");
    r.uptimeMs = 4200;
    r.activeSandboxes = 2;
    r.warmSandboxes = 1;
    r.pendingApprovals = 5;
    r.sbx.state = SbxStatus::State::Ready;
    r.sbx.version = QStringLiteral("v0.47.0");
    r.sbx.signedIn = SbxStatus::Known::Yes;
    r.sbx.templatePresent = SbxStatus::Known::Yes;
    return r;
}

StatusReport readBack(const QJsonObject &health)
{
    StatusReport r = statusFromConfig(localOnly());
    applyHealthAnswer(r, health);
    r.mcpReachable = true;
    return r;
}

} // namespace

class TestStatusReport : public QObject {
    Q_OBJECT
private slots:
    // The first-run guide's optional "Docker cloud sandboxes" row: off says how to turn it on; on, it
    // says what `sbx --cloud diagnose` found, with the command when it fails; a host that makes its
    // sandboxes in the cloud needs no local runtime (its failing local steps are optional then).
    void theGuideHasACloudRow()
    {
        const auto cloudItem = [](const QList<ChecklistItem> &items) {
            for (const ChecklistItem &i : items)
                if (i.step == ChecklistItem::Step::CloudSandboxes)
                    return i;
            return ChecklistItem{};
        };
        StatusReport r = serverReport();
        QCOMPARE(cloudItem(setupChecklist(r)).state, ChecklistItem::State::Optional);
        QVERIFY(cloudItem(setupChecklist(r)).detail.contains(QLatin1String("cloudSandboxes")));
        QVERIFY(!setupNeeded(setupChecklist(r)));

        Config c = localOnly();
        c.cloudSandboxes = true;
        c.defaultPlacement = QStringLiteral("cloud");
        r = statusFromConfig(c);
        QCOMPARE(cloudItem(setupChecklist(r)).state, ChecklistItem::State::Checking);
        r.cloudState = QStringLiteral("not usable");
        r.cloudDetail = QStringLiteral("account access: FAIL (no active subscription)");
        ChecklistItem cloud = cloudItem(setupChecklist(r));
        QCOMPARE(cloud.state, ChecklistItem::State::ToDo);
        QCOMPARE(cloud.command, QStringLiteral("sbx --cloud diagnose"));
        QVERIFY2(cloud.detail.contains(QLatin1String("no active subscription")), qPrintable(cloud.detail));
        QVERIFY(setupNeeded(setupChecklist(r)));

        // No KVM here (local sbx does not answer), the cloud ready, creates go there: nothing to do.
        r.cloudState = QStringLiteral("ready");
        r.cloudDetail.clear();
        r.sbx.state = SbxStatus::State::NotAnswering;
        r.sbx.version = QStringLiteral("v0.47.0");
        r.sbx.problem = QStringLiteral("sbx does not answer: the sandbox runtime cannot start (no /dev/kvm)");
        QList<ChecklistItem> items = setupChecklist(r);
        QCOMPARE(cloudItem(items).state, ChecklistItem::State::Done);
        QVERIFY(!setupNeeded(items));
        QCOMPARE(items.first().state, ChecklistItem::State::Optional);
        QVERIFY2(items.first().detail.contains(QLatin1String("/dev/kvm")), qPrintable(items.first().detail));
        // ...but where creates stay local, the local runtime is still to fix.
        r.defaultPlacement = QStringLiteral("local");
        QVERIFY(setupNeeded(setupChecklist(r)));
        // And sbx itself missing is never optional: it is what talks to the cloud.
        r.defaultPlacement = QStringLiteral("cloud");
        r.sbx.state = SbxStatus::State::NotInstalled;
        r.sbx.version.clear();
        QVERIFY(setupNeeded(setupChecklist(r)));
    }

    void healthAnswerRoundTrips()
    {
        const StatusReport sent = serverReport();
        QVERIFY(sent.problems().isEmpty());
        const StatusReport got = readBack(sent.toHealthJson());
        QVERIFY(got.healthy);
        QCOMPARE(got.version, sent.version);
        QCOMPARE(got.uptimeMs, qint64(4200));
        QCOMPARE(got.activeSandboxes, qint64(2));
        QCOMPARE(got.warmSandboxes, qint64(1));
        QCOMPARE(got.pendingApprovals, qint64(5));
        QCOMPARE(got.tunnelState, QStringLiteral("disabled"));
        QCOMPARE(got.sbx.state, SbxStatus::State::Ready);
        QCOMPARE(got.sbx.summary(), sent.sbx.summary());
        QVERIFY(got.problems().isEmpty());
    }

    void bareAnswerLeavesDetailsUnknown()
    {
        const StatusReport got = readBack(serverReport().toBareHealthJson());
        QVERIFY(got.healthy);
        QCOMPARE(got.activeSandboxes, qint64(-1));
        QCOMPARE(got.pendingApprovals, qint64(-1));
        QVERIFY(!got.sbx.checked());
        QVERIFY(!QJsonDocument(serverReport().toBareHealthJson()).toJson().contains("\"sbx\""));
    }

    void sbxProblemsComeBackFromTheServer_data()
    {
        QTest::addColumn<int>("state");
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("createProblem");
        QTest::addColumn<QString>("jsonState");
        QTest::newRow("template missing") << int(SbxStatus::State::TemplateMissing)
                                          << "template missing: run `chat2sbx setup`" << QString() << "template_missing";
        QTest::newRow("no policy (from a create)") << int(SbxStatus::State::Ready) << QString()
                                                   << "sbx has no network policy: run `sbx policy init balanced`" << "create_failed";
    }
    void sbxProblemsComeBackFromTheServer()
    {
        QFETCH(int, state);
        QFETCH(QString, problem);
        QFETCH(QString, createProblem);
        QFETCH(QString, jsonState);
        StatusReport sent = serverReport();
        sent.sbx.state = SbxStatus::State(state);
        sent.sbx.problem = problem;
        sent.sbx.createProblem = createProblem;
        const QString expected = problem.isEmpty() ? createProblem : problem;
        QCOMPARE(sent.problems(), QStringList{expected});
        QCOMPARE(sent.toCliJson().value("sbx").toObject().value("state").toString(), jsonState);
        QCOMPARE(sent.toCliJson().value("healthy").toBool(), false);

        const StatusReport got = readBack(sent.toHealthJson());
        QVERIFY(!got.sbx.ready());
        QCOMPARE(got.problems(), QStringList{expected});
        QVERIFY(got.toText().contains("sbx:        " + expected + "\n"));
    }

    // Between two restarts of a client that keeps exiting the tunnel is "starting": the reason it
    // stopped last is still named.
    void restartingTunnelNamesItsLastError()
    {
        StatusReport r = serverReport();
        r.tunnelEnabled = true;
        r.tunnelState = QStringLiteral("starting");
        r.tunnel = {{"state", "starting"}, {"detail", "waiting for tunnel-client to become ready"},
                    {"lastError", "tunnel-client exited with code 7"}, {"restarts", 3}};
        QCOMPARE(r.problems(), QStringList{"tunnel is starting: waiting for tunnel-client to become ready "
                                           "(last error: tunnel-client exited with code 7)"});
        r.tunnel.remove("lastError");
        QCOMPARE(r.problems(), QStringList{"tunnel is starting: waiting for tunnel-client to become ready"});
    }

    void notRunningNamesTheServerFirst()
    {
        StatusReport r = statusFromConfig(localOnly());
        QCOMPARE(r.problems(), QStringList{"server is not running"});
        r.sbx.state = SbxStatus::State::NotSignedIn;
        r.sbx.problem = QStringLiteral("sbx is not signed in: run `sbx login`");
        QCOMPARE(r.problems(), (QStringList{"server is not running", r.sbx.problem}));
        QCOMPARE(r.toCliJson().value("sandboxes").toObject().value("active"), QJsonValue());
        QVERIFY(r.toText().contains("sandboxes:  ? active / limit unlimited"));
    }
};

QTEST_GUILESS_MAIN(TestStatusReport)
#include "tst_status_report.moc"
