// The agent toolset through the real control channel into a fake-sbx sandbox:
// apply_patch (unified and envelope: add, delete, rename, two hunks, CRLF, a hunk that does not
// apply -> nothing changed), view_image (PNG, JPEG, GIF, WebP, an oversize one scaled down, a
// non-image), bash_write (stdin round trip, EOF, sessions without stdin), read line ranges and
// sha256, write/edit with expected_sha256, edit's expected_replacements and "no change", search
// literal/regex/hidden with workspace-relative paths.
#include "InSandboxFixture.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestAgentTools : public QObject {
    Q_OBJECT

private:
    InSandboxFixture f;

    QString ws(const QString &rel) const { return f.workspaceDir + QLatin1Char('/') + rel; }
    static QString str(const ToolResult &r, const char *key) { return r.structured.value(QLatin1String(key)).toString(); }
    static int num(const ToolResult &r, const char *key) { return r.structured.value(QLatin1String(key)).toInt(); }
    static QString sha(const QByteArray &b) { return QString::fromLatin1(QCryptographicHash::hash(b, QCryptographicHash::Sha256).toHex()); }
    void expectError(const ToolResult &r, const QString &fragment)
    {
        QVERIFY2(r.isError, qPrintable(InSandboxFixture::describe(r)));
        QVERIFY2(r.message.contains(fragment, Qt::CaseInsensitive), qPrintable(r.message));
        QVERIFY2(!r.message.contains(f.env.dataRoot()), qPrintable(r.message));
    }
    ToolResult ok(const QString &tool, const QJsonObject &args, int timeoutMs = 30000)
    {
        const ToolResult r = f.call(tool, args, timeoutMs);
        if (r.isError)
            qWarning("%s failed: %s", qPrintable(tool), qPrintable(InSandboxFixture::describe(r)));
        return r;
    }
    QString drain(const QString &session)
    {
        QString all;
        for (int i = 0; i < 50; ++i) {
            const ToolResult r = f.call(QStringLiteral("bash_poll"), {{"session_id", session}, {"yield_time_ms", 2000}});
            all += str(r, "output");
            if (r.isError || (str(r, "status") == QLatin1String("exited") && !r.structured.value(QStringLiteral("has_more_output")).toBool()))
                break;
        }
        return all;
    }

private slots:
    void initTestCase()
    {
        QString error;
        QVERIFY2(f.setUp(error), qPrintable(error));
    }

    // ---- apply_patch

    void unifiedPatchAddDeleteRenameTwoHunks()
    {
        QByteArray ten;
        for (int i = 1; i <= 10; ++i)
            ten += "line " + QByteArray::number(i) + '\n';
        QVERIFY(writeFile(ws("p/ten.txt"), "inserted above\n" + ten));   // line numbers in the patch are off by one
        QVERIFY(writeFile(ws("p/gone.txt"), "bye\n"));
        QVERIFY(writeFile(ws("p/old.txt"), "keep me\n"));
        const QString patch = QStringLiteral(
            "diff --git a/p/ten.txt b/p/ten.txt\n"
            "--- a/p/ten.txt\n"
            "+++ b/p/ten.txt\n"
            "@@ -1,3 +1,3 @@\n"
            " line 1\n"
            "-line 2\n"
            "+LINE TWO\n"
            " line 3\n"
            "@@ -8,3 +8,4 @@\n"
            " line 8\n"
            " line 9\n"
            "+line 9.5\n"
            " line 10\n"
            "diff --git a/p/new.txt b/p/new.txt\n"
            "new file mode 100644\n"
            "--- /dev/null\n"
            "+++ b/p/new.txt\n"
            "@@ -0,0 +1,2 @@\n"
            "+fresh\n"
            "+file\n"
            "diff --git a/p/gone.txt b/p/gone.txt\n"
            "deleted file mode 100644\n"
            "--- a/p/gone.txt\n"
            "+++ /dev/null\n"
            "@@ -1 +0,0 @@\n"
            "-bye\n"
            "diff --git a/p/old.txt b/p/renamed.txt\n"
            "similarity index 100%\n"
            "rename from p/old.txt\n"
            "rename to p/renamed.txt\n");
        const ToolResult r = ok(QStringLiteral("apply_patch"), {{"patch", patch}});
        QVERIFY(!r.isError);
        const QJsonArray files = r.structured.value(QStringLiteral("files")).toArray();
        QCOMPARE(files.size(), 4);
        QCOMPARE(files.at(0).toObject().value(QStringLiteral("action")).toString(), QStringLiteral("update"));
        QCOMPARE(files.at(0).toObject().value(QStringLiteral("lines_added")).toInt(), 2);
        QCOMPARE(files.at(0).toObject().value(QStringLiteral("lines_removed")).toInt(), 1);
        QCOMPARE(files.at(3).toObject().value(QStringLiteral("action")).toString(), QStringLiteral("rename"));
        QCOMPARE(files.at(3).toObject().value(QStringLiteral("path")).toString(), QStringLiteral("~/workspace/p/renamed.txt"));
        QByteArray expected = "inserted above\n" + ten;
        expected.replace("line 2\n", "LINE TWO\n");
        expected.replace("line 9\n", "line 9\nline 9.5\n");
        QCOMPARE(readFile(ws("p/ten.txt")), expected);
        QCOMPARE(readFile(ws("p/new.txt")), QByteArray("fresh\nfile\n"));
        QVERIFY(!QFileInfo::exists(ws("p/gone.txt")));
        QVERIFY(!QFileInfo::exists(ws("p/old.txt")));
        QCOMPARE(readFile(ws("p/renamed.txt")), QByteArray("keep me\n"));
        QCOMPARE(QDir(ws("p")).entryList(QDir::Files | QDir::Hidden).size(), 3);   // no temporary files left
    }

    void envelopePatch()
    {
        QVERIFY(writeFile(ws("e/app.py"), "def main():\n    x = 1\n    print(x)\n\nmain()\n"));
        QVERIFY(writeFile(ws("e/obsolete.py"), "pass\n"));
        const QString patch = QStringLiteral(
            "*** Begin Patch\n"
            "*** Add File: e/util.py\n"
            "+def helper():\n"
            "+    return 42\n"
            "*** Update File: e/app.py\n"
            "*** Move to: e/main.py\n"
            "@@ def main():\n"
            "     x = 1\n"
            "-    print(x)\n"
            "+    print(x + 1)\n"
            "*** Delete File: e/obsolete.py\n"
            "*** End Patch\n");
        const ToolResult r = ok(QStringLiteral("apply_patch"), {{"patch", patch}});
        QVERIFY(!r.isError);
        QCOMPARE(readFile(ws("e/util.py")), QByteArray("def helper():\n    return 42\n"));
        QCOMPARE(readFile(ws("e/main.py")), QByteArray("def main():\n    x = 1\n    print(x + 1)\n\nmain()\n"));
        QVERIFY(!QFileInfo::exists(ws("e/app.py")));
        QVERIFY(!QFileInfo::exists(ws("e/obsolete.py")));
    }

    void crlfFileStaysCrlf()
    {
        QVERIFY(writeFile(ws("win.txt"), "one\r\ntwo\r\nthree\r\n"));
        const ToolResult r = ok(QStringLiteral("apply_patch"),
                                {{"patch", "--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+deux\n three\n"}});
        QVERIFY(!r.isError);
        QCOMPARE(readFile(ws("win.txt")), QByteArray("one\r\ndeux\r\nthree\r\n"));
    }

    void failingHunkChangesNothing()
    {
        QVERIFY(writeFile(ws("f/a.txt"), "alpha\nbeta\n"));
        QVERIFY(writeFile(ws("f/b.txt"), "one\ntwo\nthree\n"));
        const QString patch = QStringLiteral(
            "--- a/f/a.txt\n+++ b/f/a.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n"
            "--- /dev/null\n+++ b/f/c.txt\n@@ -0,0 +1 @@\n+new\n"
            "--- a/f/b.txt\n+++ b/f/b.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n");
        const ToolResult r = f.call(QStringLiteral("apply_patch"), {{"patch", patch}});
        expectError(r, QStringLiteral("hunk 1 of f/b.txt"));
        QVERIFY2(r.message.contains(QStringLiteral("Nearest lines")) && r.message.contains(QStringLiteral("2| two")), qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("Nothing was changed")), qPrintable(r.message));
        QCOMPARE(readFile(ws("f/a.txt")), QByteArray("alpha\nbeta\n"));
        QVERIFY(!QFileInfo::exists(ws("f/c.txt")));
        // Adding a file that exists, updating one that does not: refused, nothing changed.
        expectError(f.call(QStringLiteral("apply_patch"),
                           {{"patch", "--- a/f/a.txt\n+++ b/f/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n"
                                      "--- /dev/null\n+++ b/f/b.txt\n@@ -0,0 +1 @@\n+x\n"}}),
                    QStringLiteral("already exists"));
        QCOMPARE(readFile(ws("f/a.txt")), QByteArray("alpha\nbeta\n"));
        expectError(f.call(QStringLiteral("apply_patch"), {{"patch", "--- a/f/none.txt\n+++ b/f/none.txt\n@@ -1 +1 @@\n-a\n+b\n"}}),
                    QStringLiteral("no such file"));
        expectError(f.call(QStringLiteral("apply_patch"), {{"patch", "make it better"}}), QStringLiteral("could not be read"));
    }

    // ---- view_image

    void imagesOfEachFormat_data()
    {
        QTest::addColumn<QByteArray>("format");
        QTest::addColumn<QString>("mime");
        QTest::newRow("png") << QByteArray("png") << QStringLiteral("image/png");
        QTest::newRow("jpeg") << QByteArray("jpeg") << QStringLiteral("image/jpeg");
        QTest::newRow("webp") << QByteArray("webp") << QStringLiteral("image/webp");
    }
    void imagesOfEachFormat()
    {
        QFETCH(QByteArray, format);
        QFETCH(QString, mime);
        QImage image(64, 48, QImage::Format_RGB32);
        image.fill(Qt::darkCyan);
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QVERIFY2(image.save(&buffer, format.constData()), format.constData());
        QVERIFY(writeFile(ws("img/pic." + QString::fromLatin1(format)), bytes));
        const ToolResult r = ok(QStringLiteral("view_image"), {{"path", "img/pic." + QString::fromLatin1(format)}});
        QVERIFY(!r.isError);
        QCOMPARE(num(r, "width"), 64);
        QCOMPARE(num(r, "height"), 48);
        QCOMPARE(num(r, "bytes"), bytes.size());
        QCOMPARE(str(r, "mime_type"), mime);
        QCOMPARE(r.extraContent.size(), 1);
        const QJsonObject block = r.extraContent.at(0).toObject();
        QCOMPARE(block.value(QStringLiteral("type")).toString(), QStringLiteral("image"));
        QCOMPARE(block.value(QStringLiteral("mimeType")).toString(), mime);
        QCOMPARE(QByteArray::fromBase64(block.value(QStringLiteral("data")).toString().toLatin1()), bytes);   // unchanged
    }

    void gifImage()
    {
        // A 1x1 GIF89a (Qt reads GIF but cannot write it).
        const QByteArray gif = QByteArray::fromHex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b");
        QVERIFY(writeFile(ws("img/dot.gif"), gif));
        const ToolResult r = ok(QStringLiteral("view_image"), {{"path", "img/dot.gif"}});
        QVERIFY(!r.isError);
        QCOMPARE(str(r, "mime_type"), QStringLiteral("image/gif"));
        QCOMPARE(num(r, "width"), 1);
        QCOMPARE(r.extraContent.at(0).toObject().value(QStringLiteral("mimeType")).toString(), QStringLiteral("image/gif"));
    }

    void oversizeImageIsScaledDown()
    {
        QImage image(3000, 1500, QImage::Format_RGB32);
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                image.setPixel(x, y, qRgb(x % 256, y % 256, (x * y) % 256));
        QVERIFY(image.save(ws("img/big.png"), "png"));
        const ToolResult r = ok(QStringLiteral("view_image"), {{"path", "img/big.png"}}, 60000);
        QVERIFY(!r.isError);
        QCOMPARE(num(r, "width"), 3000);
        QCOMPARE(r.structured.value(QStringLiteral("scaled")).toBool(), true);
        QCOMPARE(num(r, "shown_width"), 2000);
        QCOMPARE(num(r, "shown_height"), 1000);
        const QByteArray shown = QByteArray::fromBase64(r.extraContent.at(0).toObject().value(QStringLiteral("data")).toString().toLatin1());
        QVERIFY(shown.size() <= 4 * 1024 * 1024);
        QBuffer b;
        b.setData(shown);
        QCOMPARE(QImageReader(&b).size(), QSize(2000, 1000));
        qInfo("3000x1500 PNG of %lld bytes shown as 2000x1000 %s of %lld bytes", static_cast<long long>(QFileInfo(ws("img/big.png")).size()),
              qPrintable(str(r, "mime_type")), static_cast<long long>(shown.size()));
    }

    void notAnImage()
    {
        QVERIFY(writeFile(ws("img/notes.txt"), "just text\n"));
        expectError(f.call(QStringLiteral("view_image"), {{"path", "img/notes.txt"}}), QStringLiteral("not a PNG, JPEG, GIF or WebP"));
        QVERIFY(writeFile(ws("img/broken.png"), QByteArray("\x89PNG\r\n\x1a\n", 8) + QByteArray(100, 'x')));
        expectError(f.call(QStringLiteral("view_image"), {{"path", "img/broken.png"}}), QStringLiteral("cannot be read"));
        expectError(f.call(QStringLiteral("view_image"), {{"path", "img/missing.png"}}), QStringLiteral("no such file"));
    }

    // ---- bash_write

    void stdinRoundTrip()
    {
        const ToolResult first = ok(QStringLiteral("bash"), {{"command", "read x; echo got $x"}, {"stdin", true}, {"yield_time_ms", 300}});
        QCOMPARE(str(first, "status"), QStringLiteral("running"));
        const ToolResult w = ok(QStringLiteral("bash_write"),
                                {{"session_id", str(first, "session_id")}, {"input", "hello\n"}, {"yield_time_ms", 5000}});
        QVERIFY(!w.isError);
        const QString all = str(w, "output") + (str(w, "status") == QLatin1String("exited") ? QString() : drain(str(first, "session_id")));
        QVERIFY2(all.contains(QStringLiteral("got hello")), qPrintable(all));
        // The session has ended: writing again is refused.
        expectError(f.call(QStringLiteral("bash_write"), {{"session_id", str(first, "session_id")}, {"input", "more\n"}}),
                    QStringLiteral("exited"));
    }

    void closeStdinSendsEof()
    {
        const ToolResult first = ok(QStringLiteral("bash"), {{"command", "wc -c"}, {"stdin", true}, {"yield_time_ms", 300}});
        QCOMPARE(str(first, "status"), QStringLiteral("running"));
        ok(QStringLiteral("bash_write"), {{"session_id", str(first, "session_id")}, {"input", "abc"}, {"yield_time_ms", 100}});
        const ToolResult w = ok(QStringLiteral("bash_write"),
                                {{"session_id", str(first, "session_id")}, {"input", "de"}, {"close_stdin", true}, {"yield_time_ms", 5000}});
        const QString all = str(w, "output") + drain(str(first, "session_id"));
        QCOMPARE(all.trimmed(), QStringLiteral("5"));
    }

    void withoutStdinNothingWaits()
    {
        // Without stdin: true a command reading stdin sees EOF at once, as before.
        const ToolResult r = ok(QStringLiteral("bash"), {{"command", "cat; echo done"}, {"yield_time_ms", 5000}});
        QCOMPARE(str(r, "status"), QStringLiteral("exited"));
        QCOMPARE(str(r, "output"), QStringLiteral("done\n"));
        const ToolResult running = ok(QStringLiteral("bash"), {{"command", "sleep 30"}, {"yield_time_ms", 100}});
        expectError(f.call(QStringLiteral("bash_write"), {{"session_id", str(running, "session_id")}, {"input", "x"}}),
                    QStringLiteral("without stdin"));
        expectError(f.call(QStringLiteral("bash_write"), {{"session_id", str(running, "session_id")}, {"input", ""}}),
                    QStringLiteral("nothing to do"));
        f.call(QStringLiteral("bash_stop"), {{"session_id", str(running, "session_id")}});
    }

    // ---- read / write / edit / search changes

    void readRangesAndSha()
    {
        const QByteArray content = "a\nb\nc\nd\n";
        QVERIFY(writeFile(ws("r.txt"), content));
        ToolResult r = ok(QStringLiteral("read"), {{"path", "r.txt"}, {"start_line", 2}, {"end_line", 3}});
        QCOMPARE(str(r, "content"), QStringLiteral("     2\tb\n     3\tc\n[showing lines 2-3 of 4; read again with offset=4 for more]\n"));
        QCOMPARE(str(r, "sha256"), sha(content));
        QCOMPARE(r.structured.value(QStringLiteral("truncated")).toBool(), true);   // the marker and truncated agree
        r = ok(QStringLiteral("read"), {{"path", "r.txt"}, {"start_line", 3}});
        QCOMPARE(str(r, "content"), QStringLiteral("     3\tc\n     4\td\n"));
        QCOMPARE(r.structured.value(QStringLiteral("truncated")).toBool(), false);
        expectError(f.call(QStringLiteral("read"), {{"path", "r.txt"}, {"start_line", 3}, {"end_line", 2}}), QStringLiteral("before start_line"));
        expectError(f.call(QStringLiteral("read"), {{"path", "r.txt"}, {"start_line", 1}, {"offset", 2}}), QStringLiteral("not both"));
    }

    void writeWithExpectedSha()
    {
        QVERIFY(writeFile(ws("w.txt"), "one\ntwo\n"));
        ToolResult r = f.call(QStringLiteral("write"), {{"path", "w.txt"}, {"content", "x\n"}, {"expected_sha256", sha("something else")}});
        expectError(r, sha("one\ntwo\n"));
        QCOMPARE(r.structured.value(QStringLiteral("current_sha256")).toString(), sha("one\ntwo\n"));
        QCOMPARE(readFile(ws("w.txt")), QByteArray("one\ntwo\n"));
        r = ok(QStringLiteral("write"), {{"path", "w.txt"}, {"content", "one\n2\n"}, {"expected_sha256", sha("one\ntwo\n")}});
        QVERIFY(!r.isError);
        QCOMPARE(str(r, "sha256"), sha("one\n2\n"));
        QVERIFY2(str(r, "diff").contains(QStringLiteral("@@ -1,2 +1,2 @@\n one\n-two\n+2\n")), qPrintable(str(r, "diff")));
        r = ok(QStringLiteral("write"), {{"path", "w-new.txt"}, {"content", "hi\n"}});
        QVERIFY2(str(r, "diff").startsWith(QStringLiteral("--- /dev/null\n")), qPrintable(str(r, "diff")));
        QCOMPARE(r.structured.value(QStringLiteral("created")).toBool(), true);
        expectError(f.call(QStringLiteral("write"), {{"path", "w-none.txt"}, {"content", "x"}, {"expected_sha256", sha("x")}}),
                    QStringLiteral("does not exist"));
        QVERIFY(!QFileInfo::exists(ws("w-none.txt")));
        expectError(f.call(QStringLiteral("write"), {{"path", "w.txt"}, {"content", "x"}, {"expected_sha256", "abc"}}),
                    QStringLiteral(R"("expected_sha256": must match the pattern ^[0-9a-fA-F]{64}$)"));
    }

    void editWithExpectations()
    {
        QVERIFY(writeFile(ws("ed.txt"), "a b a b a\n"));
        expectError(f.call(QStringLiteral("edit"), {{"path", "ed.txt"}, {"old_string", "a"}, {"new_string", "a"}}),
                    QStringLiteral("no change"));
        expectError(f.call(QStringLiteral("edit"), {{"path", "ed.txt"}, {"old_string", "b"}, {"new_string", "B"}, {"expected_sha256", sha("x")}}),
                    sha("a b a b a\n"));
        expectError(f.call(QStringLiteral("edit"), {{"path", "ed.txt"}, {"old_string", "a"}, {"new_string", "A"}, {"expected_replacements", 2}}),
                    QStringLiteral("matches 3 times in ~/workspace/ed.txt, not the expected 2"));
        QCOMPARE(readFile(ws("ed.txt")), QByteArray("a b a b a\n"));
        const ToolResult r = ok(QStringLiteral("edit"), {{"path", "ed.txt"}, {"old_string", "a"}, {"new_string", "A"},
                                                         {"expected_replacements", 3}, {"expected_sha256", sha("a b a b a\n")}});
        QVERIFY(!r.isError);
        QCOMPARE(num(r, "replacements"), 3);
        QCOMPARE(readFile(ws("ed.txt")), QByteArray("A b A b A\n"));
        QCOMPARE(str(r, "sha256"), sha("A b A b A\n"));
    }

    void searchLiteralRegexHidden()
    {
        QVERIFY(writeFile(ws("s/code.c"), "int a = b+c;\nint abc;\n"));
        QVERIFY(writeFile(ws("s/.hidden/h.txt"), "b+c hidden\n"));
        QVERIFY(writeFile(ws("s/.dot.txt"), "b+c dot\n"));
        ToolResult r = ok(QStringLiteral("search"), {{"pattern", "b+c"}, {"path", "s"}});
        QCOMPARE(num(r, "count"), 1);
        QCOMPARE(r.structured.value(QStringLiteral("matches")).toArray().at(0).toObject().value(QStringLiteral("file")).toString(),
                 QStringLiteral("s/code.c"));
        r = ok(QStringLiteral("search"), {{"pattern", "b+c"}, {"path", "s"}, {"regex", true}});
        QCOMPARE(num(r, "count"), 1);   // "bc" in "abc" (b+ then c)
        QCOMPARE(r.structured.value(QStringLiteral("matches")).toArray().at(0).toObject().value(QStringLiteral("line")).toInt(), 2);
        r = ok(QStringLiteral("search"), {{"pattern", "b+c"}, {"path", "s"}, {"include_hidden", true}});
        QStringList files;
        for (const QJsonValue &m : r.structured.value(QStringLiteral("matches")).toArray())
            files << m.toObject().value(QStringLiteral("file")).toString();
        files.sort();
        QCOMPARE(files, (QStringList{QStringLiteral("s/.dot.txt"), QStringLiteral("s/.hidden/h.txt"), QStringLiteral("s/code.c")}));
        // An absolute path inside the workspace still gives workspace-relative results.
        r = ok(QStringLiteral("search"), {{"pattern", "abc"}, {"path", "~/workspace/s"}});
        QCOMPARE(r.structured.value(QStringLiteral("matches")).toArray().at(0).toObject().value(QStringLiteral("file")).toString(),
                 QStringLiteral("s/code.c"));
    }

    void cleanupTestCase()
    {
        if (f.pool)
            f.pool->detach(f.id());
    }
};

QTEST_GUILESS_MAIN(TestAgentTools)
#include "tst_agent_tools.moc"
