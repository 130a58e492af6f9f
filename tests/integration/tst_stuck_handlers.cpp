// Issue 22, item 11: requests that time out on the host must not leave their handler running in the
// VM, and a helper the channel replaced must not stay behind. Runs against a fake-sbx sandbox
// (bubblewrap without a pid namespace: the sandbox's processes are visible in this /proc).
#include "InSandboxFixture.h"

#include <QDirIterator>
#include <QtTest>

#include <sys/stat.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QByteArray procFile(const QString &pid, const char *name)
{
    QFile f(QStringLiteral("/proc/%1/%2").arg(pid, QLatin1String(name)));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Dead or a zombie nobody reaped yet.
bool isGone(const QString &pid)
{
    const QByteArray stat = procFile(pid, "stat");
    if (stat.isEmpty())
        return true;
    const qsizetype close = stat.lastIndexOf(')');
    return close > 0 && stat.mid(close + 2, 1) == "Z";
}

// Live processes that run this sandbox's helper script: the helper and its request handlers
// (handlers are forks of it and share its command line).
QStringList helperProcesses(const QString &runtimeName)
{
    const QByteArray marker = "sandboxes/" + runtimeName.toUtf8() + "/home/.chat2sbx/helper.sh";
    QStringList pids;
    QDirIterator it(QStringLiteral("/proc"));
    while (it.hasNext()) {
        it.next();
        const QString pid = it.fileName();
        bool numeric = false;
        pid.toInt(&numeric);
        if (!numeric)
            continue;
        if (procFile(pid, "cmdline").replace('\0', ' ').contains(marker) && !isGone(pid))
            pids << pid;
    }
    return pids;
}

} // namespace

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
    bool pingOk()
    {
        std::optional<ChannelReply> reply;
        channel().ping(10000, [&](const ChannelReply &r) { reply = r; });
        return waitFor([&] { return reply.has_value(); }, 15000) && reply->ok;
    }

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
        QCOMPARE(helperProcesses(f.sandbox().runtimeName), QStringList{helper});

        int failed = 0;
        for (int i = 0; i < 3; ++i) {
            channel().request(QStringLiteral("read"), {fifo.toUtf8(), "1", "100", "4096"}, 1000,
                              [&](const ChannelReply &r) {
                                  if (!r.ok && r.channelFailure)
                                      ++failed;
                              });
        }
        QVERIFY(waitFor([&] { return failed == 3; }, 10000));
        // Each handler blocks opening the FIFO for good unless the host's cancel killed it.
        const bool clean = waitFor([&] { return helperProcesses(f.sandbox().runtimeName) == QStringList{helper}; }, 5000);
        QVERIFY2(clean, qPrintable(QStringLiteral("left in the sandbox: ") + helperProcesses(f.sandbox().runtimeName).join(' ')));
        // The channel itself was never restarted and still answers.
        QCOMPARE(helperPid(), helper);
        QVERIFY(pingOk());
        QFile::remove(fifo);
    }

    void stoppedHelperIsReapedAfterTheRestart()
    {
        const QString stalled = helperPid();
        QVERIFY(!stalled.isEmpty());
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
        QVERIFY(waitFor([&] { return helperProcesses(f.sandbox().runtimeName) == QStringList{current}; }, 5000));
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
