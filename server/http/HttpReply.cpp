#include "http/HttpReply.h"

#include "http/ClientRelay.h"

#include <QTimer>

#include <utility>

namespace chat2sbx {

HttpReply::HttpReply(QHttpServerResponder &&responder)
    : m_responder(std::move(responder)), m_socket(m_responder.socket())
{
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
    if (!isConnected())
        return false;
    m_responder.writeStatusLine(static_cast<QHttpServerResponder::StatusCode>(status));
    if (!contentType.isEmpty())
        m_responder.writeHeader(QByteArrayLiteral("Content-Type"), contentType);
    for (const auto &h : headers)
        m_responder.writeHeader(h.first, h.second);
    m_responder.writeHeader(QByteArrayLiteral("Content-Length"), QByteArray::number(body.size()));
    m_responder.writeBody(body.constData(), body.size());
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
        QObject::connect(relay, &ClientRelay::clientEnded, [fire] { QTimer::singleShot(0, fire); });
    }
    QObject::connect(m_socket, &QAbstractSocket::disconnected, [fire] { QTimer::singleShot(0, fire); });
    QObject::connect(m_socket, &QObject::destroyed, [fire] { QTimer::singleShot(0, fire); });
}

bool HttpReply::sendEmpty(int status, const Headers &headers)
{
    return send(status, QByteArray(), QByteArray(), headers);
}

} // namespace chat2sbx
