// What the export_file card previews of a file that landed on the host: the start of a text (cut on
// a character, by lines and by characters), nothing for binaries and archives, a small copy of an image.
#include "tools/ExportPreview.h"

#include <QBuffer>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;

class TestExportPreview : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

private slots:
    void shortTextIsWhole()
    {
        const QJsonObject p = ExportPreview::of(write(QStringLiteral("a.md"), "# Report\n\nr\xc3\xa9sum\xc3\xa9\tok\n"));
        QCOMPARE(p.value(QStringLiteral("kind")).toString(), QStringLiteral("text"));
        QCOMPARE(p.value(QStringLiteral("text")).toString(), QStringLiteral("# Report\n\nr\u00e9sum\u00e9\tok\n"));
        QCOMPARE(p.value(QStringLiteral("truncated")).toBool(), false);
    }

    void longTextStopsAtSixtyLines()
    {
        QByteArray text;
        for (int i = 0; i < 500; ++i)
            text += "line " + QByteArray::number(i) + '\n';
        const QJsonObject p = ExportPreview::of(write(QStringLiteral("log.txt"), text));
        QCOMPARE(p.value(QStringLiteral("text")).toString().count(QLatin1Char('\n')), ExportPreview::kMaxTextLines);
        QVERIFY(p.value(QStringLiteral("text")).toString().endsWith(QStringLiteral("line 59\n")));
        QCOMPARE(p.value(QStringLiteral("truncated")).toBool(), true);
    }

    void longLineStopsAtTheCharacterCap()
    {
        const QByteArray text(3 * ExportPreview::kTextHeadBytes, 'x');
        const QJsonObject p = ExportPreview::of(write(QStringLiteral("min.js"), text));
        QCOMPARE(p.value(QStringLiteral("text")).toString().size(), ExportPreview::kMaxTextChars);
        QCOMPARE(p.value(QStringLiteral("truncated")).toBool(), true);
    }

    void aCharacterCutByTheHeadIsDropped()
    {
        // The head ends in the first two bytes of a three-byte character.
        QByteArray head = QByteArray(10, 'a') + "\xe2\x82";
        const QJsonObject p = ExportPreview::ofText(head, false);
        QCOMPARE(p.value(QStringLiteral("text")).toString(), QString(10, QLatin1Char('a')));
        // The same bytes as a whole file are not UTF-8: no preview.
        QVERIFY(ExportPreview::ofText(head, true).isEmpty());
    }

    void binariesHaveNoPreview()
    {
        QVERIFY(ExportPreview::of(write(QStringLiteral("a.bin"), QByteArray("ELF\x00\x01\x02", 6))).isEmpty());
        QVERIFY(ExportPreview::of(write(QStringLiteral("a.gz"), QByteArray("\x1f\x8b\x08\x00", 4))).isEmpty());
        QVERIFY(ExportPreview::of(write(QStringLiteral("latin1.txt"), "caf\xe9 cr\xe8me\n")).isEmpty());
        QVERIFY(ExportPreview::of(write(QStringLiteral("empty.txt"), {})).isEmpty());
        QVERIFY(ExportPreview::of(m_dir.filePath(QStringLiteral("missing"))).isEmpty());
        // Looks like a PNG, is not one.
        QVERIFY(ExportPreview::of(write(QStringLiteral("fake.png"), "\x89PNG\r\n\x1a\nnot really")).isEmpty());
    }

    void aLargeImageComesSmall()
    {
        QImage image(2400, 1200, QImage::Format_RGB32);
        image.fill(Qt::darkCyan);
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        QVERIFY(image.save(&buffer, "PNG"));
        const QJsonObject p = ExportPreview::of(write(QStringLiteral("chart.png"), png));
        QCOMPARE(p.value(QStringLiteral("kind")).toString(), QStringLiteral("image"));
        QCOMPARE(p.value(QStringLiteral("width")).toInt(), 2400);
        QCOMPARE(p.value(QStringLiteral("height")).toInt(), 1200);
        const QByteArray data = QByteArray::fromBase64(p.value(QStringLiteral("data")).toString().toLatin1());
        QVERIFY(data.size() <= ExportPreview::kImageMaxBytes);
        QImage shown;
        QVERIFY(shown.loadFromData(data));
        QCOMPARE(shown.width(), ExportPreview::kImageLongSide);
        QCOMPARE(shown.height(), ExportPreview::kImageLongSide / 2);
    }
};

QTEST_GUILESS_MAIN(TestExportPreview)
#include "tst_export_preview.moc"
