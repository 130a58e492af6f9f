// What chat2sbx reads from sbx and from command output about the network policy: the policy log in
// the fake's shape, in other plausible JSON shapes and as table text; the block signals in output.
#include "sandbox/sbx/SbxPolicy.h"
#include "tools/NetworkBlockDetector.h"

#include <QtTest>

using namespace chat2sbx;

class TestNetworkBlock : public QObject {
    Q_OBJECT

private slots:
    void policyLogShapes_data()
    {
        QTest::addColumn<QByteArray>("out");
        QTest::newRow("fake: bare array") << QByteArray(
            R"([{"sandbox":"rt1","domain":"a.example:443","decision":"blocked","count":2},{"sandbox":"rt1","domain":"b.example:443","decision":"allowed"}])");
        QTest::newRow("wrapped, other names, daemon lines first") << QByteArray(
            "Starting sandboxd daemon...\n"
            R"({"entries":[{"sandbox_name":"rt1","host":"a.example:443","action":"deny"},{"sandbox_name":"rt1","host":"b.example:443","action":"allow"}]})");
        QTest::newRow("table text") << QByteArray(
            "SANDBOX    HOST             PROXY      RULE       REASON                       LAST SEEN    COUNT\n"
            "rt1        a.example:443    forward    -          blocked by default deny      1m ago       2\n"
            "rt1        b.example:443    forward    allow b    matched allow rule           2m ago       1\n");
    }
    void policyLogShapes()
    {
        QFETCH(QByteArray, out);
        QList<SbxPolicyLogEntry> entries;
        QVERIFY(parsePolicyLog(out, entries));
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0).host, QStringLiteral("a.example:443"));
        QCOMPARE(entries.at(0).sandbox, QStringLiteral("rt1"));
        QVERIFY(entries.at(0).blocked);
        QVERIFY(!entries.at(1).blocked);
    }
    // Docker's Sandboxes API: `domain` names the policy domain that emitted the entry, never the
    // host; the host is in another field (the fake's FAKE_SBX_POLICY_LOG_SHAPE=api puts it in
    // `resource`); there is no sandbox field and `count` is an int64 that may come as a string.
    void policyLogApiShape()
    {
        const QByteArray out = R"({"entries":[)"
            R"({"count":"3","decision":"blocked","domain":"network","firstSeen":"2026-01-29T10:15:20Z","lastSeen":"2026-01-29T10:15:25Z","proxyType":"transparent","reason":"default-deny","resource":"blocked.example.com:443"},)"
            R"({"count":42,"decision":"allowed","domain":"network","proxyType":"forward","reason":"domain-allowed","resource":"api.example.com"},)"
            R"({"count":"1","decision":"blocked","domain":"unspecified","proxyType":"network","reason":"raw tcp","target":"10.1.2.3:22"},)"
            R"({"count":"1","decision":"blocked","domain":"unspecified","proxyType":"browser-open","url":"https://app.example.com/login?x=1"},)"
            R"({"count":"1","decision":"blocked","domain":"network","reason":"no host anywhere","rule":"default-deny"},)"
            R"({"count":"1","decision":"blocked","domain":"filesystem:read","resource":"/etc/shadow"})"
            R"(],"nextPageToken":""})";
        QList<SbxPolicyLogEntry> entries;
        QVERIFY(parsePolicyLog(out, entries));
        QStringList hosts;
        for (const SbxPolicyLogEntry &e : std::as_const(entries))
            hosts << e.host;
        QCOMPARE(hosts, (QStringList{QStringLiteral("blocked.example.com:443"), QStringLiteral("api.example.com"),
                                     QStringLiteral("10.1.2.3:22"), QStringLiteral("app.example.com")}));
        QVERIFY(entries.at(0).blocked);
        QVERIFY(!entries.at(1).blocked);
        QVERIFY(entries.at(0).sandbox.isEmpty());
        QCOMPARE(entries.at(0).count, 3);
        QCOMPARE(entries.at(1).count, 42);
        QCOMPARE(entries.at(0).lastSeen, QStringLiteral("2026-01-29T10:15:25Z"));
    }
    // The fake's older shape (and a CLI that prints one) still reads: a `domain` that is a host.
    void policyLogDomainAsHost()
    {
        QList<SbxPolicyLogEntry> entries;
        QVERIFY(parsePolicyLog(R"([{"domain":"network"},{"domain":"unspecified"},{"domain":"a.example"},{"domain":"127.0.0.1:8080"}])",
                               entries));
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0).host, QStringLiteral("a.example"));
        QCOMPARE(entries.at(1).host, QStringLiteral("127.0.0.1:8080"));
    }
    void unreadableLog()
    {
        QList<SbxPolicyLogEntry> entries;
        QVERIFY(!parsePolicyLog("no log here\n", entries));
        QVERIFY(!parsePolicyLog(R"({"message":"nothing"})", entries));
    }
    void detectsBlocks()
    {
        auto b = detectNetworkBlock(QStringLiteral("Blocked by network policy: domain registry.npmjs.org:443\n  detail: x\n"
                                                   "Blocked by network policy: domain 127.0.0.1:8080\n"));
        QVERIFY(b);
        QCOMPARE(b->hosts, (QStringList{QStringLiteral("registry.npmjs.org"), QStringLiteral("127.0.0.1:8080")}));
        QVERIFY(!b->weak);
        QVERIFY(b->hint.contains(QStringLiteral("network_request")));
        b = detectNetworkBlock(QStringLiteral("Approval required for pypi.org.\nReview and respond with:\n  sbx policy approval ls\n"));
        QVERIFY(b);
        QCOMPARE(b->hosts, QStringList{QStringLiteral("pypi.org")});
        b = detectNetworkBlock(QStringLiteral("curl: (56) CONNECT tunnel failed, response 403\n"));
        QVERIFY(b && b->hosts.isEmpty() && !b->weak);
        b = detectNetworkBlock(QStringLiteral("curl: (6) Could not resolve host: example.org\n"));
        QVERIFY(b && b->weak);
        QCOMPARE(b->hosts, QStringList{QStringLiteral("example.org")});
        QVERIFY(!detectNetworkBlock(QStringLiteral("HTTP 200 all good\n")));
    }
    void hostPatterns()
    {
        for (const char *ok : {"example.com", "*.npmjs.org", "127.0.0.1:8080", "registry.npmjs.org:443"})
            QVERIFY2(isRequestableHostPattern(QString::fromLatin1(ok)), ok);
        for (const char *bad : {"**", "*", "http://x.org", "a..b", "x.org:0", "x.org:70000", "-x.org", "a b", ""})
            QVERIFY2(!isRequestableHostPattern(QString::fromLatin1(bad)), bad);
    }
};

QTEST_GUILESS_MAIN(TestNetworkBlock)
#include "tst_network_block.moc"
