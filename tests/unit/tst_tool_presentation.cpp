// Every tool the Controller registers (the whole product registry, not started) carries the
// invocation texts ChatGPT shows, at most 64 characters each, the tools the card draws point at
// it in both spellings unless toolCards is off, and each names the card's view of its results
// (docs/TOOL_CARDS.md).
#include "mcp/ToolCard.h"
#include "mcp/ToolRegistry.h"
#include "runtime/Controller.h"
#include "ManualClock.h"
#include "TestSupport.h"

#include <QJsonArray>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

const QStringList &cardTools()
{
    static const QStringList names{"bash", "bash_poll", "bash_write", "bash_stop", "show_changes", "edit", "apply_patch",
                                   "write", "sandbox_create", "sandbox_get", "sandbox_fork", "sandbox_list", "export_changes", "view_image",
                                   "import_file", "export_file", "sandbox_checkpoint", "sandbox_checkpoints",
                                   "sandbox_restore"};
    return names;
}

} // namespace

class TestToolPresentation : public QObject {
    Q_OBJECT

    ManualClock m_clock;

    QJsonArray listedTools(bool cards)
    {
        TestEnvironment env;
        env.set(QStringLiteral("CHAT2SBX_TOOL_CARDS"), cards ? QStringLiteral("1") : QStringLiteral("0"));
        Controller controller(env.config(), m_clock);
        return controller.tools().toJson();
    }

private slots:
    void initTestCase() { qunsetenv("DBUS_SESSION_BUS_ADDRESS"); }

    void everyToolHasShortInvocationTexts()
    {
        const QJsonArray tools = listedTools(true);
        QVERIFY(tools.size() >= 20);
        for (const QJsonValue &t : tools) {
            const QString name = t.toObject().value("name").toString();
            const QJsonObject meta = t.toObject().value("_meta").toObject();
            for (const char *key : {"openai/toolInvocation/invoking", "openai/toolInvocation/invoked"}) {
                const QString text = meta.value(QLatin1String(key)).toString();
                QVERIFY2(!text.isEmpty(), qPrintable(name + ": no " + key));
                QVERIFY2(text.size() <= 64, qPrintable(name + ": " + key + " is " + QString::number(text.size()) + " characters"));
            }
        }
    }

    void cardToolsPointAtTheCard_data()
    {
        QTest::addColumn<bool>("cards");
        QTest::newRow("cards on (default)") << true;
        QTest::newRow("toolCards off") << false;
    }
    void cardToolsPointAtTheCard()
    {
        QFETCH(bool, cards);
        const QJsonArray tools = listedTools(cards);
        QStringList seen;
        for (const QJsonValue &t : tools) {
            const QString name = t.toObject().value("name").toString();
            const QJsonObject meta = t.toObject().value("_meta").toObject();
            const bool drawn = cards && cardTools().contains(name);
            QCOMPARE(meta.value("openai/outputTemplate").toString(), drawn ? toolcard::uri() : QString());
            QCOMPARE(meta.value("ui").toObject().value("resourceUri").toString(), drawn ? toolcard::uri() : QString());
            seen << name;
        }
        for (const QString &name : cardTools())
            QVERIFY2(seen.contains(name), qPrintable(name + " is not registered"));
    }

    void eachCardToolNamesItsView_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("view");
        for (const char *tool : {"bash", "bash_poll", "bash_write", "bash_stop"})
            QTest::newRow(tool) << tool << "terminal";
        for (const char *tool : {"show_changes", "edit", "apply_patch", "write"})
            QTest::newRow(tool) << tool << "diff";
        QTest::newRow("sandbox_create") << "sandbox_create" << "sandbox";
        QTest::newRow("sandbox_get") << "sandbox_get" << "sandbox";
        QTest::newRow("sandbox_fork") << "sandbox_fork" << "sandbox";
        QTest::newRow("sandbox_list") << "sandbox_list" << "sandbox-list";
        QTest::newRow("export_changes") << "export_changes" << "export";
        QTest::newRow("view_image") << "view_image" << "image";
        QTest::newRow("import_file") << "import_file" << "file";
        QTest::newRow("export_file") << "export_file" << "file";
        for (const char *tool : {"sandbox_checkpoint", "sandbox_checkpoints", "sandbox_restore"})
            QTest::newRow(tool) << tool << "checkpoint";
    }
    void eachCardToolNamesItsView()
    {
        QFETCH(QString, tool);
        QFETCH(QString, view);
        TestEnvironment env;
        Controller controller(env.config(), m_clock);
        const ToolRegistry::Entry *entry = controller.tools().find(tool);
        QVERIFY2(entry, qPrintable(tool + " is not registered"));
        QCOMPARE(toolCardViewName(entry->definition.presentation.cardView), view);
    }

    void toolsWithoutACardNameNoView()
    {
        TestEnvironment env;
        Controller controller(env.config(), m_clock);
        for (const ToolRegistry::Entry &entry : controller.tools().entries()) {
            const bool card = cardTools().contains(entry.definition.name);
            QCOMPARE(entry.definition.presentation.cardView != ToolCardView::None, card);
        }
    }
};

QTEST_GUILESS_MAIN(TestToolPresentation)
#include "tst_tool_presentation.moc"
