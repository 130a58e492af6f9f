// import_file against local https servers that answer as the hosts ChatGPT's attachments really come
// from. The test runs itself again inside bwrap with a network namespace of its own (only loopback,
// so the server can listen on 443 as the default patterns mean) and an /etc/hosts that maps
// oaisdmntprwestus.blob.core.windows.net and its neighbours to 127.0.0.1: the product resolves and
// verifies those names as it would on a user's machine, with a test CA trusted through the
// test-only CA option and the default host patterns. Shown: ChatGPT's four-field argument imports
// (with and without a name); a host outside the patterns, a *.blob.core.windows.net sibling, a
// redirect to another host and an expired signature are refused with the right message and write
// nothing; a 50 MB file streams into the VM with flat host memory and no staged file is left.
#include "InSandboxFixture.h"

#include "config/FileHostPatterns.h"
#include "tools/ImportFileTool.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QFileInfo>
#include <QProcess>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

constexpr qint64 kCap = 50LL * 1024 * 1024;   // above the 50 MB file (47.7 MiB)
constexpr qint64 kBigFile = 50LL * 1000 * 1000;
const char *const kAzureHost = "oaisdmntprwestus.blob.core.windows.net";
const char *const kNames[] = {"oaisdmntprwestus.blob.core.windows.net", "oaisdmntprnznorth.blob.core.windows.net",
                              "evil.blob.core.windows.net", "files.example.net", "files.oaiusercontent.com", "localhost"};

// The byte at offset i of the streamed test file: not compressible, not periodic within a part.
char bigByte(qint64 i)
{
    return static_cast<char>((i * 2654435761LL) >> 13);
}

QByteArray azureError(int status, const char *reason, const char *code, const char *detail)
{
    const QByteArray body = QByteArray("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>") + code
                            + "</Code><Message>Server failed to authenticate the request.</Message><AuthenticationErrorDetail>"
                            + detail + "</AuthenticationErrorDetail></Error>";
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\nContent-Type: application/xml\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

// A minimal HTTPS/1.1 server on 127.0.0.1:443: one request per connection, answers by path; the
// 50 MB file is made as it is sent, never held.
class TinyHttpsServer : public QObject {
public:
    QSslServer server;
    QByteArray file;
    int requests = 0;
    QList<QByteArray> hostsAsked;

    bool start(const QString &certPath, const QString &keyPath)
    {
        QFile c(certPath), k(keyPath);
        if (!c.open(QIODevice::ReadOnly) || !k.open(QIODevice::ReadOnly))
            return false;
        QSslConfiguration conf = QSslConfiguration::defaultConfiguration();
        conf.setLocalCertificate(QSslCertificate(c.readAll()));
        conf.setPrivateKey(QSslKey(k.readAll(), QSsl::Rsa));
        server.setSslConfiguration(conf);
        connect(&server, &QTcpServer::pendingConnectionAvailable, this, [this] {
            while (auto *socket = qobject_cast<QSslSocket *>(server.nextPendingConnection())) {
                auto buffer = std::make_shared<QByteArray>();
                connect(socket, &QSslSocket::readyRead, socket, [this, socket, buffer] {
                    if (buffer->contains("\r\n\r\n"))
                        return;
                    *buffer += socket->readAll();
                    if (!buffer->contains("\r\n\r\n"))
                        return;
                    ++requests;
                    const QByteArray target = buffer->split(' ').value(1);
                    for (const QByteArray &line : buffer->split('\n'))
                        if (line.toLower().startsWith("host:"))
                            hostsAsked << line.mid(5).trimmed();
                    if (target.contains("/big50/"))
                        return stream(socket, kBigFile, true);
                    if (target.startsWith("/big-unannounced"))
                        return stream(socket, kCap + 1000, false);
                    socket->write(answer(target));
                    socket->disconnectFromHost();
                });
                connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        return server.listen(QHostAddress::LocalHost, 443);
    }

    void stream(QSslSocket *socket, qint64 size, bool withLength)
    {
        socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n"
                      + (withLength ? "Content-Length: " + QByteArray::number(size) + "\r\n" : QByteArray()) + "\r\n");
        auto offset = std::make_shared<qint64>(0);
        auto more = [socket, offset, size] {
            while (*offset < size && socket->bytesToWrite() < 512 * 1024) {
                QByteArray chunk(static_cast<int>(qMin<qint64>(64 * 1024, size - *offset)), Qt::Uninitialized);
                for (int i = 0; i < chunk.size(); ++i)
                    chunk[i] = bigByte(*offset + i);
                *offset += chunk.size();
                socket->write(chunk);
            }
            if (*offset == size && socket->bytesToWrite() == 0)
                socket->disconnectFromHost();
        };
        connect(socket, &QSslSocket::encryptedBytesWritten, socket, more);
        more();
    }

    QByteArray answer(const QByteArray &target) const
    {
        auto ok = [](const QByteArray &body) {
            return "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nConnection: close\r\nContent-Length: "
                   + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        };
        auto redirect = [](const QByteArray &to) {
            return "HTTP/1.1 302 Found\r\nLocation: " + to + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        };
        const QByteArray path = target.split('?').value(0);
        if (target.contains("sig=expired"))
            return azureError(403, "Server failed to authenticate the request", "AuthenticationFailed",
                              "Signed expiry time [Sat, 05 Dec 2026 10:05:00 GMT] must be after signed start time");
        if (path.startsWith("/files/") && path.endsWith("/raw") && !path.contains("missing"))
            return ok(file);
        if (path == "/hop-azure")
            return redirect(QByteArray("https://") + kAzureHost + "/files/x/raw?sig=ok");
        if (path == "/hop-off")
            return redirect("https://evil.blob.core.windows.net/files/x/raw?sig=ok");
        if (path == "/loop")
            return redirect(QByteArray("https://") + kAzureHost + "/loop");
        if (path == "/big")
            return "HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(kCap + 1) + "\r\nConnection: close\r\n\r\n";
        return azureError(404, "The specified blob does not exist.", "BlobNotFound", "");
    }
};

qint64 residentKiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

bool run(const QString &program, const QStringList &args, QString &error)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        error = program + QLatin1Char(' ') + args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromLocal8Bit(p.readAllStandardError());
        return false;
    }
    return true;
}

} // namespace

class TestImportFile : public QObject {
    Q_OBJECT

private:
    InSandboxFixture f;
    QTemporaryDir tls;
    TinyHttpsServer https;

    QString ws(const QString &rel) const { return f.workspaceDir + QLatin1Char('/') + rel; }
    static QString azureUrl(const char *host, const char *tail)
    {
        return QStringLiteral("https://%1/files/00000000-6a3c-6230-9c2a-4dd1e2d3f001/%2").arg(QLatin1String(host), QLatin1String(tail));
    }
    ToolResult import(const QString &url, const QString &destination = {}, const QString &name = QStringLiteral("report.pdf"),
                      int timeoutMs = 60000)
    {
        QJsonObject file{{"download_url", url}, {"file_id", "sediment://file_00000000a1b2c3d4e5f60718293a4b5c"},
                         {"mime_type", "application/pdf"}};
        if (!name.isEmpty())
            file.insert(QStringLiteral("file_name"), name);
        QJsonObject args{{"file", file}};
        if (!destination.isEmpty())
            args.insert(QStringLiteral("destination"), destination);
        return f.call(QStringLiteral("import_file"), args, timeoutMs);
    }
    // A refused or failed import says so, and that nothing was written once a download had started.
    void expectError(const ToolResult &r, const QString &fragment, bool downloadStarted = true)
    {
        QVERIFY2(r.isError, qPrintable(InSandboxFixture::describe(r)));
        QVERIFY2(r.message.contains(fragment, Qt::CaseInsensitive), qPrintable(r.message));
        if (downloadStarted)
            QVERIFY2(r.message.contains(QStringLiteral("nothing was written")) || r.message.startsWith(QStringLiteral("refused")),
                     qPrintable(r.message));
    }
    // Hidden staged parts left in the workspace (a failed or finished upload leaves none).
    QStringList stagedParts() const
    {
        QStringList found;
        QDirIterator it(f.workspaceDir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString p = it.next();
            if (p.contains(QLatin1String(".chat2sbx-part.")))
                found << p;
        }
        return found;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(tls.isValid());
        const QString caKey = tls.filePath(QStringLiteral("ca.key")), ca = tls.filePath(QStringLiteral("ca.pem"));
        const QString key = tls.filePath(QStringLiteral("server.key")), csr = tls.filePath(QStringLiteral("server.csr"));
        const QString cert = tls.filePath(QStringLiteral("server.pem")), ext = tls.filePath(QStringLiteral("san.ext"));
        QStringList san;
        for (const char *name : kNames)
            san << QStringLiteral("DNS:") + QLatin1String(name);
        QFile extFile(ext);
        QVERIFY(extFile.open(QIODevice::WriteOnly));
        extFile.write("subjectAltName=" + san.join(QLatin1Char(',')).toLatin1() + "\n");
        extFile.close();
        QString error;
        QVERIFY2(run(QStringLiteral("openssl"), {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey, "-out", ca,
                                                 "-days", "1", "-subj", "/CN=chat2sbx test CA"}, error), qPrintable(error));
        QVERIFY2(run(QStringLiteral("openssl"), {"req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj",
                                                 QStringLiteral("/CN=") + QLatin1String(kAzureHost)}, error), qPrintable(error));
        QVERIFY2(run(QStringLiteral("openssl"), {"x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial",
                                                 "-out", cert, "-days", "1", "-extfile", ext}, error), qPrintable(error));
        for (int i = 0; i < 5000; ++i)
            https.file += static_cast<char>(i * 7);
        QVERIFY2(https.start(cert, key), qPrintable(https.server.errorString()));
        QVERIFY2(f.setUp(error), qPrintable(error));
        ImportFileOptions options;
        options.allowedHosts = FileHostPatterns::defaults() << QStringLiteral("localhost");
        options.maxBytes = kCap;
        options.extraCaFile = ca;
        registerImportFileTool(f.tools, f.resolver, *f.pool, options);
    }

    void theDefaultsHoldBothChatGptShapesAndNothingBroader()
    {
        const QStringList d = FileHostPatterns::defaults();
        QCOMPARE(d, QStringList({"*.oaiusercontent.com", "oaisdmntpr*.blob.core.windows.net"}));
    }

    void declaresFileParams()
    {
        const ToolRegistry::Entry *e = f.tools.find(QStringLiteral("import_file"));
        QVERIFY(e);
        QCOMPARE(e->definition.meta.value(QStringLiteral("openai/fileParams")).toArray(), QJsonArray{QStringLiteral("file")});
    }

    void chatGptAttachmentImports()
    {
        // The shape ChatGPT sends: a signed Azure blob URL, a sediment:// file id, a MIME type and a name.
        ToolResult r = import(azureUrl(kAzureHost, "raw?se=2026-12-05T10%3A05%3A00Z&sp=r&sv=2026-02-06&sr=b&sig=ok%2Bsig%3D"));
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("path")).toString(), QStringLiteral("~/workspace/report.pdf"));
        QCOMPARE(r.structured.value(QStringLiteral("file_name")).toString(), QStringLiteral("report.pdf"));
        QCOMPARE(r.structured.value(QStringLiteral("mime_type")).toString(), QStringLiteral("application/pdf"));
        QCOMPARE(r.structured.value(QStringLiteral("size")).toInt(), 5000);
        QCOMPARE(r.structured.value(QStringLiteral("sha256")).toString(),
                 QString::fromLatin1(QCryptographicHash::hash(https.file, QCryptographicHash::Sha256).toHex()));
        QCOMPARE(readFile(ws("report.pdf")), https.file);
        QVERIFY(https.hostsAsked.contains(kAzureHost));
        // Another region, no file name: the file id's last part names it.
        r = import(azureUrl("oaisdmntprnznorth.blob.core.windows.net", "raw?sig=ok"), {}, {});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("path")).toString(),
                 QStringLiteral("~/workspace/file_00000000a1b2c3d4e5f60718293a4b5c"));
        // Through a redirect that stays on the allowed hosts, into a directory, a name that climbs out.
        r = import(QStringLiteral("https://files.oaiusercontent.com/hop-azure"), QStringLiteral("in/"), QStringLiteral("../../evil.pdf"));
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(readFile(ws("in/evil.pdf")), https.file);
        // Never overwrites, and says so before the whole file came.
        const ToolResult again = import(azureUrl(kAzureHost, "raw?sig=ok"));
        expectError(again, QStringLiteral("already exists"));
        QCOMPARE(readFile(ws("report.pdf")), https.file);
        QVERIFY2(stagedParts().isEmpty(), qPrintable(stagedParts().join(QLatin1Char(' '))));
    }

    void refusals()
    {
        const int before = https.requests;
        expectError(import(azureUrl("files.example.net", "raw?sig=ok"), QStringLiteral("a.pdf")), QStringLiteral("not one of the allowed"));
        expectError(import(azureUrl("evil.blob.core.windows.net", "raw?sig=ok"), QStringLiteral("b.pdf")),
                    QStringLiteral("not one of the allowed"));
        expectError(import(azureUrl("x.oaisdmntprwestus.blob.core.windows.net", "raw?sig=ok"), QStringLiteral("c.pdf")),
                    QStringLiteral("not one of the allowed"));
        expectError(import(QStringLiteral("http://%1/files/x/raw").arg(QLatin1String(kAzureHost)), QStringLiteral("d.pdf")),
                    QStringLiteral("only https"));
        expectError(import(QStringLiteral("https://localhost:1/file.bin"), QStringLiteral("e.pdf")), QStringLiteral("not one of the allowed"));
        expectError(import(QStringLiteral("not a url"), QStringLiteral("f.pdf")), QStringLiteral("refused"));
        QCOMPARE(https.requests, before);   // nothing was even requested
        expectError(import(QStringLiteral("https://%1/hop-off").arg(QLatin1String(kAzureHost)), QStringLiteral("g.pdf")),
                    QStringLiteral("redirected to evil.blob.core.windows.net"));
        const ToolResult looped = import(QStringLiteral("https://%1/loop").arg(QLatin1String(kAzureHost)), QStringLiteral("loop.pdf"));
        expectError(looped, QStringLiteral("too many redirects"));
        QVERIFY2(!looped.message.contains(QStringLiteral("HTTP 1")), qPrintable(looped.message));
        const ToolResult expired = import(azureUrl(kAzureHost, "raw?se=2026-12-05T10%3A05%3A00Z&sp=r&sig=expired"), QStringLiteral("h.pdf"));
        expectError(expired, QStringLiteral("HTTP 403, AuthenticationFailed"));
        QVERIFY2(expired.message.contains(QStringLiteral("Ask the user to attach the file again")), qPrintable(expired.message));
        QVERIFY2(!expired.message.contains(QStringLiteral("sig=")), qPrintable(expired.message));
        expectError(import(azureUrl(kAzureHost, "missing/raw?sig=ok"), QStringLiteral("i.pdf")), QStringLiteral("HTTP 404, BlobNotFound"));
        expectError(import(QStringLiteral("https://localhost/big"), QStringLiteral("j.pdf")), QStringLiteral("larger than"));
        expectError(import(QStringLiteral("https://localhost/big-unannounced"), QStringLiteral("k.pdf"), {}, 280000),
                    QStringLiteral("larger than"));
        for (const char *name : {"a.pdf", "b.pdf", "c.pdf", "d.pdf", "e.pdf", "f.pdf", "g.pdf", "h.pdf", "i.pdf", "j.pdf", "k.pdf"})
            QVERIFY2(!QFileInfo::exists(ws(QLatin1String(name))), name);
        QVERIFY2(stagedParts().isEmpty(), qPrintable(stagedParts().join(QLatin1Char(' '))));
        expectError(f.call(QStringLiteral("import_file"), {{"file", "https://x"}}), QStringLiteral(R"("file": must be an object)"), false);
        expectError(f.call(QStringLiteral("import_file"), {{"file", QJsonObject{{"file_id", "x"}}}}), QStringLiteral("file.download_url"),
                    false);
    }

    void fiftyMegabytesStreamWithFlatHostMemory()
    {
        const qint64 before = residentKiB();
        QVERIFY(before > 0);
        qint64 peak = before;
        QTimer sampler;
        connect(&sampler, &QTimer::timeout, this, [&peak] { peak = qMax(peak, residentKiB()); });
        sampler.start(20);
        QElapsedTimer took;
        took.start();
        const ToolResult r = import(azureUrl(kAzureHost, "big50/raw?sig=ok"), QStringLiteral("big.bin"), QStringLiteral("big.bin"), 280000);
        sampler.stop();
        peak = qMax(peak, residentKiB());
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(static_cast<qint64>(r.structured.value(QStringLiteral("size")).toDouble()), kBigFile);
        QFile landed(ws("big.bin"));
        QVERIFY(landed.open(QIODevice::ReadOnly));
        QCOMPARE(landed.size(), kBigFile);
        QCryptographicHash hash(QCryptographicHash::Sha256);
        QVERIFY(hash.addData(&landed));
        QCOMPARE(r.structured.value(QStringLiteral("sha256")).toString(), QString::fromLatin1(hash.result().toHex()));
        landed.seek(kBigFile - 1);
        QCOMPARE(landed.read(1).at(0), bigByte(kBigFile - 1));
        const qint64 grewKiB = peak - before;
        qInfo("50 MB import: %lld ms, resident memory %lld KiB before, %lld KiB at the peak (+%lld KiB)",
              static_cast<long long>(took.elapsed()), static_cast<long long>(before), static_cast<long long>(peak),
              static_cast<long long>(grewKiB));
        // A whole-file buffer alone would be 48,828 KiB (and its base64 frame 65,000 more).
        QVERIFY2(grewKiB < 24 * 1024, qPrintable(QStringLiteral("the host grew by %1 KiB").arg(grewKiB)));
        QVERIFY2(stagedParts().isEmpty(), qPrintable(stagedParts().join(QLatin1Char(' '))));
    }

    void cleanupTestCase()
    {
        if (f.pool)
            f.pool->detach(f.id());
    }
};

// Runs the test again inside bwrap: a network namespace of its own (port 443 is free and nothing
// leaves the machine) and an /etc/hosts that maps the test's names to 127.0.0.1. ASan's quarantine
// is kept small so freed parts are reused, as they are in a release build.
int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("CHAT2SBX_IMPORT_TEST_NAMESPACE")) {
        QByteArray hosts = "127.0.0.1 localhost\n::1 localhost\n127.0.0.1";
        for (const char *name : kNames)
            hosts += QByteArray(" ") + name;
        hosts += '\n';
        char path[] = "/tmp/chat2sbx-import-hosts.XXXXXX";
        const int fd = mkstemp(path);
        if (fd < 0 || write(fd, hosts.constData(), static_cast<size_t>(hosts.size())) != hosts.size()) {
            perror("import test: /etc/hosts for the namespace");
            return 1;
        }
        close(fd);
        qputenv("CHAT2SBX_IMPORT_TEST_NAMESPACE", path);
        qputenv("ASAN_OPTIONS", qgetenv("ASAN_OPTIONS") + ":quarantine_size_mb=4");
        std::vector<char *> args = {const_cast<char *>("bwrap"), const_cast<char *>("--dev-bind"), const_cast<char *>("/"),
                                    const_cast<char *>("/"), const_cast<char *>("--unshare-net"), const_cast<char *>("--ro-bind"),
                                    path, const_cast<char *>("/etc/hosts"), const_cast<char *>("--")};
        for (int i = 0; i < argc; ++i)
            args.push_back(argv[i]);
        args.push_back(nullptr);
        execvp("bwrap", args.data());
        perror("import test: bwrap (installers/deps.sh --test installs bubblewrap)");
        return 1;
    }
    // The hosts file is read at the first lookup; the outer process removed nothing yet (it is gone).
    const QByteArray hostsFile = qgetenv("CHAT2SBX_IMPORT_TEST_NAMESPACE");
    QCoreApplication app(argc, argv);
    TestImportFile test;
    const int rc = QTest::qExec(&test, argc, argv);
    unlink(hostsFile.constData());
    return rc;
}

#include "tst_import_file.moc"
