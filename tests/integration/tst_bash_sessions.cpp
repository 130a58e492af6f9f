// Bash sessions through the real control channel into a fake-sbx sandbox:
// yield then poll to exit, 5 MB byte-exact in ≤60,000-byte polls, a UTF-8 character straddling the
// 60,000-byte boundary, timeout_ms, bash_stop escalating to SIGKILL, 20 concurrent sessions, a
// killed helper, invalid UTF-8, a restarted service continuing from the persisted offset.
#include "InSandboxFixture.h"

#include "state/BashSessionRepository.h"

#include <QElapsedTimer>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestBashSessions : public QObject {
    Q_OBJECT

private:
    InSandboxFixture f;

    QString status(const ToolResult &r) const { return r.structured.value(QStringLiteral("status")).toString(); }
    QString output(const ToolResult &r) const { return r.structured.value(QStringLiteral("output")).toString(); }
    QString sessionOf(const ToolResult &r) const { return r.structured.value(QStringLiteral("session_id")).toString(); }

    // Polls until exited and has_more_output false; returns all output; checks every chunk's size.
    QByteArray drain(const QString &session, QByteArray soFar, ToolResult *last = nullptr, int maxPolls = 500)
    {
        for (int i = 0; i < maxPolls; ++i) {
            const ToolResult r = f.call(QStringLiteral("bash_poll"),
                                        {{"session_id", session}, {"yield_time_ms", 5000}}, 20000);
            if (r.isError) {
                qWarning() << InSandboxFixture::describe(r);
                return "<error>";
            }
            const QByteArray chunk = output(r).toUtf8();
            if (chunk.size() > 60000) {
                qWarning() << "chunk too big" << chunk.size();
                return "<oversized>";
            }
            soFar += chunk;
            if (last)
                *last = r;
            if (status(r) == QLatin1String("exited") && !r.structured.value(QStringLiteral("has_more_output")).toBool())
                return soFar;
        }
        return "<never exited>";
    }

private slots:
    void initTestCase()
    {
        QString error;
        QVERIFY2(f.setUp(error), qPrintable(error));
    }

    void yieldThenPollUntilExit()
    {
        QElapsedTimer t;
        t.start();
        const ToolResult first = f.call(QStringLiteral("bash"),
                                        {{"command", "for i in 1 2 3 4 5; do echo line$i; sleep 1; done; echo err >&2; exit 7"},
                                         {"yield_time_ms", 1000}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        QVERIFY(t.elapsed() >= 900 && t.elapsed() < 4000);
        QCOMPARE(status(first), QStringLiteral("running"));
        QVERIFY(first.structured.value(QStringLiteral("exit_code")).isNull());
        QVERIFY(isWellFormedId(sessionOf(first), "bash_"));
        ToolResult last;
        const QByteArray all = drain(sessionOf(first), output(first).toUtf8(), &last);
        QCOMPARE(all, QByteArray("line1\nline2\nline3\nline4\nline5\nerr\n"));
        QCOMPARE(last.structured.value(QStringLiteral("exit_code")).toInt(), 7);
        QVERIFY(t.elapsed() >= 5000);
    }

    void quickCommandReturnsExited()
    {
        const ToolResult r = f.call(QStringLiteral("bash"), {{"command", "pwd; echo $FOO"}, {"env", QJsonArray{QJsonObject{{"name", "FOO"}, {"value", "bar baz"}}}}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(status(r), QStringLiteral("exited"));
        QCOMPARE(r.structured.value(QStringLiteral("exit_code")).toInt(), 0);
        // The managed workspace is reached through the alias, never the host data directory.
        QVERIFY2(output(r).endsWith(QStringLiteral("/workspace\nbar baz\n")), qPrintable(output(r)));
        QVERIFY(!output(r).contains(f.env.dataRoot()));
    }

    void fiveMegabytesByteExact()
    {
        QByteArray expected;
        for (int i = 1; i <= 800000; ++i)
            expected += QByteArray::number(i) + '\n';
        QVERIFY(expected.size() > 5000000);
        const ToolResult first = f.call(QStringLiteral("bash"), {{"command", "seq 1 800000"}, {"yield_time_ms", 2000}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        QVERIFY(output(first).toUtf8().size() <= 60000);
        const QByteArray all = drain(sessionOf(first), output(first).toUtf8(), nullptr, 200);
        QCOMPARE(all.size(), expected.size());
        QVERIFY(all == expected);
    }

    void multibyteCharacterAcrossBoundary()
    {
        // 59,999 'a' then '€' (3 bytes) then 'b': the euro sign straddles byte 60,000.
        const ToolResult first = f.call(QStringLiteral("bash"),
                                        {{"command", "head -c 59999 /dev/zero | tr '\\0' a; printf '\\342\\202\\254b'"},
                                         {"yield_time_ms", 3000}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        const QString a = output(first);
        QCOMPARE(a.size(), 59999);
        QVERIFY(a.count(QLatin1Char('a')) == 59999);
        QVERIFY(first.structured.value(QStringLiteral("has_more_output")).toBool());
        const QByteArray rest = drain(sessionOf(first), {});
        QCOMPARE(QString::fromUtf8(rest), QString::fromUtf8("\xe2\x82\xac" "b"));
    }

    void invalidUtf8BecomesReplacementCharacters()
    {
        const ToolResult r = f.call(QStringLiteral("bash"), {{"command", "printf 'x\\377y\\300z\\n'"}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(output(r), QString::fromUtf8("x\xef\xbf\xbdy\xef\xbf\xbdz\n"));
    }

    void timeoutKillsSleep()
    {
        QElapsedTimer t;
        t.start();
        const ToolResult r = f.call(QStringLiteral("bash"),
                                    {{"command", "sleep 100"}, {"timeout_ms", 1000}, {"yield_time_ms", 8000}}, 20000);
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(status(r), QStringLiteral("exited"));
        QVERIFY(t.elapsed() < 5000);
        QCOMPARE(r.structured.value(QStringLiteral("exit_code")).toInt(), 124);   // like timeout(1)
        QCOMPARE(r.structured.value(QStringLiteral("timed_out")).toBool(), true);
        // An ordinary exit is not a timeout, even with the same code.
        const ToolResult own = f.call(QStringLiteral("bash"), {{"command", "exit 124"}, {"timeout_ms", 60000}});
        QCOMPARE(own.structured.value(QStringLiteral("exit_code")).toInt(), 124);
        QCOMPARE(own.structured.value(QStringLiteral("timed_out")).toBool(), false);
    }

    void stopReturnsTheTail()
    {
        const ToolResult first = f.call(QStringLiteral("bash"),
                                        {{"command", "echo start; sleep 0.3; echo tail-line; printf 'h\xc3\xa9'; sleep 100"},
                                         {"yield_time_ms", 100}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        QCOMPARE(status(first), QStringLiteral("running"));
        // Until the command has written its tail (a fixed wait was too short on a loaded machine).
        const QString outputFile = f.env.sbxState() + QStringLiteral("/sandboxes/") + f.sandbox().runtimeName
                                   + QStringLiteral("/home/.chat2sbx/sessions/") + sessionOf(first) + QStringLiteral(".output");
        QVERIFY(waitFor([&] { return readFile(outputFile).endsWith("tail-line\nh\xc3\xa9"); }, 15000));
        const ToolResult stopped = f.call(QStringLiteral("bash_stop"), {{"session_id", sessionOf(first)}}, 10000);
        QVERIFY2(!stopped.isError, qPrintable(InSandboxFixture::describe(stopped)));
        QCOMPARE(status(stopped), QStringLiteral("exited"));
        QCOMPARE(stopped.structured.value(QStringLiteral("exit_code")).toInt(), 143);
        QVERIFY2((output(first) + output(stopped)).endsWith(QStringLiteral("tail-line\nhé")),
                 qPrintable(output(first) + "|" + output(stopped)));
        QCOMPARE(stopped.structured.value(QStringLiteral("has_more_output")).toBool(), false);
    }

    void stopEscalatesToSigkill()
    {
        const ToolResult first = f.call(QStringLiteral("bash"),
                                        {{"command", "trap '' TERM; echo ready; sleep 100; echo survived"}, {"yield_time_ms", 500}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        QCOMPARE(status(first), QStringLiteral("running"));
        QElapsedTimer t;
        t.start();
        const ToolResult stopped = f.call(QStringLiteral("bash_stop"), {{"session_id", sessionOf(first)}}, 10000);
        QVERIFY2(!stopped.isError, qPrintable(InSandboxFixture::describe(stopped)));
        const qint64 took = t.elapsed();
        qInfo() << "bash_stop of a SIGTERM-trapping process took" << took << "ms";
        // The documented escalation: SIGKILL 1.5 s after SIGTERM, so never sooner; how much later
        // depends on the machine (it failed at 2,091 ms with four tests on two cores), and the 137
        // below is what shows the SIGKILL came instead of the command's own 100 s.
        QVERIFY2(took >= 1500, qPrintable(QStringLiteral("answered after %1 ms, before the 1.5 s grace").arg(took)));
        QCOMPARE(status(stopped), QStringLiteral("exited"));
        QCOMPARE(stopped.structured.value(QStringLiteral("exit_code")).toInt(), 137);   // SIGKILL
        // Idempotent.
        const ToolResult again = f.call(QStringLiteral("bash_stop"), {{"session_id", sessionOf(first)}});
        QVERIFY(!again.isError);
        QCOMPARE(status(again), QStringLiteral("exited"));
        QVERIFY(!drain(sessionOf(first), output(first).toUtf8()).contains("survived"));
    }

    // Several requests are in flight on one channel: a slow one (bash_stop waiting out a process that
    // ignores SIGTERM, ~1.5 s in the helper) does not hold back a poll of another session.
    void slowRequestDoesNotBlockAPoll()
    {
        const ToolResult stubborn = f.call(QStringLiteral("bash"), {{"command", "trap '' TERM; sleep 100"}, {"yield_time_ms", 0}});
        QVERIFY2(!stubborn.isError, qPrintable(InSandboxFixture::describe(stubborn)));
        const ToolResult other = f.call(QStringLiteral("bash"), {{"command", "sleep 0.3; echo late; sleep 100"}, {"yield_time_ms", 0}});
        QVERIFY2(!other.isError, qPrintable(InSandboxFixture::describe(other)));

        QElapsedTimer t;
        t.start();
        const PendingCall stop = f.start(QStringLiteral("bash_stop"), {{"session_id", sessionOf(stubborn)}});
        const PendingCall poll = f.start(QStringLiteral("bash_poll"), {{"session_id", sessionOf(other)}, {"yield_time_ms", 10000}});
        QVERIFY(waitFor([&] { return poll.done(); }, 10000));
        const qint64 pollMs = t.elapsed();
        QVERIFY2(!poll.get().isError, qPrintable(InSandboxFixture::describe(poll.get())));
        QCOMPARE(output(poll.get()), QStringLiteral("late\n"));
        QVERIFY2(!stop.done(), "bash_stop finished before the poll: nothing was shown");
        QVERIFY(waitFor([&] { return stop.done(); }, 10000));
        const qint64 stopMs = t.elapsed();
        qInfo("poll answered after %lld ms while bash_stop took %lld ms", pollMs, stopMs);
        QVERIFY2(pollMs < 1200, qPrintable(QString::number(pollMs)));
        QCOMPARE(status(stop.get()), QStringLiteral("exited"));
        f.call(QStringLiteral("bash_stop"), {{"session_id", sessionOf(other)}});
    }

    // bash_list while a bash call is still starting (the helper answers bash_start after waiting up
    // to 500 ms for a quick exit): the session is running, not "lost", and stays that way.
    void listingDuringAStartDoesNotLoseTheSession()
    {
        const PendingCall bash = f.start(QStringLiteral("bash"), {{"command", "sleep 1.5; echo done"}, {"yield_time_ms", 4000}});
        QStringList seen;
        while (!bash.done()) {
            const ToolResult listed = f.call(QStringLiteral("bash_list"), {});
            QVERIFY2(!listed.isError, qPrintable(InSandboxFixture::describe(listed)));
            for (const QJsonValue &s : listed.structured.value(QStringLiteral("sessions")).toArray())
                if (s.toObject().value(QStringLiteral("command")).toString().startsWith(QLatin1String("sleep 1.5")))
                    seen << s.toObject().value(QStringLiteral("status")).toString();
            waitFor([] { return false; }, 20);
        }
        QVERIFY2(!seen.contains(QStringLiteral("lost")), qPrintable(seen.join(QLatin1Char(','))));
        QVERIFY2(!bash.get().isError, qPrintable(InSandboxFixture::describe(bash.get())));
        ToolResult last;
        QCOMPARE(drain(sessionOf(bash.get()), output(bash.get()).toUtf8(), &last), QByteArray("done\n"));
        QCOMPARE(last.structured.value(QStringLiteral("exit_code")).toInt(), 0);
    }

    // A cancelled wait ends at once and takes no output: the session's next poll neither waits out the
    // cancelled yield nor misses what arrived.
    void cancelledWaitsEndAtOnce()
    {
        const ToolResult first = f.call(QStringLiteral("bash"), {{"command", "sleep 1.5; echo late; sleep 100"}, {"yield_time_ms", 0}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        const QString session = sessionOf(first);

        CancellationToken pollToken;
        const PendingCall longPoll = f.start(QStringLiteral("bash_poll"), {{"session_id", session}, {"yield_time_ms", 30000}},
                                             true, pollToken);
        QTest::qWait(300);
        QVERIFY(!longPoll.done());
        QElapsedTimer t;
        t.start();
        pollToken.cancel();
        QVERIFY(waitFor([&] { return longPoll.done(); }, 1000));
        QVERIFY(longPoll.get().isError);
        const ToolResult next = f.call(QStringLiteral("bash_poll"), {{"session_id", session}, {"yield_time_ms", 10000}}, 15000);
        const qint64 nextMs = t.elapsed();
        QVERIFY2(!next.isError, qPrintable(InSandboxFixture::describe(next)));
        QCOMPARE(output(next), QStringLiteral("late\n"));
        qInfo("poll after a cancelled 30 s poll answered in %lld ms", nextMs);
        QVERIFY2(nextMs < 5000, qPrintable(QString::number(nextMs)));

        // `bash` waiting for its command to exit.
        CancellationToken bashToken;
        const PendingCall longBash = f.start(QStringLiteral("bash"), {{"command", "sleep 100"}, {"yield_time_ms", 30000}}, true, bashToken);
        QTest::qWait(500);
        QVERIFY(!longBash.done());
        t.restart();
        bashToken.cancel();
        QVERIFY(waitFor([&] { return longBash.done(); }, 1000));
        QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));

        f.call(QStringLiteral("bash_stop"), {{"session_id", session}});
    }

    void twentyConcurrentSessions()
    {
        QStringList ids;
        QList<QByteArray> outputs;
        for (int n = 0; n < 20; ++n) {
            const ToolResult r = f.call(
                QStringLiteral("bash"),
                {{"command", QStringLiteral("for i in $(seq 1 15); do echo s%1-$i; sleep 0.05; done").arg(n)}, {"yield_time_ms", 0}});
            QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
            ids << sessionOf(r);
            outputs << output(r).toUtf8();
        }
        QList<bool> finished(20, false);
        QList<PendingCall> inFlight(20);
        QElapsedTimer t;
        t.start();
        while (finished.contains(false) && t.elapsed() < 40000) {
            for (int n = 0; n < 20; ++n)
                if (!finished[n] && !inFlight[n].result->has_value() && inFlight[n].result.use_count() == 1)
                    inFlight[n] = f.start(QStringLiteral("bash_poll"), {{"session_id", ids[n]}, {"yield_time_ms", 2000}});
            QVERIFY(waitFor([&] {
                for (int n = 0; n < 20; ++n)
                    if (!finished[n] && inFlight[n].done())
                        return true;
                return false;
            }, 20000));
            for (int n = 0; n < 20; ++n) {
                if (finished[n] || !inFlight[n].done())
                    continue;
                const ToolResult r = inFlight[n].get();
                QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
                outputs[n] += output(r).toUtf8();
                finished[n] = status(r) == QLatin1String("exited") && !r.structured.value(QStringLiteral("has_more_output")).toBool();
                inFlight[n] = PendingCall();
            }
        }
        for (int n = 0; n < 20; ++n) {
            QByteArray expected;
            for (int i = 1; i <= 15; ++i)
                expected += QStringLiteral("s%1-%2\n").arg(n).arg(i).toUtf8();
            QCOMPARE(outputs[n], expected);
        }
        const ToolResult list = f.call(QStringLiteral("bash_list"), {});
        QVERIFY(!list.isError);
        QVERIFY(list.structured.value(QStringLiteral("sessions")).toArray().size() >= 20);
    }

    void killedHelperKeepsSessions()
    {
        const ToolResult first = f.call(QStringLiteral("bash"),
                                        {{"command", "for i in $(seq 1 30); do echo t$i; sleep 0.1; done"}, {"yield_time_ms", 300}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        QCOMPARE(status(first), QStringLiteral("running"));
        const int startsBefore = f.pool->find(f.id())->starts();
        const SbxResult killed = f.exec({QStringLiteral("bash"), QStringLiteral("-c"),
                                         QStringLiteral("kill -9 \"$(cat ~/.chat2sbx/helper.pid)\"")});
        QVERIFY2(killed.ok, qPrintable(killed.error));
        // The next call works (the channel restarts) and the session is still pollable.
        const ToolResult next = f.call(QStringLiteral("bash"), {{"command", "echo after"}}, 30000);
        QVERIFY2(!next.isError, qPrintable(InSandboxFixture::describe(next)));
        QCOMPARE(output(next), QStringLiteral("after\n"));
        QVERIFY(f.pool->find(f.id())->starts() > startsBefore);
        QByteArray expected;
        for (int i = 1; i <= 30; ++i)
            expected += "t" + QByteArray::number(i) + '\n';
        QCOMPARE(drain(sessionOf(first), output(first).toUtf8()), expected);
    }

    // The helper dies with a bash_start unread in its stdin: the start got no answer, the new helper
    // knows no such session, so the start never ran and is sent again (once it ran, it would be
    // answered `existed`, never run twice).
    void startLostWithTheChannelIsSentAgain()
    {
        QVERIFY(f.call(QStringLiteral("bash"), {{"command", "true"}}).structured.value(QStringLiteral("status"))
                    == QStringLiteral("exited"));
        const SbxResult pidFile = f.exec({QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("cat ~/.chat2sbx/helper.pid")});
        QVERIFY2(pidFile.ok, qPrintable(pidFile.error));
        const QString helper = QString::fromLatin1(pidFile.out).trimmed();
        QVERIFY(f.exec({QStringLiteral("kill"), QStringLiteral("-STOP"), helper}).ok);
        const int startsBefore = f.pool->find(f.id())->starts();
        PendingCall p = f.start(QStringLiteral("bash"), {{"command", "echo once >> ~/started-once; echo again"}});
        QTest::qWait(300);   // the frame is written to the stopped helper's stdin, and stays unread
        QVERIFY(!p.done());
        QVERIFY(f.exec({QStringLiteral("kill"), QStringLiteral("-KILL"), helper}).ok);
        QVERIFY(waitFor([&] { return p.done(); }, 30000));
        QVERIFY2(!p.get().isError, qPrintable(InSandboxFixture::describe(p.get())));
        QCOMPARE(output(p.get()), QStringLiteral("again\n"));
        QVERIFY(f.pool->find(f.id())->starts() > startsBefore);
        const SbxResult ran = f.exec({QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("cat ~/started-once")});
        QCOMPARE(ran.out, QByteArray("once\n"));
    }

    void restartedServiceContinuesFromPersistedOffset()
    {
        const ToolResult first = f.call(QStringLiteral("bash"),
                                        {{"command", "echo one; sleep 1; echo two"}, {"yield_time_ms", 300}});
        QVERIFY2(!first.isError, qPrintable(InSandboxFixture::describe(first)));
        QCOMPARE(output(first), QStringLiteral("one\n"));
        QCOMPARE(BashSessionRepository(f.db).find(sessionOf(first))->readOffset, 4);
        // A new service and channel pool (as after a server restart) continue where the first stopped.
        f.pool->detach(f.id());
        f.sessions = std::make_unique<BashSessions>(f.db, *f.pool, Clock::system());
        ToolRegistry fresh;
        registerInSandboxTools(fresh, f.resolver, *f.pool, *f.sessions);
        f.tools = fresh;
        QCOMPARE(drain(sessionOf(first), {}), QByteArray("two\n"));
    }

    void unknownSessionAndSandbox()
    {
        const ToolResult r = f.call(QStringLiteral("bash_poll"), {{"session_id", newId("bash_")}});
        QVERIFY(r.isError);
        QVERIFY(r.message.contains(QStringLiteral("no bash session")));
        PendingCall p = f.start(QStringLiteral("bash"), {{"sandbox_id", newId("sbx_")}, {"command", "true"}}, false);
        QVERIFY(p.done() && p.get().isError);
        const ToolResult bad = f.call(QStringLiteral("bash"), {{"command", "true"}, {"yield_time_ms", 70000}});
        QVERIFY(bad.isError);
        const ToolResult badCwd = f.call(QStringLiteral("bash"), {{"command", "true"}, {"cwd", "does/not/exist"}});
        QVERIFY(badCwd.isError);
        QVERIFY2(badCwd.message.contains(QStringLiteral("does not exist")), qPrintable(badCwd.message));
    }

    void utf8Prefix()
    {
        QCOMPARE(BashSessions::completeUtf8Prefix("abc"), 3);
        QCOMPARE(BashSessions::completeUtf8Prefix("ab\xe2\x82"), 2);
        QCOMPARE(BashSessions::completeUtf8Prefix("ab\xe2\x82\xac"), 5);
        QCOMPARE(BashSessions::completeUtf8Prefix("ab\xf0\x9f\x98"), 2);
        QCOMPARE(BashSessions::completeUtf8Prefix("ab\xc3"), 2);
        QCOMPARE(BashSessions::completeUtf8Prefix("ab\xff"), 3);
        QCOMPARE(BashSessions::completeUtf8Prefix(""), 0);
    }

    void cleanupTestCase()
    {
        if (f.pool)
            f.pool->detach(f.id());
    }
};

QTEST_GUILESS_MAIN(TestBashSessions)
#include "tst_bash_sessions.moc"
