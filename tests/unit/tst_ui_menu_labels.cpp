// The tray menu's labels as each host reads them (ui/tray/DBusMenuExporter): the dbusmenu spec's
// mnemonics for KDE Plasma, and what GNOME Shell's AppIndicator extension draws, checked through a
// copy of the extension's own rule (dbusMenu.js: label.replace(/_([^_])/, '$1'), no `g`).
#include "tray/DBusMenuExporter.h"

#include <QAction>
#include <QMenu>
#include <QRegularExpression>
#include <QtTest>

using namespace chat2sbx::ui::sni;

namespace {
QString asTheExtensionDraws(const QString &label)
{
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("_([^_])")).match(label);
    if (!m.hasMatch())
        return label;
    return label.left(m.capturedStart()) + m.captured(1) + label.mid(m.capturedEnd());
}
} // namespace

class TestUiMenuLabels : public QObject {
    Q_OBJECT
private slots:
    void theSpecEscapesUnderscoresAndMarksTheMnemonic()
    {
        QCOMPARE(dbusMenuLabel(QStringLiteral("&Open ~/my_notes")), QStringLiteral("_Open ~/my__notes"));
        QCOMPARE(dbusMenuLabel(QStringLiteral("Tom && Jerry")), QStringLiteral("Tom & Jerry"));
    }

    void gnomeShellDrawsTheTextAsItReads_data()
    {
        QTest::addColumn<QString>("qtText");
        QTest::addColumn<QString>("reads");
        QTest::newRow("no underscore") << "Open chat2sbx" << "Open chat2sbx";
        QTest::newRow("a mnemonic") << "&Quit" << "Quit";
        QTest::newRow("an ampersand") << "Tom && Jerry" << "Tom & Jerry";
        QTest::newRow("one underscore") << "Folder ~/my_notes (clone)" << "Folder ~/my_notes (clone)";
        QTest::newRow("several") << "Folder /tmp/integration_tray_gnome-x/a__b (direct)" << "Folder /tmp/integration_tray_gnome-x/a__b (direct)";
        QTest::newRow("leading underscores") << "__init_py" << "__init_py";
        QTest::newRow("underscores only") << "___" << "___";
        QTest::newRow("trailing underscore") << "draft_" << "draft_";
        QTest::newRow("empty") << "" << "";
    }

    void gnomeShellDrawsTheTextAsItReads()
    {
        QFETCH(QString, qtText);
        QFETCH(QString, reads);
        QCOMPARE(asTheExtensionDraws(gnomeShellLabel(qtText)), reads);
    }

    void theSpecsLabelIsWhatGnomeShellGetsWrong()
    {
        // Why the dialect exists: the spec's escape drawn by the extension.
        QCOMPARE(asTheExtensionDraws(dbusMenuLabel(QStringLiteral("~/a_b_c"))), QStringLiteral("~/a_b__c"));
        QCOMPARE(asTheExtensionDraws(QStringLiteral("~/a_b_c")), QStringLiteral("~/ab_c"));
    }

    void theDialectChangesTheServedLabelsAndTheLayoutRevision()
    {
        QMenu menu;
        QAction *folder = menu.addAction(QStringLiteral("Folder ~/my_notes (clone)"));
        DBusMenuExporter exporter(menu);
        MenuLayout served;
        exporter.GetLayout(0, -1, {}, served);   // the host's first question gives every item its id
        const int id = exporter.idOf(folder);
        QVERIFY(id > 0);
        QCOMPARE(exporter.GetProperty(id, QStringLiteral("label")).variant().toString(), QStringLiteral("Folder ~/my__notes (clone)"));
        QSignalSpy layout(&exporter, &DBusMenuExporter::LayoutUpdated);
        exporter.setLabelDialect(DBusMenuExporter::LabelDialect::GnomeShell);
        QTRY_COMPARE(layout.size(), 1);
        QCOMPARE(exporter.GetProperty(id, QStringLiteral("label")).variant().toString(), QStringLiteral("_Folder ~/my_notes (clone)"));
        exporter.setLabelDialect(DBusMenuExporter::LabelDialect::GnomeShell);
        QTest::qWait(20);
        QCOMPARE(layout.size(), 1);   // no change, no signal
    }
};

QTEST_MAIN(TestUiMenuLabels)
#include "tst_ui_menu_labels.moc"
