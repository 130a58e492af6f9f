// StatusReport: what /healthz answers is what `chat2sbx status` reads back (counts, tunnel, sbx),
// a bare answer leaves the private parts unknown, and problems() names exactly what is wrong.
#include "config/Config.h"
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
