#include "http/BoundedTcpServer.h"

#include "core/JsonRpc.h"
#include "http/ClientRelay.h"
#include "http/QtHttpCompat.h"

#include <QLoggingCategory>
#include <QTcpSocket>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcHttpGuard, "chat2sbx.http")

namespace {

constexpr int kLingerMs = 2000;   // after a refusal, how long the rest of the request is read and dropped
// A connection quiet for less than this is not idle: a client in a burst may not have sent its
// request yet. Newcomers past the cap are then answered 503 with Retry-After instead.
constexpr qint64 kIdleAfterMs = 300;

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 400: return QByteArrayLiteral("Bad Request");
    case 408: return QByteArrayLiteral("Request Timeout");
    case 413: return QByteArrayLiteral("Payload Too Large");
    case 431: return QByteArrayLiteral("Request Header Fields Too Large");
    case 503: return QByteArrayLiteral("Service Unavailable");
    default: return QByteArrayLiteral("Error");
    }
}

QByteArray refusal(int status, const QString &message)
{
    const QByteArray body = jsonrpc::serialize(jsonrpc::error(QJsonValue(), jsonrpc::TransportError, message));
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
           + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
           + (status == 503 ? QByteArrayLiteral("\r\nRetry-After: 1") : QByteArray())
           + "\r\nConnection: close\r\n\r\n" + body;
}

} // namespace

BoundedTcpServer::BoundedTcpServer(const Options &options, QObject *parent)
    : QTcpServer(parent), m_options(options)
{
    m_clock.start();
    setMaxPendingConnections(m_options.maxConnections);
    // Qt listens with a backlog of 50: in a burst of connections the kernel's accept queue overflows
    // and the handshakes it drops complete only as TCP retries them, seconds to a minute later. The
    // kernel caps this at net.core.somaxconn.
    setListenBacklogSize(1024);
    m_sweep.setInterval(std::max(100, std::min(m_options.idleTimeoutMs, m_options.requestTimeoutMs) / 4));
    connect(&m_sweep, &QTimer::timeout, this, &BoundedTcpServer::sweep);
    m_sweep.start();
    connect(this, &QTcpServer::acceptError, this, [this](QAbstractSocket::SocketError error) {
        // QTcpServer stops accepting after an error; try again shortly rather than never or in a loop.
        warn(QStringLiteral("cannot accept a connection (%1: %2); accepting again in 1 s")
                 .arg(int(error)).arg(errorString()));
        pauseAccepting();
        QTimer::singleShot(1000, this, [this] { resumeAccepting(); });
    });
}

BoundedTcpServer::~BoundedTcpServer()
{
    // The sockets are our children and go with us; their signals must not reach a half-destroyed guard.
    for (auto it = m_connections.cbegin(); it != m_connections.cend(); ++it)
        it.key()->disconnect(this);
    m_connections.clear();
}

void BoundedTcpServer::incomingConnection(qintptr socketDescriptor)
{
    if (m_connections.size() >= m_options.maxConnections && !closeLongestIdle()) {
        auto *busy = new QTcpSocket(this);
        if (!busy->setSocketDescriptor(socketDescriptor)) {
            delete busy;
            return;
        }
        warn(QStringLiteral("refused a connection: all %1 connections are busy or just opened").arg(m_options.maxConnections));
        busy->write(refusal(503, QStringLiteral("Service Unavailable: too many connections; retry in a second")));
        // The answer, then our end of the stream (FIN); what the client sends meanwhile is read and
        // dropped, so closing never resets the connection under an answer it has not read yet.
        connect(busy, &QTcpSocket::bytesWritten, busy, [busy] {
            if (busy->bytesToWrite() == 0)
                ::shutdown(int(busy->socketDescriptor()), SHUT_WR);
        });
        connect(busy, &QTcpSocket::readyRead, busy, [busy] { busy->skip(busy->bytesAvailable()); });
        connect(busy, &QTcpSocket::disconnected, busy, &QObject::deleteLater);
        QTimer::singleShot(kLingerMs, busy, [busy] { busy->abort(); busy->deleteLater(); });
        return;
    }
    QTcpSocket *socket = nullptr;
    std::function<void(QTcpSocket *)> onReaderAdded;
    if (qthttp::kReaderReconnects)
        onReaderAdded = [this](QTcpSocket *s) { keepAfterSlotLast(s); };
    ClientRelay *relay = ClientRelay::create(socketDescriptor, this, socket, std::move(onReaderAdded));
    if (!relay) {
        warn(QStringLiteral("cannot set up a connection: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
        return;
    }
    // QtHttpServer keeps every byte of a request in the socket's buffer until it has the whole
    // request; past this size the socket stops reading and RequestIntake has refused the request.
    socket->setReadBufferSize(RequestIntake(m_options.limits).budget() + 1);
    Connection connection(m_options.limits);
    connection.relay = relay;
    connection.lastActivityMs = m_clock.elapsed();
    m_connections.insert(socket, connection);
    // Slots run in connection order: ours first, then QtHttpServer's (connected inside
    // addPendingConnection), then ours again. QtHttpServer 6.8 disconnects its reader while a
    // request is being answered and connects it again after: the relay's socket reports that, and
    // afterHttpServer moves behind it again.
    connect(socket, &QTcpSocket::readyRead, this, [this, socket] { beforeHttpServer(socket); });
    connect(socket, &QObject::destroyed, this, [this, socket] { m_connections.remove(socket); });
    connect(relay, &ClientRelay::clientEnded, socket, [this, socket] { endIfAnswered(socket); });
    connect(socket, &QTcpSocket::bytesWritten, this, [this, socket] { onBytesWritten(socket); });
    addPendingConnection(socket);
    keepAfterSlotLast(socket);
}

void BoundedTcpServer::keepAfterSlotLast(QTcpSocket *socket)
{
    auto it = m_connections.find(socket);
    if (it == m_connections.end())
        return;
    if (it->afterSlot)
        disconnect(it->afterSlot);
    it->afterSlot = connect(socket, &QTcpSocket::readyRead, this, [this, socket] { afterHttpServer(socket); });
}

void BoundedTcpServer::beforeHttpServer(QTcpSocket *socket)
{
    qthttp::setReadingSocket(socket);   // the route handler QtHttpServer may call next answers on it
    auto it = m_connections.find(socket);
    if (it == m_connections.end())
        return;
    Connection &c = *it;
    if (c.rejected) {
        // Drop what keeps arriving; QtHttpServer, next in line, finds nothing to read.
        if (socket->isTransactionStarted())
            socket->commitTransaction();
        socket->skip(socket->bytesAvailable());
        return;
    }
    const qint64 available = socket->bytesAvailable();
    c.availableBeforeReader = available;
    const qint64 fresh = available - c.unread;
    if (fresh <= 0)
        return;
    c.unread = available;
    c.lastActivityMs = m_clock.elapsed();
    if (c.requestStartedMs < 0)
        c.requestStartedMs = c.lastActivityMs;
    const QByteArray bytes = c.intake.wantsBytes() ? socket->peek(available).mid(available - fresh) : QByteArray();
    if (const auto rejection = c.intake.onBytes(fresh, bytes))
        return reject(socket, rejection->status, rejection->message);
    if (bufferedBytes() > m_options.maxBufferedBytes)
        reject(socket, 503, QStringLiteral("Service Unavailable: too much request data in flight; retry shortly"));
}

void BoundedTcpServer::afterHttpServer(QTcpSocket *socket)
{
    auto it = m_connections.find(socket);
    if (it == m_connections.end() || it->rejected)
        return;
    Connection &c = *it;
    c.unread = socket->bytesAvailable();
    // QtHttpServer starts a read transaction for each request and commits it when it hands the
    // complete request to a handler: no transaction now means a request was taken. QtHttpServer 6.8
    // is not connected while it answers a request: a readyRead then reaches this slot with nothing
    // read and no transaction, so there bytes must also have gone from the socket. (Not on 6.4, whose
    // reader always runs: its read can refill the buffer from the socket, and the check failed there.)
    if (socket->isTransactionStarted())
        return;
    if (qthttp::kReaderReconnects) {
        if (c.unread >= c.availableBeforeReader)
            return;
        c.availableBeforeReader = c.unread;   // counted once, however many times this slot runs
    }
    c.awaitingAnswer = true;   // until the answer is written out (onBytesWritten)
    c.requestStartedMs = c.unread > 0 ? m_clock.elapsed() : -1;
    if (const auto rejection = c.intake.onRequestTaken(c.unread > 0 ? socket->peek(c.unread) : QByteArray()))
        return reject(socket, rejection->status, rejection->message);
    // An answer the handler gave at once is written now rather than on the socket's next write
    // notification: one event-loop turn less per request (each turn polls every descriptor).
    // Here, not in the handler, so that its bytesWritten finds the request marked as taken.
    if (socket->bytesToWrite() > 0)
        socket->flush();
}

void BoundedTcpServer::onBytesWritten(QTcpSocket *socket)
{
    auto it = m_connections.find(socket);
    if (it == m_connections.end())
        return;
    if (socket->bytesToWrite() == 0) {
        it->lastActivityMs = m_clock.elapsed();
        it->awaitingAnswer = false;
        if (it->rejected)
            ::shutdown(int(socket->socketDescriptor()), SHUT_WR);   // the refusal is out: FIN, keep draining
        else
            endIfAnswered(socket);
    }
}

void BoundedTcpServer::endIfAnswered(QTcpSocket *socket)
{
    auto it = m_connections.find(socket);
    if (it == m_connections.end() || it->rejected || !it->relay || !it->relay->hasClientEnded())
        return;
    // A request still on its way to QtHttpServer, or taken and not answered, ends it later.
    if (it->awaitingAnswer || socket->bytesAvailable() > 0 || it->relay->hasUndelivered() || socket->bytesToWrite() > 0)
        return;
    m_connections.remove(socket);
    socket->disconnect(this);
    socket->disconnectFromHost();   // the relay writes what is left, then FIN
}

void BoundedTcpServer::drop(QTcpSocket *socket)
{
    auto it = m_connections.find(socket);
    if (it != m_connections.end()) {
        if (it->relay)
            it->relay->abort();
        m_connections.erase(it);
    }
    socket->disconnect(this);
    socket->abort();
}

void BoundedTcpServer::reject(QTcpSocket *socket, int status, const QString &message)
{
    auto it = m_connections.find(socket);
    if (it == m_connections.end() || it->rejected)
        return;
    it->rejected = true;
    it->awaitingAnswer = false;
    warn(QStringLiteral("refused a request from %1 with %2: %3")
             .arg(socket->peerAddress().toString()).arg(status).arg(message));
    if (socket->isTransactionStarted())
        socket->commitTransaction();
    socket->skip(socket->bytesAvailable());
    socket->write(refusal(status, message));
    // Read and drop the rest for a moment so the client sees the answer rather than a reset.
    QTimer::singleShot(kLingerMs, socket, [this, socket] { drop(socket); });
}

bool BoundedTcpServer::closeLongestIdle()
{
    QTcpSocket *victim = nullptr;
    qint64 oldest = 0;
    const qint64 now = m_clock.elapsed();
    for (auto it = m_connections.cbegin(); it != m_connections.cend(); ++it) {
        // Waiting for an answer, in the middle of a request, or opened (or answered) a moment ago: busy.
        if (it->awaitingAnswer || (!it->rejected && (it->requestStartedMs >= 0 || now - it->lastActivityMs < kIdleAfterMs)))
            continue;
        // Refused connections go first, then the one that has been quiet the longest.
        const qint64 rank = it->rejected ? -1 : it->lastActivityMs;
        if (!victim || rank < oldest) {
            victim = it.key();
            oldest = rank;
        }
    }
    if (!victim)
        return false;
    drop(victim);
    return true;
}

void BoundedTcpServer::sweep()
{
    const qint64 now = m_clock.elapsed();
    QList<QTcpSocket *> idle, slow;
    for (auto it = m_connections.cbegin(); it != m_connections.cend(); ++it) {
        if (it->awaitingAnswer || it->rejected)
            continue;
        if (it->requestStartedMs >= 0 && now - it->requestStartedMs > m_options.requestTimeoutMs)
            slow << it.key();
        else if (it->requestStartedMs < 0 && now - it->lastActivityMs > m_options.idleTimeoutMs)
            idle << it.key();
    }
    for (QTcpSocket *socket : std::as_const(slow))
        reject(socket, 408, QStringLiteral("Request Timeout: the request was not complete after %1 s")
                                .arg(m_options.requestTimeoutMs / 1000));
    for (QTcpSocket *socket : std::as_const(idle)) {
        m_connections.remove(socket);
        socket->disconnect(this);
        socket->disconnectFromHost();
    }
}

qint64 BoundedTcpServer::bufferedBytes() const
{
    qint64 total = 0;
    for (const Connection &c : m_connections)
        total += c.intake.bytesSinceRequest();
    return total;
}

void BoundedTcpServer::warn(const QString &message)
{
    qint64 suppressed = 0;
    if (!m_warnings.allow(m_clock.elapsed(), suppressed))
        return;
    qCWarning(lcHttpGuard).noquote() << message
                                     << (suppressed ? QStringLiteral("(%1 similar warnings suppressed)").arg(suppressed) : QString());
}

} // namespace chat2sbx
