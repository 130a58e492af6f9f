#pragma once

#include "core/LogRateLimiter.h"
#include "http/RequestIntake.h"

#include <QElapsedTimer>
#include <QHash>
#include <QPointer>
#include <QTcpServer>
#include <QTimer>

class QTcpSocket;

namespace chat2sbx {

class ClientRelay;

// The listening socket under QHttpServer (bound with QHttpServer::bind). It sees every byte before
// QtHttpServer parses it and keeps each connection within bounds:
// - RequestIntake's limits (head size, Content-Length, bytes buffered per request): refused with
//   413/431/400 and the connection closed, instead of QtHttpServer buffering a whole body;
// - at most maxConnections at once: a new connection closes the longest-idle one (quiet for a moment,
//   nothing in flight: an idle-connection flood cannot lock clients out or exhaust file descriptors),
//   or is answered 503 with Retry-After when every connection is busy or just opened (a burst of
//   clients each gets an answer, none a silent close);
// - a connection with nothing in flight for idleTimeoutMs is closed, and a request that is not
//   complete requestTimeoutMs after its first byte is refused with 408 (slow senders);
// - at most maxBufferedBytes of unfinished requests over all connections (503 past it);
// - an accept error pauses accepting for a moment instead of retrying in a loop;
// - a client that half-closes its socket after its request still gets the answer (ClientRelay),
//   and the connection ends once nothing is left to answer.
// Connections waiting for a tool's answer are never closed by these rules.
class BoundedTcpServer : public QTcpServer {
    Q_OBJECT
public:
    struct Options {
        int maxConnections = 64;
        int idleTimeoutMs = 60000;
        int requestTimeoutMs = 60000;
        qsizetype maxBufferedBytes = 64 * 1024 * 1024;
        RequestIntake::Limits limits;
    };

    explicit BoundedTcpServer(const Options &options, QObject *parent = nullptr);
    ~BoundedTcpServer() override;

    const Options &options() const { return m_options; }

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    struct Connection {
        explicit Connection(const RequestIntake::Limits &limits) : intake(limits) {}
        RequestIntake intake;
        QPointer<ClientRelay> relay;
        qint64 unread = 0;             // bytes QtHttpServer left unread after its last look
        qint64 availableBeforeReader = 0;   // bytes in the socket when this readyRead began
        qint64 lastActivityMs = 0;
        qint64 requestStartedMs = -1;  // first byte of an unfinished request
        bool awaitingAnswer = false;   // a request was taken and its answer is not written yet
        bool rejected = false;
        QMetaObject::Connection afterSlot;   // afterHttpServer: must stay behind QtHttpServer's reader
    };

    void beforeHttpServer(QTcpSocket *socket);
    void afterHttpServer(QTcpSocket *socket);
    // (Re)connects afterHttpServer behind every other readyRead slot of the socket.
    void keepAfterSlotLast(QTcpSocket *socket);
    void onBytesWritten(QTcpSocket *socket);
    // The client sends nothing more: end the connection when nothing of it is left to answer.
    void endIfAnswered(QTcpSocket *socket);
    void drop(QTcpSocket *socket);
    void reject(QTcpSocket *socket, int status, const QString &message);
    bool closeLongestIdle();
    void sweep();
    qint64 bufferedBytes() const;
    void warn(const QString &message);

    Options m_options;
    QHash<QTcpSocket *, Connection> m_connections;
    QTimer m_sweep;
    QElapsedTimer m_clock;
    LogRateLimiter m_warnings{10, 60000};
};

} // namespace chat2sbx
