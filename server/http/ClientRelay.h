#pragma once

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>

class QSocketNotifier;
class QTcpSocket;

namespace chat2sbx {

// Carries one client connection between its TCP socket and the QTcpSocket that QtHttpServer reads
// and writes, made on one end of a socketpair. Why: a QTcpSocket (Qt 6.4, QNativeSocketEngine)
// closes its descriptor as soon as a read returns EOF, so a client that half-closes its socket
// (shutdown(SHUT_WR)) after sending a request never got the answer. The relay keeps the client's
// EOF to itself and says so (clientEnded()); the connection layer ends the inner socket once the
// answers are out, then the relay writes what is left to the client, sends FIN and closes.
// Each direction holds at most kChunk bytes and stops reading while they wait (back-pressure).
// Bytes from the client are handed to the inner socket's read notifier at once, so a request
// answered at once crosses the relay both ways in the event-loop turn in which it arrived.
class ClientRelay : public QObject {
    Q_OBJECT
public:
    static constexpr qsizetype kChunk = 64 * 1024;
    static constexpr int kChunksPerWake = 16;   // answer bytes moved per wake-up: at most 1 MiB
    // After our FIN, how long the client may take to close its side before the relay closes anyway.
    static constexpr int kLingerMs = 2000;
    static constexpr const char *kRelayProperty = "chat2sbx.clientRelay";

    // Takes `clientFd` (a connected TCP socket; closed on failure). `inner` receives the socket
    // for QtHttpServer, a child of `parent` reporting the client's address and port as its peer.
    // `onReaderAdded` runs each time something connects to the inner socket's readyRead (QtHttpServer
    // 6.8 reconnects its reader after every answer), not for connections it makes itself.
    static ClientRelay *create(qintptr clientFd, QObject *parent, QTcpSocket *&inner,
                               std::function<void(QTcpSocket *)> onReaderAdded = {});
    ~ClientRelay() override;

    // The relay carrying the connection of a socket create() made; nullptr for any other socket.
    static ClientRelay *of(QObject *innerSocket);
    bool hasClientEnded() const { return m_clientEof; }
    // Bytes of the client not yet read by the inner socket (in flight in the relay or the pair).
    bool hasUndelivered() const;
    // Closes both sides now (the connection is being dropped).
    void abort();

signals:
    // The client sends nothing more; its connection stays open for the answers.
    void clientEnded();

private:
    ClientRelay(int clientFd, int pairFd, QTcpSocket *inner, QObject *parent);
    void readClient();
    void readInner();
    void flushToInner();
    // Lets the inner socket read what was just handed to it, in this event-loop turn.
    void deliverToInner();
    void flushToClient();
    void closeAll();

    int m_client;
    int m_pair;        // our end of the socketpair
    int m_innerFd;     // the inner socket's end (owned by the QTcpSocket); only looked at
    QPointer<QTcpSocket> m_inner;
    QSocketNotifier *m_clientRead;
    QSocketNotifier *m_clientWrite;
    QSocketNotifier *m_pairRead;
    QSocketNotifier *m_pairWrite;
    QPointer<QSocketNotifier> m_innerRead;   // the inner socket's own read notifier, once found
    QByteArray m_toInner;
    QByteArray m_toClient;
    bool m_clientEof = false;
    bool m_innerEof = false;
    bool m_finSent = false;
    QTimer m_linger;
};

} // namespace chat2sbx
