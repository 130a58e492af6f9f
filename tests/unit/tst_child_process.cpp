// core/ChildProcess, the one runner of short children, with real small programs: exit codes, a
// crash, the timeout's kill, the output caps, a program that does not exist, the environment passed
// exactly, stdin; `done` exactly once and from the event loop; never after its context is destroyed.
#include "TestSupport.h"

#include "core/ChildProcess.h"

#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

ChildSpec shell(const QString &script, int timeoutMs = 20000)
{
    ChildSpec spec;
    spec.program = QStringLiteral("/bin/sh");
    spec.arguments = {QStringLiteral("-c"), script};
    spec.environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
    spec.timeoutMs = scaled(timeoutMs);
    return spec;
}

bool processGone(qint64 pid)
{
    return !QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid));
}

} // namespace

Q_DECLARE_METATYPE(ChildSpec)

class TestChildProcess : public QObject {
    Q_OBJECT

    // Runs `spec`, waits for `done` and a little longer (a second call would show). A call made
    // inside run() itself is left out, so that the count shows it.
    static QList<ChildResult> runToEnd(const ChildSpec &spec)
    {
        QList<ChildResult> calls;
        bool running = true;
        QObject context;   // declared after what `done` writes to: destroyed first
        ChildProcess::run(spec, &context, [&calls, &running](const ChildResult &r) {
            if (!running)
                calls.append(r);
        });
        running = false;
        waitFor([&] { return !calls.isEmpty(); }, 20000);
        QTest::qWait(100);
        return calls;
    }

private slots:
    void outcomes_data()
    {
        QTest::addColumn<ChildSpec>("spec");
        QTest::addColumn<bool>("started");
        QTest::addColumn<bool>("timedOut");
        QTest::addColumn<bool>("crashed");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("out");
        QTest::addColumn<QByteArray>("err");
        QTest::addColumn<bool>("outTruncated");
        QTest::addColumn<bool>("errTruncated");

        QTest::newRow("exit 0") << shell("echo out; echo err >&2") << true << false << false << 0
                                << QByteArray("out\n") << QByteArray("err\n") << false << false;
        QTest::newRow("exit 3") << shell("echo partial; exit 3") << true << false << false << 3
                                << QByteArray("partial\n") << QByteArray() << false << false;
        QTest::newRow("killed by a signal") << shell("echo before; kill -9 $$") << true << false << true << 9
                                            << QByteArray("before\n") << QByteArray() << false << false;

        ChildSpec slow = shell("echo early; exec sleep 30", 300);
        QTest::newRow("timeout kills") << slow << true << true << false << -1 << QByteArray("early\n") << QByteArray()
                                       << false << false;

        ChildSpec big = shell("head -c 100000 /dev/zero | tr '\\0' o; head -c 5000 /dev/zero | tr '\\0' e >&2");
        big.maxOutBytes = 1000;
        big.maxErrBytes = 10;
        QTest::newRow("output caps") << big << true << false << false << 0 << QByteArray(1000, 'o') << QByteArray(10, 'e')
                                     << true << true;
        ChildSpec merged = shell("echo one; echo two >&2");
        merged.mergeOutput = true;
        QTest::newRow("stderr merged") << merged << true << false << false << 0 << QByteArray("one\ntwo\n") << QByteArray()
                                       << false << false;

        ChildSpec missing;
        missing.program = QStringLiteral("/nonexistent/chat2sbx-no-such-program");
        QTest::newRow("program does not exist") << missing << false << false << false << -1 << QByteArray() << QByteArray()
                                                << false << false;

        // The environment is exactly the spec's: the test's own HOME does not reach the child.
        ChildSpec exact = shell("printf '%s|%s' \"$FOO\" \"${HOME-unset}\"");
        exact.environment.insert(QStringLiteral("FOO"), QStringLiteral("bar"));
        QTest::newRow("environment exactly") << exact << true << false << false << 0 << QByteArray("bar|unset")
                                             << QByteArray() << false << false;
        ChildSpec inheriting = shell("printf '%s' \"${HOME-unset}\"");
        inheriting.environment = QProcessEnvironment(QProcessEnvironment::InheritFromParent);
        QTest::newRow("an inheriting environment passes nothing")
            << inheriting << true << false << false << 0 << QByteArray("unset") << QByteArray() << false << false;

        ChildSpec input = shell("cat; echo '|'");
        input.input = "fed through stdin";
        QTest::newRow("input then end of file") << input << true << false << false << 0
                                                << QByteArray("fed through stdin|\n") << QByteArray() << false << false;
        QTest::newRow("no input: stdin at its end") << shell("cat; echo done") << true << false << false << 0
                                                    << QByteArray("done\n") << QByteArray() << false << false;
    }

    void outcomes()
    {
        QFETCH(ChildSpec, spec);
        QVERIFY(qEnvironmentVariableIsSet("HOME"));
        const QList<ChildResult> calls = runToEnd(spec);
        QCOMPARE(calls.size(), 1);
        const ChildResult &r = calls.first();
        QTEST(r.started, "started");
        QTEST(r.timedOut, "timedOut");
        QTEST(r.crashed, "crashed");
        QTEST(r.exitCode, "exitCode");
        QTEST(r.out, "out");
        QTEST(r.err, "err");
        QTEST(r.outTruncated, "outTruncated");
        QTEST(r.errTruncated, "errTruncated");
        QCOMPARE(r.ok(), r.started && r.exitCode == 0 && !r.timedOut && !r.crashed);
        QCOMPARE(r.startError.isEmpty(), r.started);
    }

    // Without a context (TunnelDoctor's case) the runner goes by itself once it reported.
    void runsWithoutAContext()
    {
        auto calls = std::make_shared<int>(0);
        ChildProcess::run(shell(QStringLiteral("exit 0")), nullptr, [calls](const ChildResult &r) {
            if (r.ok())
                ++*calls;
        });
        QVERIFY(waitFor([&] { return *calls > 0; }, 20000));
        QTest::qWait(100);
        QCOMPARE(*calls, 1);
    }

    // The child killed at its timeout is reaped from the event loop: no zombie stays behind.
    void timedOutChildIsReaped()
    {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        const QList<ChildResult> calls = runToEnd(shell(QStringLiteral("echo $$ >'%1'; exec sleep 30").arg(pidFile), 300));
        QCOMPARE(calls.size(), 1);
        QVERIFY(calls.first().timedOut);
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const qint64 pid = f.readAll().trimmed().toLongLong();
        QVERIFY(pid > 0);
        QVERIFY(waitFor([&] { return processGone(pid); }, 5000));
    }

    // Destroying the context kills the child; `done` never runs.
    void destroyWhileRunning()
    {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        auto *context = new QObject;
        int calls = 0;
        ChildProcess::run(shell(QStringLiteral("echo $$ >'%1.tmp'; mv '%1.tmp' '%1'; exec sleep 30").arg(pidFile)), context,
                          [&calls](const ChildResult &) { ++calls; });
        QVERIFY(waitFor([&] { return QFile::exists(pidFile); }, 10000));
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const qint64 pid = f.readAll().trimmed().toLongLong();
        QVERIFY(pid > 0);
        QVERIFY(!processGone(pid));
        delete context;
        QVERIFY(waitFor([&] { return processGone(pid); }, 5000));   // killed, then reaped from the loop
        QTest::qWait(200);
        QCOMPARE(calls, 0);
    }

    // A start failure, too, is never reported after the context is gone.
    void destroyBeforeAStartFailureIsReported()
    {
        auto *context = new QObject;
        int calls = 0;
        ChildSpec missing;
        missing.program = QStringLiteral("/nonexistent/chat2sbx-no-such-program");
        ChildProcess::run(missing, context, [&calls](const ChildResult &) { ++calls; });
        delete context;
        QTest::qWait(100);
        QCOMPARE(calls, 0);
    }

    // `done` may deleteLater its context (and with it the runner), whether the child ended or timed out.
    void doneMayDeleteLaterItsContext_data()
    {
        QTest::addColumn<int>("timeoutMs");
        QTest::addColumn<QString>("script");
        QTest::newRow("ended") << 20000 << QStringLiteral("exit 0");
        QTest::newRow("timed out") << 300 << QStringLiteral("exec sleep 30");
    }

    void doneMayDeleteLaterItsContext()
    {
        QFETCH(int, timeoutMs);
        QFETCH(QString, script);
        QPointer<QObject> context = new QObject;
        int calls = 0;
        ChildProcess::run(shell(script, timeoutMs), context, [&calls, context](const ChildResult &) {
            ++calls;
            context->deleteLater();
        });
        QVERIFY(waitFor([&] { return context.isNull(); }, 20000));
        QTest::qWait(100);
        QCOMPARE(calls, 1);
    }

    // A child that ends with the server never waits on the server after the fork: Qt 6.7 and newer
    // fork a child that has a modifier and hold it in a read until the parent has recorded it, and
    // a server killed in that moment left the child there for good with the server's lock and
    // socket (Debian 13: a restart after kill -9 found "another chat2sbx server is already running").
    void aChildThatEndsWithTheServerIsStartedWithoutAHandshake()
    {
        for (const int signal : {SIGKILL, SIGTERM}) {
            QProcess proc;
            ChildProcess::endWithServer(proc, signal);
            QVERIFY(proc.childProcessModifier());
#if QT_VERSION >= QT_VERSION_CHECK(6, 7, 0)
            QVERIFY(proc.unixProcessParameters().flags.testFlag(QProcess::UnixProcessFlag::UseVFork));
#endif
            // The modifier lets the child run: it is still this process's child when it runs.
            proc.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("exit 7")});
            QVERIFY(proc.waitForFinished(scaled(10000)));
            QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
            QCOMPARE(proc.exitCode(), 7);
        }
    }
};

QTEST_GUILESS_MAIN(TestChildProcess)
#include "tst_child_process.moc"
