// parseTunnelHealthDetails / tunnelDetailsProblem: tunnel-client's /health?details=true (newer than
// v0.0.14, docs/health.md), read for its control-plane and response-delivery components; unknown
// fields and components are ignored, another schema or junk is refused, nothing unbounded kept.
#include "tunnel/TunnelHealthDetails.h"

#include <QtTest>

using namespace chat2sbx;

class TestTunnelHealthDetails : public QObject {
    Q_OBJECT
private slots:
    void readsTheTwoComponents()
    {
        const QByteArray body = "{\"schema_version\":1,\"live\":true,\"ready\":true,\"snapshot_at\":\"2026-09-10T20:55:46Z\","
            "            \"runtime\":{\"version\":\"0.0.15\"},\"future_field\":{\"x\":1},"
            "            \"components\":{\"control-plane\":{\"status\":\"ok\",\"state\":\"polling\",\"details\":{\"poll_attempts\":12}},"
            "                          \"dispatcher\":{\"status\":\"ok\",\"state\":\"idle\"},"
            "                          \"response-delivery\":{\"status\":\"degraded\",\"state\":\"retrying\",\"reason_code\":\"upload_rejected\"}}}";
        const auto d = parseTunnelHealthDetails(body);
        QVERIFY(d);
        QVERIFY(d->ready);
        QCOMPARE(d->controlPlane.status, QStringLiteral("ok"));
        QVERIFY(d->responseDelivery.degraded());
        QCOMPARE(d->responseDelivery.reasonCode, QStringLiteral("upload_rejected"));
        QVERIFY(tunnelDetailsProblem(*d).contains(QStringLiteral("answers may not get back")));
    }

    void aDegradedControlPlaneComesFirst()
    {
        const auto d = parseTunnelHealthDetails("{\"schema_version\":1,\"ready\":true,\"components\":{"
            "            \"control-plane\":{\"status\":\"degraded\",\"state\":\"backoff\",\"reason_code\":\"http_401\"},"
            "            \"response-delivery\":{\"status\":\"degraded\"}}}");
        QVERIFY(d);
        QVERIFY(tunnelDetailsProblem(*d).contains(QStringLiteral("polls of the tunnel service degraded (http_401)")));
    }

    void compactOrHealthyMeansNoProblem()
    {
        const auto compact = parseTunnelHealthDetails("{\"schema_version\":1,\"live\":true,\"ready\":false}");
        QVERIFY(compact);
        QVERIFY(!compact->controlPlane.present);
        QVERIFY(tunnelDetailsProblem(*compact).isEmpty());
    }

    void refusesOtherSchemasJunkAndHostileText()
    {
        QVERIFY(!parseTunnelHealthDetails("{\"schema_version\":2,\"components\":{}}"));
        QVERIFY(!parseTunnelHealthDetails("404 page not found"));
        QVERIFY(!parseTunnelHealthDetails(QByteArray(70 * 1024, ' ') + "{\"schema_version\":1}"));
        const auto d = parseTunnelHealthDetails("{\"schema_version\":1,\"components\":{"
            "            \"response-delivery\":{\"status\":\"degraded\",\"reason_code\":\"\\u001b[2Kx; rm -rf\"}}}");
        QVERIFY(d);
        QVERIFY(d->responseDelivery.reasonCode.isEmpty());   // not an identifier: not shown
        QVERIFY(!tunnelDetailsProblem(*d).contains(QChar(0x1b)));
    }
};

QTEST_APPLESS_MAIN(TestTunnelHealthDetails)
#include "tst_tunnel_health_details.moc"
