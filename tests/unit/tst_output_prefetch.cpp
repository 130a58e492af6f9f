// OutputPrefetch: output buffered ahead of polls, used only where it continues, bounded in memory.
#include "sandbox/bash/OutputPrefetch.h"

#include <QtTest>

using namespace chat2sbx;

namespace {
qint64 g_now = 0;
qint64 now() { return g_now; }
} // namespace

class TestOutputPrefetch : public QObject {
    Q_OBJECT
private slots:
    void consumeMovesWithoutCopying()
    {
        OutputPrefetch p(1000, now);
        const QByteArray data("0123456789");
        p.keep("a", 100, data, 4, 110, "running");
        OutputPrefetch::Entry *e = p.find("a");
        QVERIFY(e);
        QCOMPARE(e->offset, 100);
        QCOMPARE(e->remaining(), 6);
        QCOMPARE(e->end(), 106);
        QVERIFY(e->data.isSharedWith(data));
        p.consume("a", 4);
        QCOMPARE(e->offset, 104);
        QCOMPARE(e->data.mid(e->from), QByteArray("89"));
        p.consume("a", 50);   // never past the end
        QCOMPARE(e->remaining(), 0);
        QCOMPARE(p.totalBytes(), 10);
    }

    void appendOnlyWhereItContinues()
    {
        OutputPrefetch p(1000, now);
        p.keep("a", 2, "abcdef", 2, 6, "running");   // output offset 2 is data[2]
        p.append("a", 5, "XYZ", 9, "running");   // a gap: ignored
        QCOMPARE(p.find("a")->end(), 6);
        p.append("a", 6, "ghi", 9, "exited:0");
        OutputPrefetch::Entry *e = p.find("a");
        QCOMPARE(e->data.mid(e->from), QByteArray("cdefghi"));
        QCOMPARE(e->offset, 2);
        QCOMPARE(e->size, 9);
        QCOMPARE(e->state, QStringLiteral("exited:0"));
        QCOMPARE(p.totalBytes(), 7);
        p.append("nobody", 0, "x", 1, "running");
        QVERIFY(!p.find("nobody"));
    }

    void keepPreservesAPendingReadAhead()
    {
        OutputPrefetch p(1000, now);
        p.keep("a", 0, "abc", 0, 3, "running");
        p.find("a")->fetching = true;
        p.keep("a", 3, "def", 0, 6, "running");
        QVERIFY(p.find("a")->fetching);
        QCOMPARE(p.totalBytes(), 3);
    }

    void memoryIsBoundedAndWaitersResume()
    {
        OutputPrefetch p(10, now);
        int resumed = 0;
        p.keep("a", 0, "aaaaaa", 0, 6, "running");
        p.find("a")->whenFetched = [&] { ++resumed; };
        p.keep("b", 0, "bbbbbb", 0, 6, "running");   // 12 > 10: "a" goes, its waiting poll resumes
        QVERIFY(!p.find("a"));
        QVERIFY(p.find("b"));
        QCOMPARE(resumed, 1);
        QCOMPARE(p.totalBytes(), 6);
        p.keep("b", 0, QByteArray(20, 'b'), 0, 20, "running");   // alone it may exceed the bound
        QCOMPARE(p.totalBytes(), 20);
        p.drop("b");
        QCOMPARE(p.totalBytes(), 0);
    }

    // A client that stops polling a stream does not keep its megabytes forever; a buffer with a
    // read-ahead on its way or a poll waiting for one is never dropped as idle.
    void idleBuffersAreDropped()
    {
        OutputPrefetch p(1000, now);
        g_now = 1000;
        p.keep("old", 0, "aaaa", 0, 4, "running");
        p.keep("busy", 0, "bbbb", 0, 4, "running");
        p.find("busy")->fetching = true;
        g_now = 50000;
        p.keep("fresh", 0, "cccc", 0, 4, "running");
        g_now = 61000;
        p.dropIdle(60000);
        QVERIFY(!p.find("old"));
        QVERIFY(p.find("busy"));
        QVERIFY(p.find("fresh"));
        p.consume("fresh", 1);   // a poll keeps it alive
        g_now = 120000;
        p.dropIdle(60000);
        QVERIFY(p.find("fresh"));
        QCOMPARE(p.totalBytes(), 8);
    }
};

QTEST_GUILESS_MAIN(TestOutputPrefetch)
#include "tst_output_prefetch.moc"
