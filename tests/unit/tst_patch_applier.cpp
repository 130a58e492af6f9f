// PatchParser + PatchApplier: unified diffs as git prints them and the "*** Begin Patch" envelope,
// hunks located by context with shifted line numbers, CRLF files, missing final newlines, and
// readable failures naming the hunk and the nearest lines.
#include "tools/PatchApplier.h"
#include "tools/PatchParser.h"

#include <QtTest>

using namespace chat2sbx;

class TestPatchApplier : public QObject {
    Q_OBJECT

    static QList<FilePatch> parse(const QByteArray &patch)
    {
        QList<FilePatch> files;
        QString error;
        if (!PatchParser::parse(patch, files, error))
            qWarning("%s", qPrintable(error));
        return files;
    }
    static QByteArray applied(const FilePatch &p, const QByteArray &before)
    {
        PatchApplier::Outcome out;
        QString error;
        if (!PatchApplier::apply(p, before, out, error)) {
            qWarning("%s", qPrintable(error));
            return "<failed>";
        }
        return out.content;
    }

private slots:
    void gitDiffWithSeveralFiles()
    {
        const QByteArray patch =
            "diff --git a/src/a.txt b/src/a.txt\n"
            "index 123..456 100644\n"
            "--- a/src/a.txt\n"
            "+++ b/src/a.txt\n"
            "@@ -1,3 +1,3 @@\n"
            " one\n"
            "-two\n"
            "+TWO\n"
            " three\n"
            "@@ -8,3 +8,4 @@ section\n"
            " eight\n"
            " nine\n"
            "+nine and a half\n"
            " ten\n"
            "diff --git a/new.txt b/new.txt\n"
            "new file mode 100644\n"
            "index 0000000..e69de29\n"
            "--- /dev/null\n"
            "+++ b/new.txt\n"
            "@@ -0,0 +1,2 @@\n"
            "+hello\n"
            "+world\n"
            "diff --git a/gone.txt b/gone.txt\n"
            "deleted file mode 100644\n"
            "--- a/gone.txt\n"
            "+++ /dev/null\n"
            "@@ -1 +0,0 @@\n"
            "-bye\n"
            "diff --git a/old name.txt b/new name.txt\n"
            "similarity index 100%\n"
            "rename from old name.txt\n"
            "rename to new name.txt\n";
        const QList<FilePatch> files = parse(patch);
        QCOMPARE(files.size(), 4);
        QCOMPARE(files.at(0).path, QStringLiteral("src/a.txt"));
        QCOMPARE(files.at(0).hunks.size(), 2);
        QCOMPARE(files.at(1).action, FilePatch::Action::Add);
        QCOMPARE(files.at(1).path, QStringLiteral("new.txt"));
        QCOMPARE(files.at(2).action, FilePatch::Action::Delete);
        QCOMPARE(files.at(2).path, QStringLiteral("gone.txt"));
        QCOMPARE(files.at(3).action, FilePatch::Action::Update);
        QCOMPARE(files.at(3).path, QStringLiteral("old name.txt"));
        QCOMPARE(files.at(3).moveTo, QStringLiteral("new name.txt"));
        QVERIFY(files.at(3).hunks.isEmpty());

        // Two lines inserted at the top: both hunks still apply, found by context.
        const QByteArray before = "zero\nextra\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
        QCOMPARE(applied(files.at(0), before),
                 QByteArray("zero\nextra\none\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nnine and a half\nten\n"));
        QCOMPARE(applied(files.at(1), {}), QByteArray("hello\nworld\n"));
        PatchApplier::Outcome out;
        QString error;
        QVERIFY(PatchApplier::apply(files.at(2), "bye\n", out, error));
        QVERIFY2(!PatchApplier::apply(files.at(2), "bye\nand more\n", out, error), "a partial delete must fail");
        QVERIFY2(error.contains(QStringLiteral("would remain")), qPrintable(error));
    }

    void nearestMatchWins()
    {
        // The same context twice: the hunk applies where its line number points.
        const QList<FilePatch> files = parse("--- a/f\n+++ b/f\n@@ -5,2 +5,2 @@\n x\n-y\n+Y\n");
        QCOMPARE(applied(files.at(0), "x\ny\n-\n-\nx\ny\n"), QByteArray("x\ny\n-\n-\nx\nY\n"));
    }

    void noNewlineAtEnd()
    {
        const QList<FilePatch> files = parse("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n");
        QCOMPARE(applied(files.at(0), "a\nb"), QByteArray("a\nc\n"));
        const QList<FilePatch> back = parse("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-c\n+b\n\\ No newline at end of file\n");
        QCOMPARE(applied(back.at(0), "a\nc\n"), QByteArray("a\nb"));
    }

    void crlfFileStaysCrlf()
    {
        const QList<FilePatch> files = parse("--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+deux\n three\n");
        QCOMPARE(applied(files.at(0), "one\r\ntwo\r\nthree\r\n"), QByteArray("one\r\ndeux\r\nthree\r\n"));
        // A patch copied from a CRLF file carries the CRs itself.
        const QList<FilePatch> crPatch = parse("--- a/w.txt\r\n+++ b/w.txt\r\n@@ -2 +2 @@\r\n-two\r\n+zwei\r\n");
        QCOMPARE(applied(crPatch.at(0), "one\r\ntwo\r\nthree\r\n"), QByteArray("one\r\nzwei\r\nthree\r\n"));
    }

    void envelope()
    {
        const QByteArray patch =
            "*** Begin Patch\n"
            "*** Add File: docs/hello.md\n"
            "+# Hello\n"
            "+\n"
            "+text\n"
            "*** Update File: src/main.py\n"
            "*** Move to: src/app.py\n"
            "@@ def main():\n"
            "     x = 1\n"
            "-    print(x)\n"
            "+    print(x + 1)\n"
            "@@\n"
            " tail\n"
            "+appended\n"
            "*** End of File\n"
            "*** Delete File: old.txt\n"
            "*** End Patch\n";
        const QList<FilePatch> files = parse(patch);
        QCOMPARE(files.size(), 3);
        QCOMPARE(files.at(0).action, FilePatch::Action::Add);
        QCOMPARE(applied(files.at(0), {}), QByteArray("# Hello\n\ntext\n"));
        QCOMPARE(files.at(1).moveTo, QStringLiteral("src/app.py"));
        const QByteArray before = "    x = 1\n    print(x)\ndef main():\n    x = 1\n    print(x)\ntail\n";
        QCOMPARE(applied(files.at(1), before),
                 QByteArray("    x = 1\n    print(x)\ndef main():\n    x = 1\n    print(x + 1)\ntail\nappended\n"));
        QCOMPARE(files.at(2).action, FilePatch::Action::Delete);
    }

    void whitespaceTolerance()
    {
        const QList<FilePatch> files = parse("*** Begin Patch\n*** Update File: f\n@@\n a  \n-b\n+c\n*** End Patch\n");
        // Trailing blanks differ; the file's own context bytes are kept.
        QCOMPARE(applied(files.at(0), "a\t\nb\n"), QByteArray("a\t\nc\n"));
    }

    void failureNamesHunkAndNearestLines()
    {
        const QList<FilePatch> files =
            parse("--- a/f.c\n+++ b/f.c\n@@ -1,2 +1,2 @@\n int a;\n-int b;\n+int B;\n@@ -10,2 +10,2 @@\n int y;\n-int zz;\n+int Z;\n");
        PatchApplier::Outcome out;
        QString error;
        QVERIFY(!PatchApplier::apply(files.at(0), "int a;\nint b;\n\n\n\n\n\n\n\nint y;\nint z;\n", out, error));
        QVERIFY2(error.contains(QStringLiteral("hunk 2 of f.c")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("int zz;")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("   10| int y;")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("   11| int z;")), qPrintable(error));
    }

    void malformedPatches_data()
    {
        QTest::addColumn<QByteArray>("patch");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("empty") << QByteArray("") << QStringLiteral("no file changes");
        QTest::newRow("prose") << QByteArray("please change foo to bar\n") << QStringLiteral("no file changes");
        QTest::newRow("no end") << QByteArray("*** Begin Patch\n*** Delete File: x\n") << QStringLiteral("End Patch");
        QTest::newRow("bad add line") << QByteArray("*** Begin Patch\n*** Add File: x\nfoo\n*** End Patch\n")
                                      << QStringLiteral("must start with '+'");
        QTest::newRow("update without hunks") << QByteArray("*** Begin Patch\n*** Update File: x\n*** End Patch\n")
                                              << QStringLiteral("has no hunks");
        QTest::newRow("binary") << QByteArray("diff --git a/x b/x\nGIT binary patch\nliteral 1\n")
                                << QStringLiteral("binary patches");
        QTest::newRow("hunk without file") << QByteArray("@@ -1 +1 @@\n-a\n+b\n") << QStringLiteral("before any");
    }
    void malformedPatches()
    {
        QFETCH(QByteArray, patch);
        QFETCH(QString, fragment);
        QList<FilePatch> files;
        QString error;
        QVERIFY(!PatchParser::parse(patch, files, error));
        QVERIFY2(error.contains(fragment), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestPatchApplier)
#include "tst_patch_applier.moc"
