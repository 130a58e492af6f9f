#include "McpTestClient.h"

#include "TestSupport.h"

#include <QBuffer>
#include <QJsonArray>
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

McpTestClient::McpTestClient(const QString &url, const QString &clientName) : m_url(url), m_clientName(clientName)
{
    m_nam.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

std::shared_ptr<McpHttpReply> McpTestClient::sendAsync(const QByteArray &verb, const QByteArray &body, const RawHeaders &headers,
                                                       bool defaults, const QString &url)
{
    QNetworkRequest req(QUrl(url.isEmpty() ? m_url : url));
    req.setTransferTimeout(scaled(60000));
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

McpHttpReply McpTestClient::send(const QByteArray &verb, const QByteArray &body, const RawHeaders &headers, bool defaults,
                                 const QString &url, int timeoutMs)
{
    auto r = sendAsync(verb, body, headers, defaults, url);
    waitForReply(r, timeoutMs);
    return *r;
}

void McpTestClient::useModernEra(const QJsonObject &capabilities, const QString &conversation)
{
    m_modern = true;
    m_capabilities = capabilities;
    m_conversation = conversation;
    sessionId.clear();
    protocolVersion = QStringLiteral("2026-07-28");
}

QJsonObject McpTestClient::requestMessage(const QString &method, const QJsonObject &params, const QJsonValue &id)
{
    QJsonObject m{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                  {QStringLiteral("id"), id.isUndefined() || id.isNull() ? QJsonValue(m_nextId++) : id},
                  {QStringLiteral("method"), method}};
    QJsonObject p = params;
    if (m_modern) {
        QJsonObject meta = p.value(QStringLiteral("_meta")).toObject();
        meta.insert(QStringLiteral("io.modelcontextprotocol/protocolVersion"), protocolVersion);
        meta.insert(QStringLiteral("io.modelcontextprotocol/clientInfo"),
                    QJsonObject{{QStringLiteral("name"), m_clientName}, {QStringLiteral("version"), QStringLiteral("1")}});
        meta.insert(QStringLiteral("io.modelcontextprotocol/clientCapabilities"), m_capabilities);
        if (!m_conversation.isEmpty() && method == QLatin1String("tools/call"))
            meta.insert(QStringLiteral("openai/session"), m_conversation);
        p.insert(QStringLiteral("_meta"), meta);
    }
    if (!p.isEmpty())
        m.insert(QStringLiteral("params"), p);
    return m;
}

std::shared_ptr<McpHttpReply> McpTestClient::requestAsync(const QString &method, const QJsonObject &params, const QJsonValue &id)
{
    RawHeaders headers;
    if (m_modern) {
        headers.append({QByteArrayLiteral("Mcp-Method"), method.toUtf8()});
        const QJsonValue name = method == QLatin1String("resources/read") ? params.value(QStringLiteral("uri"))
                                                                           : params.value(QStringLiteral("name"));
        if (name.isString() && (method == QLatin1String("tools/call") || method == QLatin1String("resources/read")))
            headers.append({QByteArrayLiteral("Mcp-Name"), name.toString().toUtf8()});
    }
    return sendAsync("POST", QJsonDocument(requestMessage(method, params, id)).toJson(QJsonDocument::Compact), headers);
}

McpHttpReply McpTestClient::request(const QString &method, const QJsonObject &params, const QJsonValue &id)
{
    auto r = requestAsync(method, params, id);
    waitForReply(r, 30000);
    return *r;
}

McpHttpReply McpTestClient::notify(const QString &method, const QJsonObject &params)
{
    QJsonObject m{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        m.insert(QStringLiteral("params"), params);
    return send("POST", QJsonDocument(m).toJson(QJsonDocument::Compact));
}

std::shared_ptr<McpHttpReply> McpTestClient::callToolAsync(const QString &name, const QJsonObject &arguments, const QJsonValue &id)
{
    return requestAsync(QStringLiteral("tools/call"),
                        {{QStringLiteral("name"), name}, {QStringLiteral("arguments"), arguments}}, id);
}

McpHttpReply McpTestClient::callTool(const QString &name, const QJsonObject &arguments)
{
    auto r = callToolAsync(name, arguments);
    waitForReply(r, 30000);
    return *r;
}

McpHttpReply McpTestClient::initialize(const QString &version)
{
    sessionId.clear();
    protocolVersion.clear();
    const McpHttpReply r = request(QStringLiteral("initialize"),
                                   {{QStringLiteral("protocolVersion"), version},
                                    {QStringLiteral("capabilities"), QJsonObject{}},
                                    {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), m_clientName},
                                                                               {QStringLiteral("version"), QStringLiteral("1")}}}});
    if (r.status == 200) {
        sessionId = QString::fromLatin1(r.header("Mcp-Session-Id"));
        protocolVersion = r.result().value(QStringLiteral("protocolVersion")).toString();
        notify(QStringLiteral("notifications/initialized"));
    }
    return r;
}

void McpTestClient::abort(const std::shared_ptr<McpHttpReply> &reply)
{
    for (const auto &p : m_inFlight)
        if (p.first.lock() == reply && p.second)
            p.second->abort();
}

bool McpTestClient::open(QString *error)
{
    const McpHttpReply r = initialize();
    QString why;
    if (r.status != 200)
        why = QStringLiteral("initialize: HTTP %1 %2 %3").arg(r.status).arg(r.networkError, QString::fromUtf8(r.body.left(500)));
    else if (sessionId.isEmpty())
        why = QStringLiteral("initialize: no Mcp-Session-Id header");
    if (!why.isEmpty() && error)
        *error = why;
    return why.isEmpty();
}

QJsonObject McpTestClient::callToolResult(const QString &name, const QJsonObject &arguments, int timeoutMs)
{
    auto r = callToolAsync(name, arguments);
    if (!waitForReply(r, timeoutMs)) {
        abort(r);
        lastBody.clear();
        return {{QStringLiteral("transportError"), QStringLiteral("no answer to tools/call %1 within %2 ms").arg(name).arg(timeoutMs)}};
    }
    lastBody = QString::fromUtf8(r->body);
    if (r->status != 200 || !r->json.contains(QStringLiteral("result")))
        return {{QStringLiteral("transportError"),
                 QStringLiteral("tools/call %1: HTTP %2 %3 %4").arg(name).arg(r->status).arg(r->networkError, QString::fromUtf8(r->body.left(500)))}};
    return r->result();
}

QStringList McpTestClient::toolNames()
{
    QStringList names;
    for (const QJsonValue &t : request(QStringLiteral("tools/list")).result().value(QStringLiteral("tools")).toArray())
        names << t.toObject().value(QStringLiteral("name")).toString();
    return names;
}

QString McpTestClient::describe(const QJsonObject &result)
{
    return QString::fromUtf8(QJsonDocument(result).toJson(QJsonDocument::Compact)).left(1500);
}

bool waitForReply(const std::shared_ptr<McpHttpReply> &reply, int timeoutMs)
{
    return waitFor([reply] { return reply->done; }, timeoutMs);
}

} // namespace chat2sbx::test
