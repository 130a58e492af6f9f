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
