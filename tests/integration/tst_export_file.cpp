// export_file against a real sandbox of the fake sbx: a file and a folder (as a .tar.gz) land in the
// export folder with their size and sha256; a name that exists gets " (2)"; a path with "../",
// a leading dot and control characters lands under a safe name inside the export folder only; the
// per-file and per-sandbox budgets refuse with the setting to change; nothing half-written is left,
// not even by a copy killed with SIGKILL.
#include "InSandboxFixture.h"

#include "sandbox/changes/FileExport.h"
#include "tools/ExportFileTool.h"
#include "sandbox/changes/HostExportFile.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {
constexpr qint64 kMaxFile = 6LL * 1024 * 1024;
constexpr qint64 kMaxSandbox = 10LL * 1024 * 1024;
}

class TestExportFile : public QObject {
    Q_OBJECT

private:
    InSandboxFixture f;
    QTemporaryDir out;
    std::unique_ptr<FileExport> exports;

    QString ws(const QString &rel) const { return f.workspaceDir + QLatin1Char('/') + rel; }
    ToolResult exportPath(const QString &path) { return f.call(QStringLiteral("export_file"), {{"path", path}}, 120000); }
    QStringList exported() const
    {
        return QDir(out.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
    }
    static QByteArray bytes(qint64 n, char seed)
    {
        QByteArray b(static_cast<int>(n), Qt::Uninitialized);
        for (int i = 0; i < b.size(); ++i)
            b[i] = static_cast<char>(seed + i * 31);
        return b;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(out.isValid());
        QString error;
        QVERIFY2(f.setUp(error), qPrintable(error));
        FileExportOptions options;
        options.dir = out.path() + QStringLiteral("/Downloads/chat2sbx");   // made on first use
        options.maxFileBytes = kMaxFile;
        options.maxSandboxBytes = kMaxSandbox;
        exports = std::make_unique<FileExport>(*f.pool, options);
        registerExportFileTool(f.tools, f.resolver, *f.pool, *exports);
        QVERIFY(out.path().size() > 0);
        QVERIFY(out.isValid());
    }

    void aFileLandsInTheExportFolder()
    {
        const QByteArray report = bytes(5 * 1024 * 1024 + 17, 'r');   // two parts and a bit
        QVERIFY(writeFile(ws("out/report.pdf"), report));
        const ToolResult r = exportPath(QStringLiteral("out/report.pdf"));
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        const QString dir = out.path() + QStringLiteral("/Downloads/chat2sbx");
        QCOMPARE(r.structured.value(QStringLiteral("host_path")).toString(), dir + QStringLiteral("/report.pdf"));
        QCOMPARE(r.structured.value(QStringLiteral("file_name")).toString(), QStringLiteral("report.pdf"));
        QCOMPARE(static_cast<qint64>(r.structured.value(QStringLiteral("size")).toDouble()), report.size());
        QCOMPARE(r.structured.value(QStringLiteral("sha256")).toString(),
                 QString::fromLatin1(QCryptographicHash::hash(report, QCryptographicHash::Sha256).toHex()));
        QCOMPARE(readFile(dir + QStringLiteral("/report.pdf")), report);
        QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::Hidden).size(), 1);   // no staged file left
    }

    void aNameThatExistsIsNumbered()
    {
        QVERIFY(writeFile(ws("out/report.pdf"), "second"));
        const ToolResult r = exportPath(QStringLiteral("out/report.pdf"));
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QVERIFY(r.structured.value(QStringLiteral("host_path")).toString().endsWith(QStringLiteral("/report (2).pdf")));
        QCOMPARE(readFile(out.path() + QStringLiteral("/Downloads/chat2sbx/report (2).pdf")), QByteArray("second"));
        QCOMPARE(HostExportFile::numberedName(QStringLiteral("site.tar.gz"), 3), QStringLiteral("site (3).tar.gz"));
    }

    void aFolderComesAsATarGz()
    {
        QVERIFY(writeFile(ws("site/index.html"), "<h1>hi</h1>"));
        QVERIFY(writeFile(ws("site/css/a.css"), "body{}"));
        const ToolResult r = exportPath(QStringLiteral("site/"));
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("packed")).toBool(), true);
        const QString host = r.structured.value(QStringLiteral("host_path")).toString();
        QVERIFY2(host.endsWith(QStringLiteral("/site.tar.gz")), qPrintable(host));
        QProcess tar;
        tar.start(QStringLiteral("tar"), {QStringLiteral("-tzf"), host});
        QVERIFY(tar.waitForFinished(30000));
        const QString listing = QString::fromUtf8(tar.readAllStandardOutput());
        QVERIFY2(listing.contains(QStringLiteral("site/index.html")) && listing.contains(QStringLiteral("site/css/a.css")),
                 qPrintable(listing));
    }

    void aHostileNameLandsSafelyInTheFolder()
    {
        const QString evil = QStringLiteral(".bad\x01name\x1b[31m.txt");
        QVERIFY(writeFile(ws(QStringLiteral("sub/") + evil), "x"));
        const ToolResult r = exportPath(QStringLiteral("sub/../sub/") + evil);
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        const QString host = r.structured.value(QStringLiteral("host_path")).toString();
        QCOMPARE(host, out.path() + QStringLiteral("/Downloads/chat2sbx/badname[31m.txt"));
        QCOMPARE(HostExportFile::safeName(QStringLiteral("../../etc/passwd"), false), QStringLiteral("passwd"));
        QCOMPARE(HostExportFile::safeName(QStringLiteral("~/.."), false), QStringLiteral("export"));
        QCOMPARE(HostExportFile::safeName(QStringLiteral("/"), true), QStringLiteral("export.tar.gz"));
        QVERIFY(!QFileInfo::exists(out.path() + QStringLiteral("/passwd")));
    }

    void budgetsRefuseAndLeaveNothing()
    {
        const QString dir = out.path() + QStringLiteral("/Downloads/chat2sbx");
        const QStringList before = QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
        QVERIFY(writeFile(ws("big.bin"), bytes(kMaxFile + 1, 'b')));
        ToolResult r = exportPath(QStringLiteral("big.bin"));
        QVERIFY2(r.isError && r.message.contains(QStringLiteral("exportMaxFileMiB")), qPrintable(InSandboxFixture::describe(r)));
        // This sandbox has sent 5 MiB and a bit; 5 MiB more would pass its 10 MiB.
        QVERIFY(writeFile(ws("more.bin"), bytes(5 * 1024 * 1024, 'm')));
        r = exportPath(QStringLiteral("more.bin"));
        QVERIFY2(r.isError && r.message.contains(QStringLiteral("exportMaxSandboxMiB")), qPrintable(InSandboxFixture::describe(r)));
        QVERIFY2(r.message.contains(QStringLiteral("nothing was written")), qPrintable(r.message));
        QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot), before);
        r = exportPath(QStringLiteral("missing.txt"));
        QVERIFY2(r.isError && r.message.contains(QStringLiteral("no such file")), qPrintable(InSandboxFixture::describe(r)));
    }

    // What a server killed mid-copy leaves (a hidden staged file) goes once it is an hour old.
    void staleStagedFilesAreSwept()
    {
        const QString dir = out.path() + QStringLiteral("/sweep");
        QVERIFY(writeFile(dir + QStringLiteral("/.old.pdf.chat2sbx-part-1a2b"), "half"));
        QVERIFY(writeFile(dir + QStringLiteral("/.new.pdf.chat2sbx-part-3c4d"), "being written"));
        QVERIFY(writeFile(dir + QStringLiteral("/old.pdf"), "a real file"));
        QFile old(dir + QStringLiteral("/.old.pdf.chat2sbx-part-1a2b"));
        QVERIFY(old.open(QIODevice::ReadWrite));
        QVERIFY(old.setFileTime(QDateTime::currentDateTimeUtc().addSecs(-2 * 3600), QFileDevice::FileModificationTime));
        old.close();
        QFile real(dir + QStringLiteral("/old.pdf"));
        QVERIFY(real.open(QIODevice::ReadWrite));
        QVERIFY(real.setFileTime(QDateTime::currentDateTimeUtc().addSecs(-2 * 3600), QFileDevice::FileModificationTime));
        real.close();
        QCOMPARE(HostExportFile::removeStale(dir, 60), 1);
        QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList({".new.pdf.chat2sbx-part-3c4d", "old.pdf"}));
    }

    // `chat2sbx sandbox export` from a terminal: the same copy, into the configured folder.
    void theCliExportsTheSame()
    {
        const QString dir = out.path() + QStringLiteral("/cli-exports");
        f.env.set(QStringLiteral("CHAT2SBX_EXPORT_DIR"), dir);
        QVERIFY(writeFile(ws("notes/todo.txt"), "from the terminal\n"));
        const CliResult r = runCli(f.env, {QStringLiteral("sandbox"), QStringLiteral("export"), f.id(), QStringLiteral("notes/todo.txt"),
                                           QStringLiteral("--json")}, 60000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value(QStringLiteral("host_path")).toString(), dir + QStringLiteral("/todo.txt"));
        QCOMPARE(readFile(dir + QStringLiteral("/todo.txt")), QByteArray("from the terminal\n"));
        const CliResult missing = runCli(f.env, {QStringLiteral("sandbox"), QStringLiteral("export"), f.id(), QStringLiteral("nope.txt")}, 60000);
        QVERIFY(missing.exitCode != 0);
        QVERIFY2(missing.err.contains("no such file") && missing.err.contains("nothing was written"), missing.err.constData());
    }

    // kill -9 of a process in the middle of a copy: the file is never under its name, only the hidden
    // staged part (which the next server start sweeps once old); the next export takes the name.
    void aKilledCopyLeavesNoFileUnderItsName()
    {
        const QString dir = out.path() + QStringLiteral("/killed");
        f.env.set(QStringLiteral("CHAT2SBX_EXPORT_DIR"), dir);
        f.env.set(QStringLiteral("CHAT2SBX_EXPORT_FILE_MAX_MB"), QStringLiteral("2048"));
        f.env.set(QStringLiteral("CHAT2SBX_EXPORT_SANDBOX_MAX_MB"), QStringLiteral("4096"));
        {
            QFile big(ws("dist/image.iso"));
            QVERIFY(QDir().mkpath(ws("dist")) && big.open(QIODevice::WriteOnly));
            QVERIFY(big.resize(qint64(1024) << 20));   // sparse: 256 parts of 4 MiB, seconds to copy
        }
        QProcess cli;
        cli.setProcessEnvironment(f.env.processEnvironment());
        cli.start(chat2sbxBinary(), {QStringLiteral("sandbox"), QStringLiteral("export"), f.id(), QStringLiteral("dist/image.iso")});
        QVERIFY(cli.waitForStarted(10000));
        const auto staged = [&] {
            return QDir(dir).entryInfoList({QStringLiteral(".image.iso.chat2sbx-part*")}, QDir::Files | QDir::Hidden);
        };
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 120000 && cli.state() == QProcess::Running
               && (staged().isEmpty() || staged().first().size() == 0))
            QTest::qWait(5);
        QVERIFY2(cli.state() == QProcess::Running, cli.readAllStandardError().constData());
        QVERIFY(!staged().isEmpty());
        cli.kill();   // SIGKILL
        QVERIFY(cli.waitForFinished(10000));
        const QFileInfo part = staged().first();
        QVERIFY2(part.size() > 0 && part.size() < (qint64(1024) << 20), qPrintable(QString::number(part.size())));
        QVERIFY(!QFileInfo::exists(dir + QStringLiteral("/image.iso")));
        QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::NoDotAndDotDot), QStringList());   // nothing visible at all

        // Swept once old; a new export takes the plain name.
        QFile old(part.filePath());
        QVERIFY(old.open(QIODevice::ReadWrite));
        QVERIFY(old.setFileTime(QDateTime::currentDateTimeUtc().addSecs(-2 * 3600), QFileDevice::FileModificationTime));
        old.close();
        QCOMPARE(HostExportFile::removeStale(dir, 60), 1);
        QVERIFY(QFile::resize(ws("dist/image.iso"), 3 * 1024 * 1024));
        const CliResult again = runCli(f.env, {QStringLiteral("sandbox"), QStringLiteral("export"), f.id(), QStringLiteral("dist/image.iso")}, 60000);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot), QStringList({"image.iso"}));
        QCOMPARE(QFileInfo(dir + QStringLiteral("/image.iso")).size(), qint64(3 * 1024 * 1024));
    }

    void cleanupTestCase()
    {
        if (f.pool)
            f.pool->detach(f.id());
    }
};

QTEST_GUILESS_MAIN(TestExportFile)
#include "tst_export_file.moc"
