#pragma once

#include "http/QtHttpCompat.h"

#include <QByteArray>
#include <QHttpServerResponder>
#include <QList>
#include <QPointer>
#include <QTcpSocket>

#include <functional>
#include <memory>

namespace chat2sbx {

// The answer to one HTTP request, possibly sent long after the handler returned (a pending
// tools/call). Made inside the route handler. The client may be gone by the time of the answer
// (QtHttpServer 6.4 deletes the socket, 6.8 closes it), so every write first checks the socket is
// still there and connected; a reply to a vanished client is dropped without touching the socket.
// The responder is let go as soon as the answer is written (QtHttpServer 6.8 reads the
// connection's next request only then), through qthttp::release.
class HttpReply {
public:
    using Headers = qthttp::HeaderList;

    explicit HttpReply(QHttpServerResponder &&responder);
    ~HttpReply();
    HttpReply(const HttpReply &) = delete;
    HttpReply &operator=(const HttpReply &) = delete;

    bool isConnected() const;
    // Sends once; later calls do nothing. Returns false when the client is gone.
    bool send(int status, const QByteArray &body, const QByteArray &contentType, const Headers &headers = {});
    bool sendEmpty(int status, const Headers &headers = {});
    // Calls `gone` once, from the event loop, when the client ends its side of the connection (EOF
    // or reset) or it closes before the answer was sent (at once, deferred, when it already has).
    // For the 2026-07-28 binding, where that is how a client cancels; a legacy client that half-closes
    // and waits is never asked about (its calls do not use this).
    void onClientGone(std::function<void()> gone);

private:
    std::unique_ptr<QHttpServerResponder> m_responder;
    QPointer<QTcpSocket> m_socket;
    QPointer<QObject> m_owner;
    bool m_sent = false;
    std::shared_ptr<bool> m_answered = std::make_shared<bool>(false);   // outlives this for onClientGone
    // onClientGone's watches, undone once answered: a kept-alive connection carries many requests.
    QList<QMetaObject::Connection> m_goneWatches;
    void stopWatchingClient();
};

} // namespace chat2sbx
