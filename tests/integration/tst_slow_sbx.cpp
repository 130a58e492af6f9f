// chat2sbx on an sbx as slow as the real one was measured (the fake's FAKE_SBX_PROFILE=realistic:
// every command ~2.8 s, the first exec into a sandbox that sat idle 5.5 s more): none of the
// timeouts chat2sbx applies to sbx fires, and a request made while the control channel starts is
// not charged for the start. Kept short: a handful of sbx calls, about 20 s in all.
#include "InSandboxFixture.h"

#include "sandbox/sbx/SbxPolicy.h"

#include <QElapsedTimer>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestSlowSbx : public QObject {
    Q_OBJECT

private:
    InSandboxFixture f;

    SandboxChannel &channel() { return f.pool->channelFor(f.sandbox()); }
    SbxResult runSbx(const std::function<void(SbxDriver::Callback)> &call)
    {
        std::optional<SbxResult> result;
        call([&](const SbxResult &r) { result = r; });
        if (!waitFor([&] { return result.has_value(); }, 60000))
            return {};
        return *result;
    }

private slots:
    void initTestCase()
    {
        qputenv("FAKE_SBX_PROFILE", "realistic");
        QElapsedTimer t;
        t.start();
        QString error;
        QVERIFY2(f.setUp(error), qPrintable(error));
        // create (one command) and the channel's exec into a sandbox no exec has been in yet.
        qInfo("create and attach with the realistic profile: %lld ms", t.elapsed());
        QVERIFY2(t.elapsed() >= 2800 + 2800 + 5500, "the fake's realistic profile is not in effect");
        QVERIFY(writeFile(f.workspaceDir + QStringLiteral("/hello.txt"), "hello\n"));
    }

    // The driver's one-off calls keep within their timeouts (SbxDriver::Timeouts).
    void oneOffCallsFinish()
    {
        QElapsedTimer t;
        t.start();
        const SbxResult listed = runSbx([&](SbxDriver::Callback done) {
            f.driver->list([done](const SbxResult &r, const QList<SbxRuntimeInfo> &) { done(r); });
        });
        QVERIFY2(listed.ok, qPrintable(listed.error));
        QVERIFY(t.elapsed() >= 2800);
        const SbxResult log = runSbx([&](SbxDriver::Callback done) { f.driver->policyLog(f.sandbox().runtimeName, 10, std::move(done)); });
        QVERIFY2(log.ok, qPrintable(log.error));
        SbxExecSpec spec;
        spec.runtimeName = f.sandbox().runtimeName;
        spec.command = {QStringLiteral("cat"), f.workspaceDir + QStringLiteral("/hello.txt")};
        const SbxResult exec = runSbx([&](SbxDriver::Callback done) { f.driver->exec(spec, std::move(done)); });
        QVERIFY2(exec.ok, qPrintable(exec.error));
        QCOMPARE(exec.out, QByteArray("hello\n"));
    }

    // The channel restarts (after a stop, an exit, a wake): a request made meanwhile with a timeout
    // shorter than sbx takes to attach still gets its answer. Its timer runs from the helper's first
    // answer; the start itself is bounded by the channel's start timeout.
    void requestDuringAChannelStartIsNotChargedForIt()
    {
        channel().stop();
        QVERIFY(!channel().isRunning());
        const int startsBefore = channel().starts();
        QElapsedTimer t;
        t.start();
        std::optional<ChannelReply> reply;
        channel().request(QStringLiteral("read"), {QByteArrayLiteral("hello.txt"), "1", "10", "4096"}, 1500,
                          [&](const ChannelReply &r) { reply = r; });
        QVERIFY(waitFor([&] { return reply.has_value(); }, 60000));
        qInfo("read during the channel's start answered after %lld ms", t.elapsed());
        QVERIFY2(reply->ok, qPrintable(reply->error));
        QCOMPARE(reply->data, QByteArray("hello\n"));
        QVERIFY(t.elapsed() >= 2800);   // it did wait for sbx
        QCOMPARE(channel().starts(), startsBefore + 1);
    }

    // A tool call that has to wait for the channel to come up says so; the next one does not.
    void aCallThatWaitedForTheChannelSaysSo()
    {
        channel().stop();
        const ToolResult first = f.call(QStringLiteral("bash"), {{"command", "cat hello.txt"}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        QCOMPARE(first.structured.value(QStringLiteral("output")).toString(), QStringLiteral("hello\n"));
        QVERIFY2(first.structured.value(QStringLiteral("channel_note")).toString().contains(QLatin1String("took longer")),
                 qPrintable(InSandboxFixture::describe(first)));
        const ToolResult next = f.call(QStringLiteral("read"), {{"path", "hello.txt"}});
        QVERIFY2(!next.isError, qPrintable(InSandboxFixture::describe(next)));
        QVERIFY(!next.structured.contains(QStringLiteral("channel_note")));
    }

    // Through the tool layer, once the channel is up, sbx's cost is not paid again.
    void toolCallsOnARunningChannel()
    {
        QElapsedTimer t;
        t.start();
        const ToolResult r = f.call(QStringLiteral("bash"), {{"command", "cat hello.txt"}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("output")).toString(), QStringLiteral("hello\n"));
        qInfo("bash on a running channel: %lld ms", t.elapsed());
    }
};

QTEST_GUILESS_MAIN(TestSlowSbx)
#include "tst_slow_sbx.moc"
