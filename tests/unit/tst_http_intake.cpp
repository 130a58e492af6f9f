// RequestIntake: what a connection may make the server buffer, decided on
// the raw bytes before QtHttpServer reads them.
#include "http/RequestIntake.h"

#include <QTest>

using namespace chat2sbx;

namespace {
RequestIntake::Limits limits()
{
    RequestIntake::Limits l;
    l.maxHeadBytes = 1024;
    l.maxBodyBytes = 4096;
    return l;
}

std::optional<RequestIntake::Rejection> feed(RequestIntake &intake, const QByteArray &bytes)
{
    return intake.onBytes(bytes.size(), bytes);
}
} // namespace

class TestHttpIntake : public QObject {
    Q_OBJECT
private slots:
    void largeContentLengthIsRefusedFromTheHeadAlone()
    {
        RequestIntake intake(limits());
        const auto r = feed(intake, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1073741824\r\n\r\n");
        QVERIFY(r);
        QCOMPARE(r->status, 413);
        QVERIFY(r->message.contains(QStringLiteral("1073741824")));
    }

    void headSplitAcrossReadsIsStillChecked()
    {
        RequestIntake intake(limits());
        QVERIFY(!feed(intake, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"));
        QVERIFY(intake.wantsBytes());
        const auto r = feed(intake, "ngth: 4097\r\n\r\n");
        QVERIFY(r);
        QCOMPARE(r->status, 413);
    }

    void bodyWithinTheLimitPasses()
    {
        RequestIntake intake(limits());
        QVERIFY(!feed(intake, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4096\r\n\r\n"));
        QVERIFY(!intake.wantsBytes());
        QVERIFY(!intake.onBytes(4096, {}));
        QVERIFY(!intake.onRequestTaken({}));
        QCOMPARE(intake.bytesSinceRequest(), qsizetype(0));
        QVERIFY(intake.wantsBytes());
    }

    void chunkedBodyIsCappedByBytesBuffered()
    {
        RequestIntake intake(limits());
        QVERIFY(!feed(intake, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"));
        std::optional<RequestIntake::Rejection> r;
        int chunks = 0;
        while (!(r = intake.onBytes(512, {})))
            QVERIFY2(++chunks < 100, "a chunked body was never capped");
        QCOMPARE(r->status, 413);
        QVERIFY(intake.bytesSinceRequest() <= intake.budget() + 512);
    }

    void headWithoutEndIsCapped()
    {
        RequestIntake intake(limits());
        QVERIFY(!feed(intake, "GET /mcp HTTP/1.1\r\n"));
        std::optional<RequestIntake::Rejection> r;
        for (int i = 0; i < 100 && !r; ++i)
            r = feed(intake, "X-Junk: " + QByteArray(40, 'j') + "\r\n");
        QVERIFY(r);
        QCOMPARE(r->status, 431);
    }

    void invalidOrConflictingContentLength()
    {
        QCOMPARE(RequestIntake::checkHead("POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", limits())->status, 400);
        QCOMPARE(RequestIntake::checkHead("POST / HTTP/1.1\r\nContent-Length: 12abc\r\n\r\n", limits())->status, 400);
        QCOMPARE(RequestIntake::checkHead("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", limits())->status, 400);
        QVERIFY(!RequestIntake::checkHead("POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n", limits()));
    }

    void absoluteFormMustNameTheHostHeader()
    {
        const auto evil = RequestIntake::checkHead("POST http://evil.com/mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", limits());
        QVERIFY(evil);
        QCOMPARE(evil->status, 400);
        QVERIFY(!RequestIntake::checkHead("POST http://127.0.0.1:8080/mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", limits()));
        QVERIFY(!RequestIntake::checkHead("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", limits()));
        QCOMPARE(RequestIntake::checkHead("POST mcp HTTP/1.1\r\nHost: x\r\n\r\n", limits())->status, 400);
    }

    void pipelinedRequestIsCheckedAfterTheFirst()
    {
        RequestIntake intake(limits());
        QVERIFY(!feed(intake, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}"));
        const auto r = intake.onRequestTaken("POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999\r\n\r\n");
        QVERIFY(r);
        QCOMPARE(r->status, 413);
    }
};

QTEST_GUILESS_MAIN(TestHttpIntake)
#include "tst_http_intake.moc"
