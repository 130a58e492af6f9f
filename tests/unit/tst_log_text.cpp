// logSafe: what a client or a VM sends cannot add log lines or restyle a terminal.
#include "core/LogText.h"

#include <QTest>

using namespace chat2sbx;

class TestLogText : public QObject {
    Q_OBJECT
private slots:
    void controlCharactersAreEscaped()
    {
        const QString forged = QStringLiteral("ChatGPT\n2026-12-03 chat2sbx.mcp: approved ws_1\x1b[31m\r\t") + QChar(0x202e)
                               + QChar(0x85);
        const QString safe = logSafe(forged);
        QCOMPARE(safe, QStringLiteral("ChatGPT\\n2026-12-03 chat2sbx.mcp: approved ws_1\\u{001b}[31m\\r\\t\\u{202e}\\u{0085}"));
        for (QChar c : safe)
            QVERIFY(c.unicode() >= 0x20 && c.unicode() != 0x7f);
    }

    void plainTextIsUnchangedAndLongTextCut()
    {
        QCOMPARE(logSafe(QStringLiteral("Claude Desktop 1.2 — ok")), QStringLiteral("Claude Desktop 1.2 — ok"));
        QCOMPARE(logSafe(QString(500, QLatin1Char('x')), 10), QString(10, QLatin1Char('x')) + QStringLiteral("…"));
    }
};

QTEST_GUILESS_MAIN(TestLogText)
#include "tst_log_text.moc"
