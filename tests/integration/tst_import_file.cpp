// import_file against a local https server (a self-signed certificate made with openssl at test time,
// trusted through the test-only CA option, a test-only allow-list of localhost:<port>): an allowed
// download lands in the workspace with its size and sha256; refused schemes and hosts, a redirect off
// the allow-list, an oversize file (with and without Content-Length), an HTTP error and an existing
// destination are clear isErrors that write nothing.
#include "InSandboxFixture.h"

#include "tools/ImportFileTool.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QProcess>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

constexpr qint64 kCap = 64 * 1024;

// A minimal HTTPS/1.1 server: one request per connection, answers by path.
class TinyHttpsServer : public QObject {
public:
    QSslServer server;
    QByteArray file;
    int requests = 0;

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
                    *buffer += socket->readAll();
                    if (!buffer->contains("\r\n\r\n"))
                        return;
                    ++requests;
                    const QByteArray path = buffer->split(' ').value(1);
                    socket->write(answer(path));
                    socket->disconnectFromHost();
                });
                connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        return server.listen(QHostAddress::LocalHost, 0);
    }
    quint16 port() const { return server.serverPort(); }
    QString url(const QString &host, const char *path) const
    {
        return QStringLiteral("https://%1:%2%3").arg(host).arg(port()).arg(QLatin1String(path));
    }

    QByteArray answer(const QByteArray &path) const
    {
        auto ok = [](const QByteArray &body, bool withLength = true) {
            return QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n")
                   + (withLength ? "Content-Length: " + QByteArray::number(body.size()) + "\r\n" : QByteArray()) + "\r\n" + body;
        };
        auto redirect = [](const QByteArray &to) {
            return "HTTP/1.1 302 Found\r\nLocation: " + to + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        };
        const QByteArray base = "https://localhost:" + QByteArray::number(port());
        if (path == "/file.bin")
            return ok(file);
        if (path == "/hop")
            return redirect(base + "/file.bin");
        if (path == "/hop-off")
            return redirect("https://127.0.0.1:" + QByteArray::number(port()) + "/file.bin");
        if (path == "/big")
            return ok(QByteArray(kCap + 1, 'b'));
        if (path == "/big-unannounced")
            return ok(QByteArray(kCap + 1000, 'u'), false);
        return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    }
};

} // namespace

class TestImportFile : public QObject {
    Q_OBJECT

private:
    InSandboxFixture f;
    QTemporaryDir tls;
    TinyHttpsServer https;

    QString ws(const QString &rel) const { return f.workspaceDir + QLatin1Char('/') + rel; }
    ToolResult import(const QString &url, const QString &destination = {}, const QString &name = QStringLiteral("data.bin"))
    {
        QJsonObject args{{"file", QJsonObject{{"download_url", url}, {"file_id", "file-abc123"}, {"file_name", name},
                                               {"mime_type", "application/octet-stream"}}}};
        if (!destination.isEmpty())
            args.insert(QStringLiteral("destination"), destination);
        return f.call(QStringLiteral("import_file"), args, 60000);
    }
    void expectError(const ToolResult &r, const QString &fragment)
    {
        QVERIFY2(r.isError, qPrintable(InSandboxFixture::describe(r)));
        QVERIFY2(r.message.contains(fragment, Qt::CaseInsensitive), qPrintable(r.message));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(tls.isValid());
        const QString cert = tls.filePath(QStringLiteral("cert.pem")), key = tls.filePath(QStringLiteral("key.pem"));
        QProcess openssl;
        openssl.start(QStringLiteral("openssl"),
                      {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
                       QStringLiteral("-nodes"), QStringLiteral("-keyout"), key, QStringLiteral("-out"), cert,
                       QStringLiteral("-days"), QStringLiteral("1"), QStringLiteral("-subj"), QStringLiteral("/CN=localhost"),
                       QStringLiteral("-addext"), QStringLiteral("subjectAltName=DNS:localhost")});
        QVERIFY(openssl.waitForFinished(60000));
        QVERIFY2(openssl.exitCode() == 0, openssl.readAllStandardError().constData());
        for (int i = 0; i < 5000; ++i)
            https.file += static_cast<char>(i * 7);
        QVERIFY(https.start(cert, key));
        QString error;
        QVERIFY2(f.setUp(error), qPrintable(error));
        ImportFileOptions options;
        options.allowedHosts = {QStringLiteral("localhost:%1").arg(https.port())};
        options.maxBytes = kCap;
        options.extraCaFile = cert;
        registerImportFileTool(f.tools, f.resolver, *f.pool, options);
    }

    void declaresFileParams()
    {
        const ToolRegistry::Entry *e = f.tools.find(QStringLiteral("import_file"));
        QVERIFY(e);
        QCOMPARE(e->definition.meta.value(QStringLiteral("openai/fileParams")).toArray(), QJsonArray{QStringLiteral("file")});
    }

    void allowedDownloadLandsInTheWorkspace()
    {
        ToolResult r = import(https.url(QStringLiteral("localhost"), "/file.bin"));
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("path")).toString(), QStringLiteral("~/workspace/data.bin"));
        QCOMPARE(r.structured.value(QStringLiteral("size")).toInt(), 5000);
        QCOMPARE(r.structured.value(QStringLiteral("sha256")).toString(),
                 QString::fromLatin1(QCryptographicHash::hash(https.file, QCryptographicHash::Sha256).toHex()));
        QCOMPARE(readFile(ws("data.bin")), https.file);
        // Through an allowed redirect, into a directory, with a file name that tries to climb out.
        r = import(https.url(QStringLiteral("localhost"), "/hop"), QStringLiteral("in/"), QStringLiteral("../../evil.bin"));
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(readFile(ws("in/evil.bin")), https.file);
        // Never overwrites.
        expectError(import(https.url(QStringLiteral("localhost"), "/file.bin")), QStringLiteral("already exists"));
    }

    void refusals()
    {
        const int before = https.requests;
        expectError(import(QStringLiteral("http://localhost:%1/file.bin").arg(https.port()), QStringLiteral("a.bin")),
                    QStringLiteral("only https"));
        expectError(import(QStringLiteral("https://example.com/file.bin"), QStringLiteral("b.bin")), QStringLiteral("not one of the allowed"));
        expectError(import(QStringLiteral("https://localhost:1/file.bin"), QStringLiteral("c.bin")), QStringLiteral("not one of the allowed"));
        expectError(import(QStringLiteral("not a url"), QStringLiteral("d.bin")), QStringLiteral("refused"));
        QCOMPARE(https.requests, before);   // nothing was even requested
        expectError(import(https.url(QStringLiteral("localhost"), "/hop-off"), QStringLiteral("e.bin")),
                    QStringLiteral("redirected to 127.0.0.1"));
        expectError(import(https.url(QStringLiteral("localhost"), "/big"), QStringLiteral("f.bin")), QStringLiteral("larger than"));
        expectError(import(https.url(QStringLiteral("localhost"), "/big-unannounced"), QStringLiteral("g.bin")),
                    QStringLiteral("larger than"));
        expectError(import(https.url(QStringLiteral("localhost"), "/nothing"), QStringLiteral("h.bin")), QStringLiteral("404"));
        for (const char *name : {"a.bin", "b.bin", "c.bin", "d.bin", "e.bin", "f.bin", "g.bin", "h.bin"})
            QVERIFY2(!QFileInfo::exists(ws(QLatin1String(name))), name);
        expectError(f.call(QStringLiteral("import_file"), {{"file", "https://x"}}), QStringLiteral(R"("file": must be an object)"));
        expectError(f.call(QStringLiteral("import_file"), {{"file", QJsonObject{{"file_id", "x"}}}}), QStringLiteral("file.download_url"));
    }

    void cleanupTestCase()
    {
        if (f.pool)
            f.pool->detach(f.id());
    }
};

QTEST_GUILESS_MAIN(TestImportFile)
#include "tst_import_file.moc"
