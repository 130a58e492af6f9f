#include "http/HttpReply.h"

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

bool HttpReply::sendEmpty(int status, const Headers &headers)
{
    return send(status, QByteArray(), QByteArray(), headers);
}

} // namespace chat2sbx
