// export_file against a real sandbox of the fake sbx: a file and a folder (as a .tar.gz) land in the
// export folder with their size and sha256; a name that exists gets " (2)"; a path with "../",
// a leading dot and control characters lands under a safe name inside the export folder only; the
// per-file and per-sandbox budgets refuse with the setting to change; nothing half-written is left,
// not even by a copy killed with SIGKILL.
#include "InSandboxFixture.h"

#include "sandbox/changes/ExportApprovals.h"
#include "sandbox/changes/FileExport.h"
#include "tools/ExportFileTool.h"
#include "sandbox/changes/HostExportFile.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

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
    std::unique_ptr<ExportApprovals> approvals;
    std::unique_ptr<FileExport> exports;

    QString ws(const QString &rel) const { return f.workspaceDir + QLatin1Char('/') + rel; }
    ToolResult exportPath(const QString &path) { return f.call(QStringLiteral("export_file"), {{"path", path}}, 120000); }
    FileExport::Outcome exportWith(FileExport &through, const QString &path)
    {
        std::optional<FileExport::Outcome> outcome;
        through.start(f.sandbox(), path, path, [&](const FileExport::Outcome &o) { outcome = o; });
        QElapsedTimer waited;
        waited.start();
        while (!outcome && waited.elapsed() < 120000)
            QTest::qWait(10);
        FileExport::Outcome none;
        none.error = QStringLiteral("test: no outcome within 120 s");
        return outcome.value_or(none);
    }
    QStringList exported() const
    {
        return QDir(out.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
    }
    static QByteArray randomBytes(qint64 n)   // incompressible: gzip cannot shrink it under a limit
    {
        QByteArray b(static_cast<int>(n), Qt::Uninitialized);
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(b.data()), b.size() / 4);
        return b;
    }
    // Packs the helper left in the VM (~/.chat2sbx/exports).
    QStringList packsInTheVm() const
    {
        return QDir(f.env.sbxState() + QStringLiteral("/sandboxes/") + f.sandbox().runtimeName + QStringLiteral("/home/.chat2sbx/exports"))
            .entryList(QDir::Files);
    }
    bool tarRunning() const
    {
        for (const ProcessInfo &p : processesWithEnvironment("FAKE_SBX_SANDBOX=" + f.sandbox().runtimeName.toUtf8()))
            if (!p.argv.isEmpty() && p.argv.first().endsWith(QLatin1String("tar")))
                return true;
        return false;
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
        approvals = std::make_unique<ExportApprovals>(f.db, Clock::system());
        exports = std::make_unique<FileExport>(*f.pool, options, approvals.get());   // the defaults: over a budget asks
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

    // exportOverBudget "refuse": over either budget the call fails, names the setting, writes nothing.
    void budgetsRefuseAndLeaveNothing()
    {
        FileExportOptions options = exports->options();
        options.askOverBudget = false;
        FileExport refusing(*f.pool, options, approvals.get());
        const QString dir = out.path() + QStringLiteral("/Downloads/chat2sbx");
        const QStringList before = QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
        QVERIFY(writeFile(ws("big.bin"), bytes(kMaxFile + 1, 'b')));
        FileExport::Outcome o = exportWith(refusing, QStringLiteral("big.bin"));
        QVERIFY2(!o.ok && !o.waiting && o.error.contains(QStringLiteral("exportMaxFileMiB")), qPrintable(o.error));
        // This sandbox has sent 5 MiB and a bit through `exports`; `refusing` counts its own: 5 + 6 MiB pass 10.
        QVERIFY(writeFile(ws("more.bin"), bytes(5 * 1024 * 1024, 'm')));
        QVERIFY(exportWith(refusing, QStringLiteral("more.bin")).ok);
        QVERIFY(writeFile(ws("more2.bin"), bytes(kMaxFile, 'n')));
        o = exportWith(refusing, QStringLiteral("more2.bin"));
        QVERIFY2(!o.ok && o.error.contains(QStringLiteral("exportMaxSandboxMiB")), qPrintable(o.error));
        const QStringList after = QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
        QCOMPARE(QSet<QString>(after.begin(), after.end()), QSet<QString>(before.begin(), before.end()) + QSet<QString>{"more.bin"});
        QVERIFY(approvals->pending().isEmpty());   // nothing was asked
        const ToolResult r = exportPath(QStringLiteral("missing.txt"));
        QVERIFY2(r.isError && r.message.contains(QStringLiteral("no such file")), qPrintable(InSandboxFixture::describe(r)));
        QVERIFY2(r.message.contains(QStringLiteral("nothing was written")), qPrintable(r.message));
    }

    // A folder is packed in the VM with a bound: past the most an export may copy the pack stops
    // (a pack of /usr reached 145 MiB under a 1 MiB budget before), and nothing stays in the VM.
    void aFolderPastTheLimitStopsItsPack()
    {
        FileExportOptions options = exports->options();
        options.askOverBudget = false;
        FileExport refusing(*f.pool, options, approvals.get());
        QVERIFY(writeFile(ws("huge/a.bin"), randomBytes(12 * 1024 * 1024)));
        QVERIFY(writeFile(ws("huge/b.bin"), randomBytes(12 * 1024 * 1024)));
        const FileExport::Outcome o = exportWith(refusing, QStringLiteral("huge"));
        QVERIFY2(!o.ok && o.error.contains(QStringLiteral("packs to more than 6.0 MiB")), qPrintable(o.error));
        QVERIFY(QTest::qWaitFor([&] { return packsInTheVm().isEmpty(); }, scaled(10000)));
        QVERIFY(QDir(ws("huge")).removeRecursively());
    }

    // An export of a folder the caller gives up on ends its pack in the VM at once.
    void aCancelledExportEndsItsPack()
    {
        for (int i = 0; i < 6; ++i)
            QVERIFY(writeFile(ws(QStringLiteral("pile/%1.bin").arg(i)), randomBytes(16 * 1024 * 1024)));
        std::optional<FileExport::Outcome> outcome;
        const auto stop = exports->start(f.sandbox(), QStringLiteral("pile"), QStringLiteral("pile"),
                                         [&](const FileExport::Outcome &o) { outcome = o; });
        QVERIFY(QTest::qWaitFor([&] { return tarRunning(); }, scaled(20000)));
        stop();
        QVERIFY(QTest::qWaitFor([&] { return outcome.has_value(); }, scaled(5000)));
        QVERIFY2(!outcome->ok && outcome->error.contains(QStringLiteral("cancelled")), qPrintable(outcome->error));
        QVERIFY2(QTest::qWaitFor([&] { return !tarRunning(); }, scaled(5000)), "the pack still runs in the VM");
        QVERIFY2(QTest::qWaitFor([&] { return packsInTheVm().isEmpty(); }, scaled(10000)), qPrintable(packsInTheVm().join(' ')));
        QVERIFY(QDir(ws("pile")).removeRecursively());
    }

    // exportOverBudget "ask" (the default): a file over the budget waits for the user (approval_required,
    // the same request on every call until decided), the CLI lists and approves it, the next call copies
    // it; an approval is used once; a rejection is told once, then the next call asks anew.
    void overABudgetWaitsForTheUser()
    {
        const QString dir = out.path() + QStringLiteral("/Downloads/chat2sbx");
        QVERIFY(writeFile(ws("huge.bin"), bytes(kMaxFile + 5, 'h')));
        ToolResult r = exportPath(QStringLiteral("huge.bin"));
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("status")).toString(), QStringLiteral("approval_required"));
        const QString id = r.structured.value(QStringLiteral("export_id")).toString();
        QVERIFY2(id.startsWith(QLatin1String("exp_")), qPrintable(InSandboxFixture::describe(r)));
        QVERIFY(r.structured.value(QStringLiteral("why")).toString().contains(QStringLiteral("exportMaxFileMiB")));
        QVERIFY(r.structured.value(QStringLiteral("how_to_approve")).toString().contains(QStringLiteral("chat2sbx approval approve ") + id));
        QVERIFY(!QFileInfo::exists(dir + QStringLiteral("/huge.bin")));
        r = exportPath(QStringLiteral("huge.bin"));
        QCOMPARE(r.structured.value(QStringLiteral("export_id")).toString(), id);   // the same request, not a second
        QCOMPARE(approvals->pending().size(), 1);

        const CliResult listed = runCli(f.env, {QStringLiteral("approval"), QStringLiteral("list"), QStringLiteral("--json")});
        QVERIFY2(listed.exitCode == 0, listed.err.constData());
        const QJsonArray items = QJsonDocument::fromJson(listed.out).array();
        QVERIFY2(items.size() == 1 && items.at(0).toObject().value(QStringLiteral("kind")).toString() == QLatin1String("export")
                     && items.at(0).toObject().value(QStringLiteral("file_name")).toString() == QLatin1String("huge.bin"),
                 listed.out.constData());
        const CliResult approved = runCli(f.env, {QStringLiteral("approval"), QStringLiteral("approve"), id});
        QVERIFY2(approved.exitCode == 0 && approved.out.contains("huge.bin"), approved.err.constData());

        r = exportPath(QStringLiteral("huge.bin"));
        QVERIFY2(!r.isError && r.structured.value(QStringLiteral("status")).toString() == QLatin1String("exported"),
                 qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(QFileInfo(dir + QStringLiteral("/huge.bin")).size(), kMaxFile + 5);

        // Used up: the next copy of the same path asks again; rejected, it is told once.
        r = exportPath(QStringLiteral("huge.bin"));
        const QString second = r.structured.value(QStringLiteral("export_id")).toString();
        QVERIFY2(second.startsWith(QLatin1String("exp_")) && second != id, qPrintable(InSandboxFixture::describe(r)));
        QString error;
        QVERIFY2(approvals->reject(second, QStringLiteral("test"), error), qPrintable(error));
        QVERIFY(!approvals->reject(second, QStringLiteral("test"), error));   // decided once
        r = exportPath(QStringLiteral("huge.bin"));
        QVERIFY2(r.isError && r.message.contains(QStringLiteral("declined")), qPrintable(InSandboxFixture::describe(r)));
        QVERIFY(!QFileInfo::exists(dir + QStringLiteral("/huge (2).bin")));
        r = exportPath(QStringLiteral("huge.bin"));
        QCOMPARE(r.structured.value(QStringLiteral("status")).toString(), QStringLiteral("approval_required"));
        QVERIFY(approvals->reject(r.structured.value(QStringLiteral("export_id")).toString(), QStringLiteral("test"), error));
    }

    // exportNeedsApproval: every export waits, even a small one; approved, it is copied.
    void everyExportWaitsWhenTheSettingSaysSo()
    {
        FileExportOptions options = exports->options();
        options.needsApproval = true;
        options.dir = out.path() + QStringLiteral("/asked");
        FileExport asking(*f.pool, options, approvals.get());
        QVERIFY(writeFile(ws("small.txt"), "tiny\n"));
        FileExport::Outcome o = exportWith(asking, QStringLiteral("small.txt"));
        QVERIFY2(o.waiting && o.request.why.contains(QStringLiteral("exportNeedsApproval")), qPrintable(o.error + o.request.why));
        QCOMPARE(o.request.fileName(), QStringLiteral("small.txt"));
        QVERIFY(!QFileInfo::exists(options.dir));
        QString error;
        QVERIFY2(approvals->approve(o.request.id, QStringLiteral("tray"), error), qPrintable(error));
        o = exportWith(asking, QStringLiteral("small.txt"));
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(readFile(options.dir + QStringLiteral("/small.txt")), QByteArray("tiny\n"));
        // A request whose file grew well past what the user saw is asked again.
        QVERIFY(writeFile(ws("small.txt"), bytes(3 * 1024 * 1024, 's')));
        o = exportWith(asking, QStringLiteral("small.txt"));
        QVERIFY(o.waiting);
        QVERIFY(approvals->approve(o.request.id, QStringLiteral("tray"), error));
        QVERIFY(writeFile(ws("small.txt"), bytes(5 * 1024 * 1024, 's')));
        o = exportWith(asking, QStringLiteral("small.txt"));
        QVERIFY2(o.waiting && o.request.size == 5 * 1024 * 1024, qPrintable(o.error));
        QVERIFY(approvals->reject(o.request.id, QStringLiteral("tray"), error));
        exportWith(asking, QStringLiteral("small.txt"));   // told once
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
        QCOMPARE(HostExportFile::removeStale(dir, 60, QDateTime::currentMSecsSinceEpoch()), 1);
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
        QCOMPARE(HostExportFile::removeStale(dir, 60, QDateTime::currentMSecsSinceEpoch()), 1);
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
