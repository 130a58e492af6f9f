#include "http/HttpReply.h"

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

bool HttpReply::sendEmpty(int status, const Headers &headers)
{
    return send(status, QByteArray(), QByteArray(), headers);
}

} // namespace chat2sbx
