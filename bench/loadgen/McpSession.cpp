#include "McpSession.h"

#include <QEventLoop>
#include <QJsonDocument>

namespace chat2sbx::bench {

McpSession::McpSession(const QUrl &url, QObject *parent)
    : QObject(parent), m_url(url), m_path(url.path(QUrl::FullyEncoded).toLatin1()),
      m_conn(url.host(), static_cast<quint16>(url.port(80)))
{
    if (m_path.isEmpty())
        m_path = "/";
}

QList<QPair<QByteArray, QByteArray>> McpSession::headers() const
{
    QList<QPair<QByteArray, QByteArray>> h{{"Content-Type", "application/json"},
                                           {"Accept", "application/json, text/event-stream"}};
    if (!m_sessionId.isEmpty()) {
        h.append({"Mcp-Session-Id", m_sessionId});
        h.append({"MCP-Protocol-Version", m_protocolVersion});
    }
    return h;
}

QByteArray McpSession::requestBody(const QByteArray &method, const QJsonObject &params)
{
    QJsonObject o{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                  {QStringLiteral("id"), m_nextId++},
                  {QStringLiteral("method"), QString::fromLatin1(method)}};
    if (!params.isEmpty())
        o.insert(QStringLiteral("params"), params);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

void McpSession::send(const QByteArray &method, const QJsonObject &params, Done done)
{
    sendRaw(requestBody(method, params), std::move(done));
}

void McpSession::sendRaw(const QByteArray &jsonRpcBody, Done done)
{
    m_conn.request("POST", m_path, headers(), jsonRpcBody, std::move(done));
}

void McpSession::open(std::function<void(const QString &)> done)
{
    const QJsonObject params{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                             {QStringLiteral("capabilities"), QJsonObject{}},
                             {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("chat2sbx-loadgen")},
                                                                        {QStringLiteral("version"), QStringLiteral("1")}}}};
    send("initialize", params, [this, done](const HttpResponse &r) {
        QString error;
        const QJsonObject result = resultOf(r, error);
        if (!error.isEmpty())
            return done(QStringLiteral("initialize: ") + error);
        m_sessionId = r.header("mcp-session-id");
        const QString pv = result.value(QStringLiteral("protocolVersion")).toString();
        if (!pv.isEmpty())
            m_protocolVersion = pv.toLatin1();
        m_conn.request("POST", m_path, headers(), R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                       [done](const HttpResponse &n) {
                           if (n.status != 202 && n.status != 200 && n.status != 204)
                               return done(QStringLiteral("notifications/initialized: HTTP %1 %2").arg(n.status).arg(n.error));
                           done(QString());
                       });
    });
}

void McpSession::close(std::function<void()> done)
{
    if (m_sessionId.isEmpty())
        return done();
    m_conn.request("DELETE", m_path, headers(), QByteArray(), [done](const HttpResponse &) { done(); });
}

QJsonObject resultOf(const HttpResponse &r, QString &error)
{
    if (r.status == 0) {
        error = r.error;
        return {};
    }
    QByteArray body = r.body;
    if (r.header("content-type").startsWith("text/event-stream")) {
        // take the last data: line (SSE fallback)
        const int at = body.lastIndexOf("data: ");
        body = at < 0 ? QByteArray() : body.mid(at + 6).trimmed();
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &pe);
    if (r.status != 200 || !doc.isObject()) {
        error = QStringLiteral("HTTP %1: %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300)));
        return {};
    }
    const QJsonObject o = doc.object();
    if (o.contains(QStringLiteral("error"))) {
        error = QString::fromUtf8(QJsonDocument(o.value(QStringLiteral("error")).toObject()).toJson(QJsonDocument::Compact));
        return {};
    }
    return o.value(QStringLiteral("result")).toObject();
}

HttpResponse callSync(McpSession &s, const QByteArray &method, const QJsonObject &params)
{
    QEventLoop loop;
    HttpResponse out;
    s.send(method, params, [&](const HttpResponse &r) {
        out = r;
        loop.quit();
    });
    loop.exec();
    return out;
}

QString openSync(McpSession &s)
{
    QEventLoop loop;
    QString out;
    s.open([&](const QString &e) {
        out = e;
        loop.quit();
    });
    loop.exec();
    return out;
}

} // namespace chat2sbx::bench
