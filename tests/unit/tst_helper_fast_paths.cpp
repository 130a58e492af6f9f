// The helper answers `read` of small text files and `bash_read` of small output with shell builtins
// only (PROTOCOL.md). These rows run the real script under bash on this machine (no sandbox needed:
// it is plain bash and coreutils) and compare every answer with what the file holds, for the
// builtin path and for the program path it falls back to (NUL bytes, files over 256 KiB).
#include "sandbox/channel/HelperFrame.h"
#include "sandbox/channel/HelperFrameReader.h"
#include "TestSupport.h"
#include "sandbox/channel/SandboxChannel.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace chat2sbx;

namespace {

QByteArray sha256Hex(const QByteArray &b) { return QCryptographicHash::hash(b, QCryptographicHash::Sha256).toHex(); }

// What `read` must return: lines [offset, offset + limit) of the file, newlines kept, cut at maxBytes.
QByteArray selectLines(const QByteArray &content, int offset, int limit, int maxBytes)
{
    QList<QByteArray> lines;
    qsizetype start = 0;
    while (start < content.size()) {
        const qsizetype nl = content.indexOf('\n', start);
        const qsizetype end = nl < 0 ? content.size() : nl + 1;
        lines << content.mid(start, end - start);
        start = end;
    }
    QByteArray out;
    for (int i = offset - 1; i >= 0 && i < lines.size() && i < offset - 1 + limit; ++i)
        out += lines.at(i);
    return out.left(maxBytes);
}

qsizetype lineCount(const QByteArray &content)
{
    return content.count('\n') + (!content.isEmpty() && !content.endsWith('\n') ? 1 : 0);
}

class Helper {
public:
    explicit Helper(const QString &root) : m_ws(root + QStringLiteral("/ws"))
    {
        QDir().mkpath(m_ws);
        QDir().mkpath(root + QStringLiteral("/home"));
        QFile script(root + QStringLiteral("/helper.sh"));
        script.open(QIODevice::WriteOnly);
        script.write(SandboxChannel::helperScript());
        script.close();
        QProcessEnvironment env;
        env.insert(QStringLiteral("HOME"), root + QStringLiteral("/home"));
        env.insert(QStringLiteral("PATH"), qEnvironmentVariable("PATH"));
        m_proc.setProcessEnvironment(env);
        m_proc.start(QStringLiteral("bash"), {script.fileName(), m_ws, QStringLiteral("0")});
    }
    ~Helper()
    {
        m_proc.closeWriteChannel();
        if (!m_proc.waitForFinished(5000))
            m_proc.kill();
        m_proc.waitForFinished(2000);
    }
    QString workspace() const { return m_ws; }
    qint64 pid() const { return m_proc.processId(); }
    quint64 nextId() const { return m_id + 1; }
    void kill() { m_proc.kill(); m_proc.waitForFinished(2000); }

    quint64 send(const QByteArray &op, const QList<QByteArray> &args)
    {
        m_proc.write(encodeHelperRequest(++m_id, op, args));
        return m_id;
    }

    std::optional<HelperFrame> next()
    {
        while (m_frames.isEmpty()) {
            if (!m_proc.waitForReadyRead(10000) || !m_reader.feed(m_proc.readAllStandardOutput(), m_frames))
                return std::nullopt;
        }
        return parseHelperFrame(m_frames.takeFirst());
    }

    std::optional<HelperFrame> call(const QByteArray &op, const QList<QByteArray> &args)
    {
        const quint64 id = send(op, args);
        auto frame = next();
        if (!frame || frame->id != id)
            return std::nullopt;
        return frame;
    }

private:
    QString m_ws;
    QProcess m_proc;
    HelperFrameReader m_reader;
    QList<QByteArray> m_frames;
    quint64 m_id = 0;
};

} // namespace

class TestHelperFastPaths : public QObject {
    Q_OBJECT
private slots:
    void encodesRawWhenThereIsNoNulByte()
    {
        QCOMPARE(encodeHelperRequest(7, "read", {"a b", ""}), QByteArray("7 read 7 raw\n3\na b0\n"));
        QCOMPARE(encodeHelperRequest(8, "ping", {}), QByteArray("8 ping 0 raw\n"));
        const QByteArray withNul = encodeHelperRequest(9, "bash_start", {QByteArray("A=1\0", 4)});
        QCOMPARE(withNul, QByteArray("9 bash_start 9\n") + QByteArray("4\nA=1\0", 6).toBase64() + '\n');
    }

    void read_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("limit");
        QTest::addColumn<int>("maxBytes");
        QTest::addColumn<bool>("expectWhole");

        const QByteArray lines64 = [] {
            QByteArray b;
            for (int i = 0; i < 64; ++i)
                b += "line " + QByteArray::number(i) + ' ' + QByteArray(55, 'x') + '\n';
            return b;
        }();
        QTest::newRow("whole 4 KiB") << lines64 << 1 << 2000 << 262145 << true;
        QTest::newRow("middle lines") << lines64 << 3 << 2 << 262145 << false;
        QTest::newRow("cut by max bytes") << lines64 << 1 << 2000 << 100 << false;
        QTest::newRow("no newline at the end, whole") << QByteArray("a\nb") << 1 << 10 << 1000 << true;
        QTest::newRow("no newline at the end, tail") << QByteArray("a\nb\nc") << 2 << 5 << 1000 << false;
        QTest::newRow("no newline at the end, middle") << QByteArray("a\nb\nc") << 2 << 1 << 1000 << false;
        QTest::newRow("offset past the end") << QByteArray("a\nb\nc\n") << 4 << 1 << 1000 << false;
        QTest::newRow("limit zero") << QByteArray("a\nb\n") << 1 << 0 << 1000 << false;
        QTest::newRow("empty file") << QByteArray() << 1 << 10 << 1000 << true;
        QTest::newRow("empty lines and CRLF") << QByteArray("\n\r\n\n x \r\n") << 1 << 10 << 1000 << true;
        QTest::newRow("bytes above 0x7f, backslashes") << QByteArray("caf\xc3\xa9 \\n \xff\x80\n%s %d\n") << 1 << 10 << 1000 << true;
        QTest::newRow("NUL after 8 KiB: program path") << (QByteArray(9000, 'a') + QByteArray("\0x\nb\n", 5)) << 1 << 10 << 262145 << false;
        QTest::newRow("over 256 KiB: program path") << QByteArray(300000, 'y').append('\n').append("z\n") << 2 << 1 << 262145 << false;
    }

    void read()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, offset);
        QFETCH(int, limit);
        QFETCH(int, maxBytes);
        QFETCH(bool, expectWhole);
        QTemporaryDir dir;
        Helper helper(dir.path());
        QFile f(helper.workspace() + QStringLiteral("/f.txt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();

        const auto r = helper.call("read", {"f.txt", QByteArray::number(offset), QByteArray::number(limit),
                                            QByteArray::number(maxBytes)});
        QVERIFY(r);
        QVERIFY(r->ok);
        QCOMPARE(r->meta.value(QStringLiteral("size")).toLongLong(), content.size());
        QCOMPARE(r->meta.value(QStringLiteral("binary")), QStringLiteral("0"));
        QCOMPARE(r->meta.value(QStringLiteral("total_lines")).toLongLong(), lineCount(content));
        QCOMPARE(r->data, selectLines(content, offset, limit, maxBytes));
        const bool whole = r->meta.value(QStringLiteral("whole")) == QLatin1String("1");
        QCOMPARE(whole, expectWhole);
        if (whole)
            QCOMPARE(r->data, content);   // what the host hashes
        else
            QCOMPARE(r->meta.value(QStringLiteral("sha256")).toLatin1(), sha256Hex(content));
    }

    void bashRead_data()
    {
        QTest::addColumn<QByteArray>("command");
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("maxBytes");

        QTest::newRow("no output") << QByteArray("true") << QByteArray() << 0 << 1000;
        QTest::newRow("small") << QByteArray("printf 'a\\nb'") << QByteArray("a\nb") << 0 << 1000;
        QTest::newRow("from an offset") << QByteArray("printf 'hello world'") << QByteArray("hello world") << 6 << 1000;
        QTest::newRow("state only") << QByteArray("echo x") << QByteArray("x\n") << 0 << 0;
        QTest::newRow("cut by max") << QByteArray("printf 0123456789") << QByteArray("0123456789") << 2 << 3;
        QTest::newRow("NUL byte: program path") << QByteArray("printf 'a\\0b'") << QByteArray("a\0b", 3) << 0 << 1000;
        QTest::newRow("over 256 KiB: program path") << QByteArray("head -c 300000 /dev/zero | tr '\\0' q")
                                                    << QByteArray(300000, 'q') << 299990 << 1000;
    }

    void bashRead()
    {
        QFETCH(QByteArray, command);
        QFETCH(QByteArray, output);
        QFETCH(int, offset);
        QFETCH(int, maxBytes);
        QTemporaryDir dir;
        Helper helper(dir.path());
        const QByteArray sid = "bash_0123456789abcdef01234567";
        const auto started = helper.call("bash_start", {sid, "", "0", command, "0", ""});
        QVERIFY(started && started->ok);
        // The helper waits for the exit (up to 2 s here) instead of being asked again.
        const auto waited = helper.call("bash_read", {sid, "0", "0", "2000"});
        QVERIFY(waited && waited->ok);
        QCOMPARE(waited->meta.value(QStringLiteral("state")), QStringLiteral("exited:0"));
        const auto r = helper.call("bash_read", {sid, QByteArray::number(offset), QByteArray::number(maxBytes)});
        QVERIFY(r && r->ok);
        QCOMPARE(r->meta.value(QStringLiteral("size")).toLongLong(), output.size());
        QCOMPARE(r->data, output.mid(offset, maxBytes));
    }

    // `bash` of a quick command is one round trip: bash_start waits for the exit and answers with
    // what the first bash_read would (same rows as above, offset 0).
    void bashStartAnswersTheFirstSnapshot_data() { bashRead_data(); }
    void bashStartAnswersTheFirstSnapshot()
    {
        QFETCH(QByteArray, command);
        QFETCH(QByteArray, output);
        QFETCH(int, maxBytes);
        QTemporaryDir dir;
        Helper helper(dir.path());
        const QByteArray sid = "bash_0123456789abcdef01234567";
        const auto r = helper.call("bash_start", {sid, "", "0", command, "0", "", "2000", QByteArray::number(maxBytes)});
        QVERIFY(r && r->ok);
        QCOMPARE(r->meta.value(QStringLiteral("started")), QStringLiteral("1"));
        QCOMPARE(r->meta.value(QStringLiteral("state")), QStringLiteral("exited:0"));
        QCOMPARE(r->meta.value(QStringLiteral("size")).toLongLong(), output.size());
        QCOMPARE(r->data, output.left(maxBytes));
        // The same id again is refused as existing, and the session reads the same.
        const auto again = helper.call("bash_start", {sid, "", "0", "echo other", "0", "", "2000", "1000"});
        QVERIFY(again && again->ok);
        QCOMPARE(again->meta.value(QStringLiteral("existed")), QStringLiteral("1"));
        QVERIFY(!again->meta.contains(QStringLiteral("state")));
        const auto read = helper.call("bash_read", {sid, "0", QByteArray::number(maxBytes)});
        QVERIFY(read && read->ok);
        QCOMPARE(read->data, output.left(maxBytes));
    }

    // A session made by an earlier helper (a directory of files, before the flat layout) still reads.
    void anEarlierHelpersSessionDirectoryStillReads()
    {
        QTemporaryDir dir;
        Helper helper(dir.path());
        QVERIFY(helper.call("ping", {}));
        const QByteArray sid = "bash_bbbbbbbbbbbbbbbbbbbbbbbb";
        const QString d = dir.path() + QStringLiteral("/home/.chat2sbx/sessions/") + QString::fromLatin1(sid);
        QVERIFY(QDir().mkpath(d));
        const auto put = [&](const char *name, const QByteArray &content) {
            QFile f(d + QLatin1Char('/') + QLatin1String(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(content);
        };
        put("started", "1\n");
        put("watcher.pid", "1\n");
        put("output", "from before\n");
        put("exit_code", "5\n");
        const auto r = helper.call("bash_read", {sid, "0", "1000"});
        QVERIFY(r && r->ok);
        QCOMPARE(r->meta.value(QStringLiteral("state")), QStringLiteral("exited:5"));
        QCOMPARE(r->data, QByteArray("from before\n"));
        const auto status = helper.call("bash_status", {sid, "bash_cccccccccccccccccccccccc"});
        QVERIFY(status && status->ok);
        QCOMPARE(status->meta.value(QString::fromLatin1(sid)), QStringLiteral("exited:5"));
        QCOMPARE(status->meta.value(QStringLiteral("bash_cccccccccccccccccccccccc")), QStringLiteral("missing"));
        const auto again = helper.call("bash_start", {sid, "", "0", "true", "0", ""});
        QVERIFY(again && again->ok);
        QCOMPARE(again->meta.value(QStringLiteral("existed")), QStringLiteral("1"));
    }

    void aWaitEndsAtTheDeadlineWhileTheCommandRuns()
    {
        QTemporaryDir dir;
        Helper helper(dir.path());
        const QByteArray sid = "bash_aaaaaaaaaaaaaaaaaaaaaaaa";
        QVERIFY(helper.call("bash_start", {sid, "", "0", "sleep 30", "0", ""}));
        QElapsedTimer t;
        t.start();
        const auto r = helper.call("bash_read", {sid, "0", "0", "300"});
        QVERIFY(r && r->ok);
        QCOMPARE(r->meta.value(QStringLiteral("state")), QStringLiteral("running"));
        QVERIFY2(t.elapsed() >= 250, qPrintable(QString::number(t.elapsed())));
        const auto stopped = helper.call("bash_stop", {sid});
        QVERIFY(stopped && stopped->ok);
        QVERIFY(stopped->meta.value(QStringLiteral("state")).startsWith(QLatin1String("exited:")));
    }

    // The answer writer holds its pipe open itself, so it never sees EOF: it must notice that the
    // helper is gone (killed outright, no sweep by a next helper) and end.
    void theWriterEndsWithAKilledHelper()
    {
        QTemporaryDir dir;
        Helper helper(dir.path());
        QVERIFY(helper.call("ping", {}));
        const QStringList runs = QDir(dir.path() + QStringLiteral("/home/.chat2sbx/run")).entryList({QStringLiteral("h.*")}, QDir::Dirs);
        QCOMPARE(runs.size(), 1);
        QFile pidFile(dir.path() + QStringLiteral("/home/.chat2sbx/run/") + runs.first() + QStringLiteral("/writer.pid"));
        QVERIFY(pidFile.open(QIODevice::ReadOnly));
        const QByteArray writer = pidFile.readAll().trimmed();
        QVERIFY(!writer.isEmpty());
        const auto alive = [&] {
            QFile stat(QStringLiteral("/proc/") + QString::fromLatin1(writer) + QStringLiteral("/stat"));
            if (!stat.open(QIODevice::ReadOnly))
                return false;
            const QByteArray s = stat.readAll();
            return s.mid(s.lastIndexOf(')') + 2, 1) != "Z";
        };
        QVERIFY(alive());
        helper.kill();
        QTRY_VERIFY_WITH_TIMEOUT(!alive(), chat2sbx::test::scaled(9000));
    }

    // The host cancels a request it gave up on; on a loaded VM that cancel can be read before the
    // request's handler has even run (and recorded its process group). That handler must then end
    // without running, not block for good on a FIFO nobody writes.
    void aCancelReadBeforeItsHandlerRanEndsIt()
    {
        QTemporaryDir dir;
        Helper helper(dir.path());
        QVERIFY(helper.call("ping", {}));
        const QString fifo = helper.workspace() + QStringLiteral("/nobody-writes");
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const QString runRoot = dir.path() + QStringLiteral("/home/.chat2sbx/run/");
        const QStringList runs = QDir(runRoot).entryList({QStringLiteral("h.*")}, QDir::Dirs);
        QCOMPARE(runs.size(), 1);
        QFile writerFile(runRoot + runs.first() + QStringLiteral("/writer.pid"));
        QVERIFY(writerFile.open(QIODevice::ReadOnly));
        const QSet<QString> idle{QString::number(helper.pid()), QString::fromLatin1(writerFile.readAll().trimmed())};

        // The cancel comes first in the stream, so it is certainly handled before the read's handler runs.
        const quint64 readId = helper.nextId() + 1;
        helper.send("cancel", {QByteArray::number(readId)});
        QCOMPARE(helper.send("read", {QFile::encodeName(fifo), "1", "10", "4096"}), readId);
        const auto pong = helper.call("ping", {});   // the read never answers: the next line is the pong
        QVERIFY(pong && pong->ok);

        const QByteArray script = QFile::encodeName(dir.path() + QStringLiteral("/helper.sh"));
        auto others = [&] {   // processes running the script besides the helper and its writer
            QStringList out;
            for (const QString &pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                QFile cmdline(QStringLiteral("/proc/") + pid + QStringLiteral("/cmdline"));
                if (pid.at(0).isDigit() && !idle.contains(pid) && cmdline.open(QIODevice::ReadOnly)
                    && cmdline.readAll().contains(script))
                    out << pid;
            }
            return out;
        };
        const bool clean = chat2sbx::test::waitFor([&] { return others().isEmpty(); }, 5000);
        QVERIFY2(clean, qPrintable(QStringLiteral("left running: ") + others().join(' ')));
        QVERIFY(!QFile::exists(runRoot + runs.first() + QStringLiteral("/cancel.") + QString::number(readId)));
    }

    void manyAnswersAtOnceNeverInterleave()
    {
        QTemporaryDir dir;
        Helper helper(dir.path());
        QFile f(helper.workspace() + QStringLiteral("/big.txt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray big(200000, 'b');
        f.write(big);
        f.close();
        // Large answers (base64 over 64 KiB: the writer copies them with cat) and small ones, all in
        // flight at once: every line comes back whole, once.
        QSet<quint64> bigIds, smallIds;
        for (int i = 0; i < 40; ++i) {
            if (i % 2)
                smallIds.insert(helper.send("ping", {}));
            else
                bigIds.insert(helper.send("read", {"big.txt", "1", "10", "262145"}));
        }
        for (int i = 0; i < 40; ++i) {
            const auto r = helper.next();
            QVERIFY(r && r->ok);
            if (bigIds.remove(r->id))
                QCOMPARE(r->data, big);
            else
                QVERIFY(smallIds.remove(r->id));
        }
        QVERIFY(bigIds.isEmpty() && smallIds.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestHelperFastPaths)
#include "tst_helper_fast_paths.moc"
