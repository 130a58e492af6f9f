#include "mcp_http_client.h"

#include "TestSupport.h"

#include <QBuffer>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace chat2sbx::test {

QByteArray McpHttpReply::header(const QByteArray &name) const
{
    for (const auto &h : headers)
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    return {};
}

McpHttpClient::McpHttpClient(const QString &url) : m_url(url)
{
    m_nam.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

std::shared_ptr<McpHttpReply> McpHttpClient::sendAsync(const QByteArray &verb, const QByteArray &body, const RawHeaders &headers,
                                                       bool defaults, const QString &url)
{
    QNetworkRequest req(QUrl(url.isEmpty() ? m_url : url));
    req.setTransferTimeout(60000);
    if (defaults) {
        req.setRawHeader("Accept", "application/json, text/event-stream");
        if (verb == "POST")
            req.setRawHeader("Content-Type", "application/json");
        if (!sessionId.isEmpty())
            req.setRawHeader("Mcp-Session-Id", sessionId.toLatin1());
        if (!protocolVersion.isEmpty())
            req.setRawHeader("MCP-Protocol-Version", protocolVersion.toLatin1());
    }
    for (const auto &h : headers)
        req.setRawHeader(h.first, h.second);
    auto result = std::make_shared<McpHttpReply>();
    auto *timer = new QElapsedTimer;
    timer->start();
    QNetworkReply *reply = body.isEmpty() && verb != "POST" ? m_nam.sendCustomRequest(req, verb)
                                                            : m_nam.sendCustomRequest(req, verb, body);
    m_inFlight.append({result, reply});
    QObject::connect(reply, &QNetworkReply::finished, reply, [reply, result, timer] {
        result->elapsedMs = timer->elapsed();
        delete timer;
        result->status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (reply->isOpen())
            result->body = reply->readAll();
        result->headers = reply->rawHeaderPairs();
        if (reply->error() != QNetworkReply::NoError && result->status == 0)
            result->networkError = reply->errorString();
        result->json = QJsonDocument::fromJson(result->body).object();
        result->done = true;
        reply->deleteLater();
    });
    return result;
}

McpHttpReply McpHttpClient::send(const QByteArray &verb, const QByteArray &body, const RawHeaders &headers, bool defaults,
                                 const QString &url)
{
    auto r = sendAsync(verb, body, headers, defaults, url);
    waitForReply(r, 30000);
    return *r;
}

QJsonObject McpHttpClient::requestMessage(const QString &method, const QJsonObject &params, const QJsonValue &id)
{
    QJsonObject m{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                  {QStringLiteral("id"), id.isUndefined() || id.isNull() ? QJsonValue(m_nextId++) : id},
                  {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        m.insert(QStringLiteral("params"), params);
    return m;
}

std::shared_ptr<McpHttpReply> McpHttpClient::requestAsync(const QString &method, const QJsonObject &params, const QJsonValue &id)
{
    return sendAsync("POST", QJsonDocument(requestMessage(method, params, id)).toJson(QJsonDocument::Compact));
}

McpHttpReply McpHttpClient::request(const QString &method, const QJsonObject &params, const QJsonValue &id)
{
    auto r = requestAsync(method, params, id);
    waitForReply(r, 30000);
    return *r;
}

McpHttpReply McpHttpClient::notify(const QString &method, const QJsonObject &params)
{
    QJsonObject m{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        m.insert(QStringLiteral("params"), params);
    return send("POST", QJsonDocument(m).toJson(QJsonDocument::Compact));
}

std::shared_ptr<McpHttpReply> McpHttpClient::callToolAsync(const QString &name, const QJsonObject &arguments, const QJsonValue &id)
{
    return requestAsync(QStringLiteral("tools/call"),
                        {{QStringLiteral("name"), name}, {QStringLiteral("arguments"), arguments}}, id);
}

McpHttpReply McpHttpClient::callTool(const QString &name, const QJsonObject &arguments)
{
    auto r = callToolAsync(name, arguments);
    waitForReply(r, 30000);
    return *r;
}

McpHttpReply McpHttpClient::initialize(const QString &version)
{
    sessionId.clear();
    protocolVersion.clear();
    const McpHttpReply r = request(QStringLiteral("initialize"),
                                   {{QStringLiteral("protocolVersion"), version},
                                    {QStringLiteral("capabilities"), QJsonObject{}},
                                    {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("qt-test")},
                                                                               {QStringLiteral("version"), QStringLiteral("1")}}}});
    if (r.status == 200) {
        sessionId = QString::fromLatin1(r.header("Mcp-Session-Id"));
        protocolVersion = r.result().value(QStringLiteral("protocolVersion")).toString();
        notify(QStringLiteral("notifications/initialized"));
    }
    return r;
}

void McpHttpClient::abort(const std::shared_ptr<McpHttpReply> &reply)
{
    for (const auto &p : m_inFlight)
        if (p.first.lock() == reply && p.second)
            p.second->abort();
}

bool waitForReply(const std::shared_ptr<McpHttpReply> &reply, int timeoutMs)
{
    return waitFor([reply] { return reply->done; }, timeoutMs);
}

} // namespace chat2sbx::test
