// ClientRelay: a request and its immediate answer cross it in one event-loop turn; the bytes
// QtHttpServer's socket writes reach the client's TCP socket whole and in order, also an answer several times larger than the socketpair holds (moved in one wake-up, with
// the inner socket asked to write what it still buffers), and the inner socket's close ends with FIN.
#include "http/ClientRelay.h"

#include <QTcpSocket>
#include <QtTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace chat2sbx;

namespace {

// A connected loopback TCP pair: `client` is the test's end, `server` the one given to the relay.
bool tcpPair(int &client, int &server)
{
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(listener, 1) != 0
        || ::getsockname(listener, reinterpret_cast<sockaddr *>(&addr), &length) != 0)
        return false;
    client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    ::connect(client, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
    server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    ::close(listener);
    return client >= 0 && server >= 0;
}

QByteArray pattern(qsizetype size)
{
    QByteArray out(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        out[i] = char('a' + (i * 7 + i / 4096) % 26);
    return out;
}

} // namespace

class TestClientRelay : public QObject {
    Q_OBJECT

private slots:
    void anImmediateAnswerLeavesInTheTurnItsRequestArrived()
    {
        // The relay lets the inner socket read a request at once (not on the next event-loop
        // turn), so an answer written and flushed by its readyRead handler, as BoundedTcpServer
        // does, reaches the client before that turn ends.
        int client = -1, server = -1;
        QVERIFY(tcpPair(client, server));
        QObject owner;
        QTcpSocket *inner = nullptr;
        ClientRelay *relay = ClientRelay::create(server, &owner, inner);
        QVERIFY(relay && inner);
        int handled = 0;
        connect(inner, &QTcpSocket::readyRead, inner, [inner, &handled] {
            ++handled;
            inner->write("answer:" + inner->readAll());
            inner->flush();
        });
        for (int round = 0; round < 3; ++round) {
            const QByteArray request = "request " + QByteArray::number(round);
            QCOMPARE(::send(client, request.constData(), size_t(request.size()), 0), ssize_t(request.size()));
            QElapsedTimer t;
            t.start();
            while (handled == round && t.elapsed() < 5000)
                QCoreApplication::processEvents();   // one pass at a time
            QCOMPARE(handled, round + 1);
            char buffer[256];
            const ssize_t n = ::recv(client, buffer, sizeof buffer, MSG_DONTWAIT);   // no further pass
            QCOMPARE(QByteArray(buffer, int(qMax<ssize_t>(n, 0))), "answer:" + request);
        }
        ::close(client);
    }

    void aLargeAnswerArrivesWholeThenFin()
    {
        int client = -1, server = -1;
        QVERIFY(tcpPair(client, server));
        QObject owner;
        QTcpSocket *inner = nullptr;
        ClientRelay *relay = ClientRelay::create(server, &owner, inner);
        QVERIFY(relay && inner);

        const QByteArray answer = pattern(3 * 1024 * 1024 + 17);   // far more than the pair holds
        QCOMPARE(inner->write(answer), answer.size());
        inner->disconnectFromHost();   // closes once written: the relay then sends FIN

        QByteArray received;
        bool fin = false;
        QElapsedTimer t;
        t.start();
        while (!fin && t.elapsed() < 10000) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
            char buffer[65536];
            for (;;) {
                const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
                if (n > 0) {
                    received.append(buffer, n);
                    continue;
                }
                fin = n == 0;
                break;
            }
        }
        QVERIFY2(fin, qPrintable(QStringLiteral("no FIN after %1 of %2 bytes").arg(received.size()).arg(answer.size())));
        QCOMPARE(received.size(), answer.size());
        QVERIFY(received == answer);
        ::close(client);
    }

    void theClientsRequestReachesTheInnerSocket()
    {
        int client = -1, server = -1;
        QVERIFY(tcpPair(client, server));
        QObject owner;
        QTcpSocket *inner = nullptr;
        QVERIFY(ClientRelay::create(server, &owner, inner));
        const QByteArray request = pattern(300 * 1024);
        qsizetype sent = 0;
        QByteArray got;
        QElapsedTimer t;
        t.start();
        while (got.size() < request.size() && t.elapsed() < 10000) {
            if (sent < request.size()) {
                const ssize_t n = ::send(client, request.constData() + sent, size_t(request.size() - sent), MSG_NOSIGNAL);
                if (n > 0)
                    sent += n;
            }
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
            got += inner->readAll();
        }
        QVERIFY(got == request);
        ::close(client);
    }
};

QTEST_GUILESS_MAIN(TestClientRelay)
#include "tst_client_relay.moc"
