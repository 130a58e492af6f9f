// logSafe: what a client or a VM sends cannot add log lines or restyle a terminal.
#include "core/LogText.h"

#include <QJsonDocument>
#include <QJsonObject>
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

    void formatCharactersAreEscapedToo()
    {
        // Zero width space, the BOM, an arabic letter mark, a left-to-right isolate: all format characters.
        const QString hidden = QStringLiteral("a") + QChar(0x200b) + QChar(0xfeff) + QChar(0x061c) + QChar(0x2066) + QStringLiteral("b");
        QCOMPARE(logSafe(hidden), QStringLiteral("a\\u{200b}\\u{feff}\\u{061c}\\u{2066}b"));
    }

    void aTerminalKeepsLinesButNoSequence()
    {
        const QString text = QStringLiteral("line 1\n\tlabel: x\x1b]0;title\x07y") + QChar(0x202e) + QStringLiteral("z\n");
        QCOMPARE(terminalSafe(text), QStringLiteral("line 1\n\tlabel: x\\u{001b}]0;title\\u{0007}y\\u{202e}z\n"));
    }

    void jsonForATerminalKeepsItsValues()
    {
        const QString value = QStringLiteral("x") + QChar(0x202e) + QChar(0x9b) + QStringLiteral("y");
        const QString json = QStringLiteral("{\n    \"reason\": \"") + value + QStringLiteral("\"\n}\n");
        const QString safe = jsonTerminalSafe(json);
        QCOMPARE(safe, QStringLiteral("{\n    \"reason\": \"x\\u202e\\u009by\"\n}\n"));
        QCOMPARE(QJsonDocument::fromJson(safe.toUtf8()).object().value(QStringLiteral("reason")).toString(), value);
    }
};

QTEST_GUILESS_MAIN(TestLogText)
#include "tst_log_text.moc"
