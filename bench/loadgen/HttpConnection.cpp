#include "HttpConnection.h"

namespace chat2sbx::bench {

QByteArray HttpResponse::header(const QByteArray &lowerName) const
{
    for (const auto &h : headers)
        if (h.first == lowerName)
            return h.second;
    return {};
}

HttpConnection::HttpConnection(QString host, quint16 port, QObject *parent)
    : QObject(parent), m_host(std::move(host)), m_port(port)
{
    m_socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(&m_socket, &QTcpSocket::connected, this, [this] {
        m_socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
        if (!m_pending.isEmpty()) {
            m_socket.write(m_pending);
            m_pending.clear();
        }
    });
    connect(&m_socket, &QTcpSocket::readyRead, this, &HttpConnection::onReadyRead);
    connect(&m_socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    connect(&m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError e) {
        if (e == QAbstractSocket::RemoteHostClosedError)
            return;   // handled by disconnected
        if (m_done) {
            HttpResponse r;
            r.error = m_socket.errorString();
            finish(r);
        }
    });
}

void HttpConnection::request(const QByteArray &method, const QByteArray &path,
                             const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &body, Done done)
{
    m_done = std::move(done);
    m_in.clear();
    QByteArray req;
    req.reserve(256 + body.size());
    req += method + ' ' + path + " HTTP/1.1\r\nHost: " + m_host.toLatin1() + ':' + QByteArray::number(m_port) + "\r\n";
    for (const auto &h : headers)
        req += h.first + ": " + h.second + "\r\n";
    req += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n";
    req += body;
    if (m_socket.state() == QAbstractSocket::ConnectedState) {
        m_socket.write(req);
    } else {
        m_pending = req;
        if (m_socket.state() == QAbstractSocket::UnconnectedState)
            m_socket.connectToHost(m_host, m_port);
    }
}

void HttpConnection::onReadyRead()
{
    m_in += m_socket.readAll();
    if (m_done && parse()) {
        // parse() has called finish()
    }
}

void HttpConnection::onDisconnected()
{
    if (m_done) {
        HttpResponse r;
        r.error = QStringLiteral("connection closed by the server");
        finish(r);
    }
}

void HttpConnection::finish(HttpResponse r)
{
    Done done = std::move(m_done);
    m_done = nullptr;
    if (m_closeAfter) {
        m_closeAfter = false;
        m_socket.abort();
    }
    if (done)
        done(r);
}

bool HttpConnection::parse()
{
    const int headEnd = m_in.indexOf("\r\n\r\n");
    if (headEnd < 0)
        return false;
    HttpResponse r;
    const QList<QByteArray> lines = m_in.left(headEnd).split('\n');
    const QList<QByteArray> statusLine = lines.value(0).trimmed().split(' ');
    r.status = statusLine.value(1).toInt();
    qint64 length = -1;
    bool chunked = false;
    for (int i = 1; i < lines.size(); ++i) {
        const int colon = lines[i].indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArray name = lines[i].left(colon).trimmed().toLower();
        const QByteArray value = lines[i].mid(colon + 1).trimmed();
        r.headers.append({name, value});
        if (name == "content-length")
            length = value.toLongLong();
        else if (name == "transfer-encoding" && value.toLower().contains("chunked"))
            chunked = true;
        else if (name == "connection" && value.toLower() == "close")
            m_closeAfter = true;
    }
    const qsizetype bodyStart = headEnd + 4;
    if (chunked) {
        QByteArray body;
        qsizetype pos = bodyStart;
        for (;;) {
            const qsizetype eol = m_in.indexOf("\r\n", pos);
            if (eol < 0)
                return false;
            bool ok = false;
            const qint64 size = m_in.mid(pos, eol - pos).split(';').value(0).trimmed().toLongLong(&ok, 16);
            if (!ok)
                return false;
            if (size == 0) {
                const qsizetype end = m_in.indexOf("\r\n", eol + 2);   // trailers end with an empty line
                if (end < 0)
                    return false;
                break;
            }
            if (m_in.size() < eol + 2 + size + 2)
                return false;
            body += m_in.mid(eol + 2, size);
            pos = eol + 2 + size + 2;
        }
        r.body = body;
    } else if (length >= 0) {
        if (m_in.size() < bodyStart + length)
            return false;
        r.body = m_in.mid(bodyStart, length);
    } else if (r.status == 204 || r.status == 304 || (r.status >= 100 && r.status < 200)) {
        // no body
    } else if (r.status == 202 && !m_closeAfter) {
        // some servers send 202 without Content-Length; treat as empty
    } else {
        return false;   // read-until-close body: wait for disconnect (not used by either server)
    }
    m_in.clear();
    finish(r);
    return true;
}

} // namespace chat2sbx::bench
