// The real `chat2sbx serve` under hostile HTTP clients: a huge
// Content-Length is refused before the body, a chunked body is cut off at the limit, an
// idle-connection flood neither exhausts descriptors nor locks out a normal client, and an
// absolute-form target for another host is refused, and clients that half-close their socket
// after the request get their answers (item 17). After each, the server still answers.
#include "TestSupport.h"

#include "runtime/FdLimit.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <QtTest>

#include <memory>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

// TCP connections the server still holds on `port`: its ends (local port `port`, /proc/net/tcp)
// that are ESTABLISHED or CLOSE_WAIT (the client closed, the server has not yet).
int serverConnections(quint16 port)
{
    int n = 0;
    for (const char *table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        QFile f(QString::fromLatin1(table));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &line : f.readAll().split('\n')) {
            const QList<QByteArray> fields = line.simplified().split(' ');
            if (fields.size() < 4 || !fields.at(1).contains(':'))
                continue;
            bool ok = false;
            const uint local = fields.at(1).mid(fields.at(1).lastIndexOf(':') + 1).toUInt(&ok, 16);
            const QByteArray state = fields.at(3);
            n += ok && local == port && (state == "01" || state == "08") ? 1 : 0;
        }
    }
    return n;
}

const QByteArray kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"limits","version":"1"}}})";

QByteArray post(quint16 port, const QByteArray &body, const QByteArray &target = "/mcp")
{
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port)
           + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

// Reads until the peer closes or a complete response head + Content-Length body arrived.
QByteArray readResponse(QTcpSocket &socket, int timeoutMs)
{
    QByteArray in;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < scaled(timeoutMs)) {
        const qsizetype end = in.indexOf("\r\n\r\n");
        if (end >= 0) {
            const qsizetype cl = in.toLower().indexOf("content-length:");
            if (cl >= 0 && cl < end) {
                const qsizetype eol = in.indexOf("\r\n", cl);
                const qsizetype length = in.mid(cl + 15, eol - cl - 15).trimmed().toLongLong();
                if (in.size() >= end + 4 + length)
                    return in;
            }
        }
        if (socket.state() != QAbstractSocket::ConnectedState && socket.bytesAvailable() == 0)
            break;
        if (socket.bytesAvailable() || socket.waitForReadyRead(50))
            in += socket.readAll();
    }
    return in;
}

int statusOf(const QByteArray &response)
{
    return response.startsWith("HTTP/1.1 ") ? response.mid(9, 3).toInt() : 0;
}

bool serverAnswers(quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    if (!socket.waitForConnected(scaled(5000)))
        return false;
    socket.write(post(port, kInitialize));
    return statusOf(readResponse(socket, 10000)) == 200;
}

} // namespace

class TestHttpLimits : public QObject {
    Q_OBJECT
    std::unique_ptr<TestEnvironment> m_env;
    std::unique_ptr<ServerProcess> m_server;

private slots:
    void initTestCase()
    {
        raiseOpenFileLimit();   // the flood below opens 1,100 sockets from this process
        m_env = std::make_unique<TestEnvironment>();
        m_server = std::make_unique<ServerProcess>(*m_env);
        QVERIFY(m_server->start());
    }

    void cleanupTestCase()
    {
        if (m_server)
            QCOMPARE(m_server->terminate(), 0);
    }

    void hugeContentLengthIsRefusedBeforeTheBody()
    {
        QTcpSocket socket;
        socket.connectToHost(QStringLiteral("127.0.0.1"), m_env->port());
        QVERIFY(socket.waitForConnected(scaled(5000)));
        socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Content-Length: 1073741824\r\n\r\n");
        socket.write(QByteArray(64 * 1024, '{'));
        const QByteArray response = readResponse(socket, 10000);
        QCOMPARE(statusOf(response), 413);
        QVERIFY(response.contains("Payload Too Large"));
        QVERIFY(response.contains("\"jsonrpc\":\"2.0\""));
        QVERIFY(serverAnswers(m_env->port()));
    }

    void chunkedBodyIsCutOffAtTheLimit()
    {
        QTcpSocket socket;
        socket.connectToHost(QStringLiteral("127.0.0.1"), m_env->port());
        QVERIFY(socket.waitForConnected(scaled(5000)));
        socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n");
        const QByteArray chunk = "10000\r\n" + QByteArray(0x10000, ' ') + "\r\n";
        QByteArray response;
        for (int i = 0; i < 256 && response.isEmpty(); ++i) {   // up to 16 MiB
            if (socket.state() == QAbstractSocket::ConnectedState)
                socket.write(chunk);
            socket.waitForBytesWritten(1000);
            if (socket.waitForReadyRead(i < 60 ? 1 : 200))
                response = readResponse(socket, 5000);
        }
        QCOMPARE(statusOf(response), 413);
        QVERIFY(serverAnswers(m_env->port()));
    }

    void absoluteFormForAnotherHostIsRefused()
    {
        QTcpSocket socket;
        socket.connectToHost(QStringLiteral("127.0.0.1"), m_env->port());
        QVERIFY(socket.waitForConnected(scaled(5000)));
        socket.write(post(m_env->port(), kInitialize, "http://evil.com/mcp"));
        const QByteArray response = readResponse(socket, 10000);
        QCOMPARE(statusOf(response), 400);
        QVERIFY(response.contains("another host"));
        // The same authority as the Host header is an ordinary request.
        QTcpSocket same;
        same.connectToHost(QStringLiteral("127.0.0.1"), m_env->port());
        QVERIFY(same.waitForConnected(scaled(5000)));
        same.write(post(m_env->port(), kInitialize, "http://127.0.0.1:" + QByteArray::number(m_env->port()) + "/mcp"));
        QCOMPARE(statusOf(readResponse(same, 10000)), 200);
    }

    // A client name with a newline and an escape sequence is logged escaped.
    void clientInfoCannotForgeLogLines()
    {
        QTcpSocket socket;
        socket.connectToHost(QStringLiteral("127.0.0.1"), m_env->port());
        QVERIFY(socket.waitForConnected(scaled(5000)));
        const QJsonObject clientInfo{{"name", QStringLiteral("evil\nFORGED: approval granted") + QChar(0x1b) + QStringLiteral("[31m")},
                                     {"version", "1\r"}};
        const QJsonObject init{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                               {"params", QJsonObject{{"protocolVersion", "2025-06-18"}, {"capabilities", QJsonObject{}},
                                                      {"clientInfo", clientInfo}}}};
        socket.write(post(m_env->port(), QJsonDocument(init).toJson(QJsonDocument::Compact)));
        QCOMPARE(statusOf(readResponse(socket, 10000)), 200);
        QVERIFY(waitFor([&] { return m_server->output().contains("FORGED"); }, 5000));
        const QString out = m_server->output();
        QVERIFY2(out.contains("evil\\nFORGED: approval granted\\u{001b}[31m"), qPrintable(out.right(2000)));
        QVERIFY(!out.contains("\nFORGED"));
        QVERIFY(!out.contains(QChar(0x1b)));
    }

    // Request, then shutdown(SHUT_WR), then read. Each client gets its answer and
    // then the server's FIN.
    void halfClosedClientsGetTheirAnswers()
    {
        constexpr int kClients = 20;
        struct Client {
            int fd = -1;
            QByteArray in;
            bool ended = false;
        };
        std::vector<Client> clients(kClients);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(m_env->port());
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        for (Client &c : clients) {
            c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            QVERIFY(c.fd >= 0);
            QVERIFY(::connect(c.fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
            const QByteArray request = post(m_env->port(), kInitialize);
            QCOMPARE(::send(c.fd, request.constData(), size_t(request.size()), MSG_NOSIGNAL), ssize_t(request.size()));
            QCOMPARE(::shutdown(c.fd, SHUT_WR), 0);
        }
        QElapsedTimer t;
        t.start();
        int open = kClients;
        while (open > 0 && t.elapsed() < 15000) {
            std::vector<pollfd> fds;
            for (const Client &c : clients)
                fds.push_back(pollfd{c.ended ? -1 : c.fd, POLLIN, 0});
            ::poll(fds.data(), fds.size(), 100);
            for (size_t i = 0; i < fds.size(); ++i) {
                if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                char buffer[4096];
                const ssize_t n = ::recv(clients[i].fd, buffer, sizeof buffer, 0);
                if (n > 0) {
                    clients[i].in.append(buffer, n);
                } else {
                    clients[i].ended = true;
                    --open;
                }
            }
        }
        int answered = 0;
        for (Client &c : clients) {
            answered += statusOf(c.in) == 200 && c.in.contains("\"result\"") ? 1 : 0;
            ::close(c.fd);
        }
        qInfo("%d of %d half-closed clients got their answer; %d connections closed by the server after %lld ms",
              answered, kClients, kClients - open, t.elapsed());
        QCOMPARE(answered, kClients);
        QCOMPARE(open, 0);   // and each connection ended: nothing is held for a client that left
        QVERIFY(serverAnswers(m_env->port()));
    }

    // A burst of new clients past the connection cap, each sending its request at once: every one
    // gets an answer (200, or 503 with Retry-After), none a silent close. A connection opened a
    // moment ago is not idle.
    void aBurstPastTheCapIsAnsweredNotClosed()
    {
        constexpr int kClients = 300;
        std::vector<std::unique_ptr<QTcpSocket>> clients;
        std::vector<QByteArray> got(kClients);
        std::vector<bool> closed(kClients, false);
        const QByteArray request = post(m_env->port(), kInitialize);
        for (int i = 0; i < kClients; ++i) {
            auto socket = std::make_unique<QTcpSocket>();
            QTcpSocket *s = socket.get();
            connect(s, &QTcpSocket::connected, s, [s, request] { s->write(request); });
            connect(s, &QTcpSocket::readyRead, s, [s, &got, i] { got[i] += s->readAll(); });
            connect(s, &QTcpSocket::disconnected, s, [&closed, i] { closed[i] = true; });
            connect(s, &QTcpSocket::errorOccurred, s, [&closed, i] { closed[i] = true; });
            s->connectToHost(QStringLiteral("127.0.0.1"), m_env->port());
            clients.push_back(std::move(socket));
        }
        QVERIFY(waitFor([&] {
            for (int i = 0; i < kClients; ++i)
                if (got[i].size() < 12 && !closed[i])
                    return false;
            return true;
        }, 60000));
        int ok = 0, busy = 0, silent = 0;
        for (int i = 0; i < kClients; ++i) {
            const int status = statusOf(got[i]);
            ok += status == 200;
            busy += status == 503 && got[i].contains("Retry-After: 1");
            silent += status == 0;
        }
        qInfo("burst of %d clients: %d answered 200, %d answered 503 with Retry-After, %d closed without an answer",
              kClients, ok, busy, silent);
        QCOMPARE(silent, 0);
        QCOMPARE(ok + busy, kClients);
        clients.clear();
        // The 64 answered connections were busy a moment ago: a newcomer may get 503 + Retry-After for
        // that moment, then (their clients gone, or quiet long enough) an answer.
        QVERIFY(waitFor([&] { return serverAnswers(m_env->port()); }, 5000));
    }

    void idleConnectionFloodDoesNotLockClientsOut()
    {
        const int connectionsBefore = serverConnections(m_env->port());
        std::vector<std::unique_ptr<QTcpSocket>> idle;
        for (int i = 0; i < 1100; ++i) {
            auto socket = std::make_unique<QTcpSocket>();
            socket->connectToHost(QStringLiteral("127.0.0.1"), m_env->port());
            idle.push_back(std::move(socket));
        }
        // Let the server accept (and shed) all of them.
        QVERIFY(waitFor([&] {
            int settled = 0;
            for (const auto &s : idle)
                settled += s->state() == QAbstractSocket::ConnectingState || s->state() == QAbstractSocket::HostLookupState ? 0 : 1;
            return settled == int(idle.size());
        }, 30000));
        QTest::qWait(500);
        QTcpSocket client;
        QElapsedTimer t;
        t.start();
        client.connectToHost(QStringLiteral("127.0.0.1"), m_env->port());
        QVERIFY(client.waitForConnected(scaled(5000)));
        client.write(post(m_env->port(), kInitialize));
        const QByteArray response = readResponse(client, 10000);
        const qint64 ms = t.elapsed();
        QCOMPARE(statusOf(response), 200);
        QVERIFY2(ms < scaled(100), qPrintable(QStringLiteral("a normal client waited %1 ms behind idle connections").arg(ms)));
        int stillOpen = 0;
        for (const auto &s : idle)
            stillOpen += s->state() == QAbstractSocket::ConnectedState ? 1 : 0;
        qInfo() << "idle connections still open on the client side:" << stillOpen;
        idle.clear();
        // The server closes its ends as it reads the clients' FINs: health is asserted once it has
        // (`client` is still connected).
        const bool closed = waitFor([&] { return serverConnections(m_env->port()) <= connectionsBefore + 1; }, 30000);
        QVERIFY2(closed,
                 qPrintable(QStringLiteral("the server still holds %1 connections (%2 before the flood)")
                                .arg(serverConnections(m_env->port())).arg(connectionsBefore)));
        QVERIFY(m_server->isHealthy());
        QVERIFY(!m_server->output().contains("runtime error"));
    }
};

QTEST_GUILESS_MAIN(TestHttpLimits)
#include "tst_http_limits.moc"
