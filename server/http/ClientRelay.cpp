#include "http/ClientRelay.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QMetaMethod>
#include <QSocketNotifier>
#include <QTcpSocket>

#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace chat2sbx {

namespace {

// A QTcpSocket over the socketpair that reports the real client as its peer (the Host and
// loopback checks, and the logs, look at it).
class RelayedSocket : public QTcpSocket {
public:
    using QTcpSocket::QTcpSocket;
    void adoptPeer(const QHostAddress &address, quint16 port)
    {
        setPeerAddress(address);
        setPeerPort(port);
    }
    void setOnReaderAdded(std::function<void(QTcpSocket *)> hook) { m_onReaderAdded = std::move(hook); }

protected:
    void connectNotify(const QMetaMethod &signal) override
    {
        QTcpSocket::connectNotify(signal);
        if (m_inHook || !m_onReaderAdded || signal != QMetaMethod::fromSignal(&QIODevice::readyRead))
            return;
        m_inHook = true;   // the hook connects to readyRead itself
        m_onReaderAdded(this);
        m_inHook = false;
    }

private:
    std::function<void(QTcpSocket *)> m_onReaderAdded;
    bool m_inHook = false;
};

bool wouldBlock()
{
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

void peerOf(int fd, QHostAddress &address, quint16 &port)
{
    sockaddr_storage storage{};
    socklen_t length = sizeof storage;
    auto *sa = reinterpret_cast<sockaddr *>(&storage);
    if (::getpeername(fd, sa, &length) != 0)
        return;
    address.setAddress(sa);
    if (sa->sa_family == AF_INET)
        port = ntohs(reinterpret_cast<sockaddr_in *>(sa)->sin_port);
    else if (sa->sa_family == AF_INET6)
        port = ntohs(reinterpret_cast<sockaddr_in6 *>(sa)->sin6_port);
}

} // namespace

ClientRelay *ClientRelay::of(QObject *innerSocket)
{
    return innerSocket ? qobject_cast<ClientRelay *>(innerSocket->property(kRelayProperty).value<QObject *>()) : nullptr;
}

ClientRelay *ClientRelay::create(qintptr clientFd, QObject *parent, QTcpSocket *&inner,
                                 std::function<void(QTcpSocket *)> onReaderAdded)
{
    inner = nullptr;
    const int client = int(clientFd);
    int pair[2];
    const int flags = ::fcntl(client, F_GETFL);
    if (flags < 0 || ::fcntl(client, F_SETFL, flags | O_NONBLOCK) != 0
        || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
        ::close(client);
        return nullptr;
    }
    auto *socket = new RelayedSocket(parent);
    if (!socket->setSocketDescriptor(pair[0])) {
        delete socket;
        ::close(pair[0]);
        ::close(pair[1]);
        ::close(client);
        return nullptr;
    }
    // The relay hands on whole answers: Nagle would only hold their last segment back.
    const int one = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    QHostAddress address;
    quint16 port = 0;
    peerOf(client, address, port);
    socket->adoptPeer(address, port);
    socket->setOnReaderAdded(std::move(onReaderAdded));
    inner = socket;
    auto *relay = new ClientRelay(client, pair[1], socket, parent);
    socket->setProperty(kRelayProperty, QVariant::fromValue(static_cast<QObject *>(relay)));
    return relay;
}

ClientRelay::ClientRelay(int clientFd, int pairFd, QTcpSocket *inner, QObject *parent)
    : QObject(parent),
      m_client(clientFd),
      m_pair(pairFd),
      m_innerFd(int(inner->socketDescriptor())),
      m_inner(inner),
      m_clientRead(new QSocketNotifier(clientFd, QSocketNotifier::Read, this)),
      m_clientWrite(new QSocketNotifier(clientFd, QSocketNotifier::Write, this)),
      m_pairRead(new QSocketNotifier(pairFd, QSocketNotifier::Read, this)),
      m_pairWrite(new QSocketNotifier(pairFd, QSocketNotifier::Write, this))
{
    m_clientWrite->setEnabled(false);
    m_pairWrite->setEnabled(false);
    connect(m_clientRead, &QSocketNotifier::activated, this, &ClientRelay::readClient);
    connect(m_pairRead, &QSocketNotifier::activated, this, &ClientRelay::readInner);
    connect(m_clientWrite, &QSocketNotifier::activated, this, &ClientRelay::flushToClient);
    connect(m_pairWrite, &QSocketNotifier::activated, this, &ClientRelay::flushToInner);
    m_linger.setSingleShot(true);
    m_linger.setInterval(kLingerMs);
    connect(&m_linger, &QTimer::timeout, this, &ClientRelay::closeAll);
}

ClientRelay::~ClientRelay()
{
    if (m_client >= 0)
        ::close(m_client);
    if (m_pair >= 0)
        ::close(m_pair);
}

bool ClientRelay::hasUndelivered() const
{
    if (!m_toInner.isEmpty())
        return true;
    int queued = 0;
    return m_pair >= 0 && ::ioctl(m_innerFd, FIONREAD, &queued) == 0 && queued > 0;
}

void ClientRelay::abort()
{
    closeAll();
}

void ClientRelay::readClient()
{
    if (m_client < 0)
        return;
    if (!m_toInner.isEmpty()) {
        m_clientRead->setEnabled(false);
        return;
    }
    QByteArray buffer(kChunk, Qt::Uninitialized);
    const ssize_t n = ::recv(m_client, buffer.data(), size_t(buffer.size()), 0);
    if (n > 0) {
        if (m_pair < 0)
            return;
        m_toInner = buffer.left(n);
        flushToInner();
        if (m_toInner.isEmpty())
            deliverToInner();
        return;
    }
    if (n == 0) {
        m_clientEof = true;
        m_clientRead->setEnabled(false);
        if (m_finSent)
            return closeAll();
        emit clientEnded();
        return;
    }
    if (!wouldBlock())
        closeAll();   // reset by the client
}

void ClientRelay::flushToInner()
{
    while (!m_toInner.isEmpty() && m_pair >= 0) {
        const ssize_t n = ::send(m_pair, m_toInner.constData(), size_t(m_toInner.size()), MSG_NOSIGNAL);
        if (n > 0) {
            m_toInner.remove(0, n);
            continue;
        }
        if (n < 0 && wouldBlock())
            break;
        m_toInner.clear();   // the inner socket is gone: what the client still sends goes nowhere
    }
    m_pairWrite->setEnabled(!m_toInner.isEmpty());
    m_clientRead->setEnabled(m_toInner.isEmpty() && !m_clientEof && m_client >= 0);
}

void ClientRelay::deliverToInner()
{
    // Without this, a request takes three event-loop turns (client to pair, pair to QtHttpServer,
    // answer to client), each polling every descriptor of the process. The inner socket's read
    // notifier is sent the event the event dispatcher would send it on the next turn, so the
    // request is parsed and an immediate answer written now, and then handed on to the client.
    if (!m_inner || m_pair < 0)
        return;
    if (!m_innerRead) {
        const auto notifiers = m_inner->findChildren<QSocketNotifier *>();
        for (QSocketNotifier *n : notifiers) {
            if (n->type() == QSocketNotifier::Read && n->socket() == m_innerFd)
                m_innerRead = n;
        }
        if (!m_innerRead)
            return;   // the next turn delivers it as usual
    }
    if (!m_innerRead->isEnabled())
        return;   // the inner socket's buffer is full: it reads again once QtHttpServer takes some
    QEvent activation(QEvent::SockAct);
    QCoreApplication::sendEvent(m_innerRead, &activation);
    if (m_pair >= 0 && m_toClient.isEmpty())
        readInner();
}

void ClientRelay::readInner()
{
    // While the client takes each chunk at once, the next is read in the same wake-up (at most
    // kChunksPerWake), and when the pair is empty the inner socket is asked to write what it still
    // buffers: a large answer (sandbox_list of 1,000 is 600 kB, the pair holds about 200 kB) then
    // goes out in one event-loop turn instead of one per chunk, and each turn polls every
    // descriptor of the process (three per sandbox channel). Still at most kChunk bytes wait here.
    for (int i = 0; i < kChunksPerWake; ++i) {
        if (m_pair < 0)
            return;
        if (!m_toClient.isEmpty()) {
            m_pairRead->setEnabled(false);
            return;
        }
        QByteArray buffer(kChunk, Qt::Uninitialized);
        const ssize_t n = ::recv(m_pair, buffer.data(), size_t(buffer.size()), 0);
        if (n > 0) {
            buffer.truncate(n);
            m_toClient = std::move(buffer);
            flushToClient();
            continue;
        }
        if (n < 0 && wouldBlock()) {
            if (m_inner && m_inner->bytesToWrite() > 0 && m_inner->flush())
                continue;
            return;
        }
        // The inner socket shut down its side or closed: the rest goes out, then our FIN.
        m_innerEof = true;
        m_pairRead->setEnabled(false);
        return flushToClient();
    }
}

void ClientRelay::flushToClient()
{
    if (m_client < 0)
        return;
    while (!m_toClient.isEmpty()) {
        const ssize_t n = ::send(m_client, m_toClient.constData(), size_t(m_toClient.size()), MSG_NOSIGNAL);
        if (n > 0) {
            m_toClient.remove(0, n);
            continue;
        }
        if (n < 0 && wouldBlock())
            break;
        return closeAll();   // the client is gone
    }
    m_clientWrite->setEnabled(!m_toClient.isEmpty());
    m_pairRead->setEnabled(m_toClient.isEmpty() && !m_innerEof && m_pair >= 0);
    if (m_toClient.isEmpty() && m_innerEof && !m_finSent) {
        m_finSent = true;
        ::shutdown(m_client, SHUT_WR);
        if (m_clientEof)
            return closeAll();
        m_linger.start();   // keep reading (and dropping) until the client closes, so it sees no reset
    }
}

void ClientRelay::closeAll()
{
    m_linger.stop();
    for (QSocketNotifier *n : {m_clientRead, m_clientWrite, m_pairRead, m_pairWrite})
        n->setEnabled(false);
    if (m_client >= 0)
        ::close(m_client);
    if (m_pair >= 0)
        ::close(m_pair);   // the inner socket reads EOF and QtHttpServer lets it go
    m_client = m_pair = -1;
    m_toInner.clear();
    m_toClient.clear();
    deleteLater();
}

} // namespace chat2sbx
