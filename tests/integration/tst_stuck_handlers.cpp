// Requests that time out on the host must not leave their handler running in the
// VM, and a helper the channel replaced must not stay behind. Runs against a fake-sbx sandbox
// (bubblewrap without a pid namespace: the sandbox's processes are visible in this /proc).
#include "InSandboxFixture.h"
#include "SandboxProcesses.h"

#include <algorithm>
#include <QtTest>

#include <memory>
#include <optional>

#include <sys/stat.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestStuckHandlers : public QObject {
    Q_OBJECT

private:
    InSandboxFixture f;
    QString m_session;

    SandboxChannel &channel() { return f.pool->channelFor(f.sandbox()); }
    QString helperPid()
    {
        QFile file(f.env.sbxState() + QStringLiteral("/sandboxes/") + f.sandbox().runtimeName
                   + QStringLiteral("/home/.chat2sbx/helper.pid"));
        return file.open(QIODevice::ReadOnly) ? QString::fromLatin1(file.readAll()).trimmed() : QString();
    }
    bool pingIn(ChannelPool &pool)
    {
        std::optional<ChannelReply> reply;
        pool.channelFor(f.sandbox()).ping(10000, [&](const ChannelReply &r) { reply = r; });
        return waitFor([&] { return reply.has_value(); }, 15000) && reply->ok;
    }
    bool pingOk() { return pingIn(*f.pool); }

private slots:
    void initTestCase()
    {
        QString error;
        QVERIFY2(f.setUp(error), qPrintable(error));
        QVERIFY(pingOk());
    }

    // A bash session started before the cancels and the reap: it must survive both.
    void startASession()
    {
        const ToolResult r = f.call(QStringLiteral("bash"), {{"command", "sleep 300"}, {"yield_time_ms", 0}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("status")).toString(), QStringLiteral("running"));
        m_session = r.structured.value(QStringLiteral("session_id")).toString();
    }

    void timedOutReadsOfAFifoLeaveNoHandler()
    {
        const QString fifo = f.workspaceDir + QStringLiteral("/nobody-writes");
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const QString helper = helperPid();
        QVERIFY(!helper.isEmpty());
        // The idle helper: itself and its long-lived children (the response writer).
        const QStringList idle = helperProcesses(f.sandbox().runtimeName);
        QVERIFY(idle.contains(helper));

        int failed = 0;
        const int reads = 10;
        for (int i = 0; i < reads; ++i) {
            channel().request(QStringLiteral("read"), {fifo.toUtf8(), "1", "100", "4096"}, 1000,
                              [&](const ChannelReply &r) {
                                  if (!r.ok && r.channelFailure)
                                      ++failed;
                              });
        }
        QVERIFY(waitFor([&] { return failed == reads; }, 20000));
        // Each handler blocks opening the FIFO for good unless the host's cancel killed it. Compared
        // as sets: a process of the idle list may have ended since (the previous call's handler
        // exits just after its answer), only a new one is a handler left behind.
        auto leftBehind = [&] {
            QStringList left = helperProcesses(f.sandbox().runtimeName);
            left.removeIf([&](const QString &pid) { return idle.contains(pid); });
            return left;
        };
        // A handler the cancel missed blocks for good, so a long wait costs nothing when all is well;
        // the cancels are handled one after the other, each a walk over /proc (which, without a pid
        // namespace, holds every process of this machine: thousands on a busy one).
        const bool clean = waitFor([&] { return leftBehind().isEmpty(); }, 60000);
        QVERIFY2(clean, qPrintable(QStringLiteral("left in the sandbox: %1 (before the reads: %2)")
                                       .arg(leftBehind().join(' '), idle.join(' '))));
        // The channel itself was never restarted and still answers.
        QCOMPARE(helperPid(), helper);
        QVERIFY(pingOk());
        QFile::remove(fifo);
    }

    void stoppedHelperIsReapedAfterTheRestart()
    {
        const QString stalled = helperPid();
        QVERIFY(!stalled.isEmpty());
        const QStringList old = helperProcesses(f.sandbox().runtimeName);   // the helper and its children
        const int startsBefore = channel().starts();
        QVERIFY(f.exec({QStringLiteral("kill"), QStringLiteral("-STOP"), stalled}).ok);

        std::optional<ChannelReply> reply;
        channel().request(QStringLiteral("ping"), {}, 1000, [&](const ChannelReply &r) { reply = r; });
        QVERIFY(waitFor([&] { return reply.has_value(); }, 5000));
        QVERIFY(!reply->ok && reply->channelFailure);
        QVERIFY(waitFor([&] { return channel().starts() > startsBefore && channel().isHealthy(); }, 15000));

        // The stopped helper never notices its closed stdin: the new one removes it.
        const bool reaped = waitFor([&] { return isGone(stalled); }, 10000);
        if (!reaped)
            f.exec({QStringLiteral("kill"), QStringLiteral("-KILL"), stalled});
        QVERIFY2(reaped, qPrintable(QStringLiteral("the stopped helper %1 is still there").arg(stalled)));
        const QString current = helperPid();
        QVERIFY(current != stalled);
        // Its children (the response writer) go too, and what runs now belongs to the new helper.
        const bool allGone = waitFor([&] {
            const QStringList now = helperProcesses(f.sandbox().runtimeName);
            return std::none_of(old.begin(), old.end(), [&](const QString &p) { return now.contains(p); });
        }, 5000);
        QVERIFY2(allGone, qPrintable(QStringLiteral("left of the old helper: ") + old.join(' ')
                                     + QStringLiteral("; now: ") + helperProcesses(f.sandbox().runtimeName).join(' ')));
        QVERIFY(helperProcesses(f.sandbox().runtimeName).contains(current));
        QVERIFY(pingOk());
    }

    // A helper killed outright leaves its children (the response writer) to the next one's sweep.
    void killedHelperLeavesNothingBehind()
    {
        const QString killed = helperPid();
        const QStringList old = helperProcesses(f.sandbox().runtimeName);
        QVERIFY(old.size() > 1);
        const int startsBefore = channel().starts();
        QVERIFY(f.exec({QStringLiteral("kill"), QStringLiteral("-KILL"), killed}).ok);
        QVERIFY(waitFor([&] { return channel().starts() > startsBefore && channel().isHealthy(); }, 15000));
        const bool allGone = waitFor([&] {
            const QStringList now = helperProcesses(f.sandbox().runtimeName);
            return std::none_of(old.begin(), old.end(), [&](const QString &p) { return now.contains(p); });
        }, 5000);
        QVERIFY2(allGone, qPrintable(QStringLiteral("left of the killed helper: ") + old.join(' ')
                                     + QStringLiteral("; now: ") + helperProcesses(f.sandbox().runtimeName).join(' ')));
        QVERIFY(pingOk());
    }

    // A CLI command's channel (owner cli-<pid>) beside the server's: neither helper replaces the
    // other. A new channel of the server's owner (a server restarted after kill -9) replaces only
    // the server's old helper. The old server is dead, so nothing on the host restarts its channel:
    // a live channel of the same owner would start a helper that replaces the new one in turn (each
    // exit restarts the other at once), and the new one's first ping would fail whenever the old
    // channel's restart won the race (every time on a fast idle machine).
    void ownersKeepTheirHelpersApart()
    {
        f.pool->detach(f.id());   // the fixture's channel sits out; pingOk() below starts it again
        ChannelPool dead(*f.driver, SandboxChannel::Options{});   // owner "server", the killed server's
        dead.setRestartAfterExitCheck(true);   // exits are reported, nothing restarts
        int deadExits = 0;
        connect(&dead, &ChannelPool::channelExited, this, [&] { ++deadExits; });
        QVERIFY(pingIn(dead));
        const QString serverHelper = helperPid();
        QVERIFY(!serverHelper.isEmpty());
        const int deadStarts = dead.channelFor(f.sandbox()).starts();

        SandboxChannel::Options cliOptions;
        cliOptions.owner = QStringLiteral("cli-4242");
        ChannelPool cli(*f.driver, cliOptions);
        QVERIFY(pingIn(cli));
        const QString cliHelper = helperPid();
        QVERIFY(cliHelper != serverHelper);
        QVERIFY(pingIn(dead));
        QVERIFY2(!isGone(serverHelper), "the CLI's helper killed the server's");
        QCOMPARE(dead.channelFor(f.sandbox()).starts(), deadStarts);
        QCOMPARE(deadExits, 0);

        ChannelPool restarted(*f.driver, SandboxChannel::Options{});   // owner "server"
        QVERIFY(pingIn(restarted));
        QVERIFY2(waitFor([&] { return isGone(serverHelper); }, 5000), "the server's old helper is still there");
        QVERIFY(waitFor([&] { return deadExits == 1; }, 5000));   // its sbx exec ended with it
        QVERIFY2(!isGone(cliHelper), "a server helper killed the CLI's");
        QVERIFY(pingIn(cli));
        QVERIFY(pingIn(restarted));
        QCOMPARE(restarted.channelFor(f.sandbox()).starts(), 1);
        QCOMPARE(cli.channelFor(f.sandbox()).starts(), 1);
        dead.detach(f.id());
        cli.detach(f.id());
        restarted.detach(f.id());
        QVERIFY(pingOk());   // the fixture's own channel starts again
    }

    // A host that is ending (ChannelPool::beginExit) neither kills its children nor ends their input
    // while its event loop runs; once the pool goes, their input ends and each helper finishes by
    // itself (its run folder removed by itself, which a killed helper leaves), its child with it.
    void anEndingHostLetsItsHelperGo()
    {
        SandboxChannel::Options options;
        options.owner = QStringLiteral("cli-5151");
        auto ending = std::make_unique<ChannelPool>(*f.driver, options);
        QVERIFY(pingIn(*ending));
        const QString runs = f.env.sbxState() + QStringLiteral("/sandboxes/") + f.sandbox().runtimeName + QStringLiteral("/home/.chat2sbx/run");
        auto runFolderOf = [&](const QString &pid) {
            for (const QString &d : QDir(runs).entryList({QStringLiteral("h.*")}, QDir::Dirs)) {
                QFile file(runs + QLatin1Char('/') + d + QStringLiteral("/pid"));
                if (file.open(QIODevice::ReadOnly) && file.readAll().trimmed() == pid.toLatin1())
                    return d;
            }
            return QString();
        };
        const QString helper = helperPid();
        QVERIFY(!runFolderOf(helper).isEmpty());
        const QByteArray fields = procFile(helper, "stat");
        const QString child = QString::fromLatin1(fields.mid(fields.lastIndexOf(')') + 2).split(' ').value(1));   // `sbx exec` (or bwrap)
        QVERIFY(child.toInt() > 1);

        ending->beginExit();
        ending->detach(f.id());
        QTest::qWait(300);
        QVERIFY2(!isGone(child) && !isGone(helper), "the child ended while its host's event loop still ran");
        ending.reset();
        QVERIFY2(waitFor([&] { return isGone(helper) && isGone(child); }, 15000), "the helper did not end after its host");
        QVERIFY2(runFolderOf(helper).isEmpty(), "the helper was killed: its run folder is left");
        QVERIFY(pingOk());
    }

    void theSessionSurvived()
    {
        QVERIFY(!m_session.isEmpty());
        const ToolResult r = f.call(QStringLiteral("bash_poll"), {{"session_id", m_session}, {"yield_time_ms", 0}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("status")).toString(), QStringLiteral("running"));
        QVERIFY(!f.call(QStringLiteral("bash_stop"), {{"session_id", m_session}}).isError);
    }
};

QTEST_GUILESS_MAIN(TestStuckHandlers)
#include "tst_stuck_handlers.moc"
