#pragma once
// One keep-alive HTTP/1.1 connection over QTcpSocket with one request in flight at a time.
// Deliberately minimal (Content-Length and chunked bodies) so the client costs little next to the server.
#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QTcpSocket>

#include <functional>

namespace chat2sbx::bench {

struct HttpResponse {
    int status = 0;                                   // 0: transport error (see error)
    QList<QPair<QByteArray, QByteArray>> headers;     // names lower-cased
    QByteArray body;
    QString error;
    QByteArray header(const QByteArray &lowerName) const;
};

class HttpConnection : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const HttpResponse &)>;
    HttpConnection(QString host, quint16 port, QObject *parent = nullptr);

    // Sends a POST (or another method) and calls done exactly once. Reconnects when the peer closed.
    void request(const QByteArray &method, const QByteArray &path, const QList<QPair<QByteArray, QByteArray>> &headers,
                 const QByteArray &body, Done done);

private:
    void onReadyRead();
    void onDisconnected();
    void finish(HttpResponse r);
    bool parse();   // true when a whole response is in m_in

    QString m_host;
    quint16 m_port;
    QTcpSocket m_socket;
    QByteArray m_pending;   // request bytes waiting for the connection
    QByteArray m_in;
    Done m_done;
    bool m_closeAfter = false;
};

} // namespace chat2sbx::bench
