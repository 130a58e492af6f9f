#include "http/HttpReply.h"

#include "http/ClientRelay.h"

#include <QTimer>

#include <utility>

namespace chat2sbx {

HttpReply::HttpReply(QHttpServerResponder &&responder)
    : m_responder(std::make_unique<QHttpServerResponder>(std::move(responder)))
{
    const qthttp::Connection connection = qthttp::connectionOf(*m_responder);
    m_socket = connection.socket;
    m_owner = connection.owner;
}

HttpReply::~HttpReply()
{
    stopWatchingClient();
    qthttp::release(std::move(m_responder), m_owner);
}

bool HttpReply::isConnected() const
{
    return m_socket && m_socket->state() == QAbstractSocket::ConnectedState && m_socket->isOpen();
}

bool HttpReply::send(int status, const QByteArray &body, const QByteArray &contentType, const Headers &headers)
{
    if (m_sent)
        return false;
    m_sent = true;
    *m_answered = true;
    stopWatchingClient();
    if (!isConnected())
        return false;
    Headers all;
    all.reserve(headers.size() + 1);
    if (!contentType.isEmpty())
        all.append({QByteArrayLiteral("Content-Type"), contentType});
    all.append(headers);
    qthttp::write(*m_responder, status, all, body);
    qthttp::release(std::move(m_responder), m_owner);
    return true;
}

void HttpReply::onClientGone(std::function<void()> gone)
{
    auto fire = [answered = m_answered, fired = std::make_shared<bool>(false), gone = std::move(gone)] {
        if (*answered || std::exchange(*fired, true))
            return;
        gone();
    };
    if (!isConnected()) {
        QTimer::singleShot(0, fire);
        return;
    }
    // The client's end of the connection is the relay's (ClientRelay): its EOF or reset. The inner
    // socket QtHttpServer holds only closes after that (QtHttpServer 6.4 deletes it then).
    if (ClientRelay *relay = ClientRelay::of(m_socket)) {
        if (relay->hasClientEnded())
            return void(QTimer::singleShot(0, fire));
        m_goneWatches << QObject::connect(relay, &ClientRelay::clientEnded, [fire] { QTimer::singleShot(0, fire); });
    }
    m_goneWatches << QObject::connect(m_socket, &QAbstractSocket::disconnected, [fire] { QTimer::singleShot(0, fire); });
    m_goneWatches << QObject::connect(m_socket, &QObject::destroyed, [fire] { QTimer::singleShot(0, fire); });
}

void HttpReply::stopWatchingClient()
{
    for (const QMetaObject::Connection &c : std::as_const(m_goneWatches))
        QObject::disconnect(c);
    m_goneWatches.clear();
}

bool HttpReply::sendEmpty(int status, const Headers &headers)
{
    return send(status, QByteArray(), QByteArray(), headers);
}

} // namespace chat2sbx
