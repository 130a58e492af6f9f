// ChatGptSilence: the tunnel stall ("healthy, connected, nothing received for N minutes while a
// conversation was active") is recognised only after a long conversation and a real silence, only
// while the tunnel is connected, and goes away with the next call or after two hours.
#include "ManualClock.h"

#include "runtime/ChatGptSilence.h"

#include <QtTest>

using namespace chat2sbx;

class TestChatGptSilence : public QObject {
    Q_OBJECT
private slots:
    void recognisesTheStallAndNothingElse()
    {
        ManualClock clock(1000000000000LL);
        ChatGptSilence silence(clock);
        QVERIFY(silence.notice(true).isEmpty());   // nothing seen yet
        // A conversation calling every minute for 45 minutes.
        for (int minute = 0; minute <= 45; ++minute) {
            silence.noteCall(QStringLiteral("conv-a"));
            clock.advance(60 * 1000);
        }
        clock.advance(2 * 60 * 1000);   // 3 minutes since its last call: a pause, not a stall
        QVERIFY(silence.notice(true).isEmpty());
        clock.advance(4 * 60 * 1000);   // 7 minutes
        const QString notice = silence.notice(true);
        QVERIFY2(notice.contains(QStringLiteral("nothing for 7 min")) && notice.contains(QStringLiteral("for 45 min"))
                     && notice.contains(QStringLiteral("start a new chat")),
                 qPrintable(notice));
        QVERIFY(silence.notice(false).isEmpty());   // a tunnel that is not connected has other news
        // The next call (the user's new chat) ends it; a short new conversation is not a stall.
        silence.noteCall(QStringLiteral("conv-b"));
        clock.advance(10 * 60 * 1000);
        QVERIFY(silence.notice(true).isEmpty());
    }

    void aShortConversationThatEndedIsNotAStall()
    {
        ManualClock clock(1000000000000LL);
        ChatGptSilence silence(clock);
        silence.noteCall(QStringLiteral("conv-a"));
        clock.advance(10 * 60 * 1000);
        silence.noteCall(QStringLiteral("conv-a"));
        clock.advance(30 * 60 * 1000);
        QVERIFY(silence.notice(true).isEmpty());
    }

    void forgottenAfterTwoHours()
    {
        ManualClock clock(1000000000000LL);
        ChatGptSilence silence(clock);
        silence.noteCall(QStringLiteral("conv-a"));
        clock.advance(50 * 60 * 1000);
        silence.noteCall(QStringLiteral("conv-a"));
        clock.advance(ChatGptSilence::kForgetAfterMs);
        QVERIFY(silence.notice(true).isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestChatGptSilence)
#include "tst_chatgpt_silence.moc"
