#include "McpProbe.h"

#include <QJsonDocument>
#include <QJsonValue>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace faketunnel {
namespace {

constexpr int kProbeTimeoutMs = 2000;
constexpr int kBodyExcerpt = 200;

const QByteArray kInitializeBody =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},)"
    R"("clientInfo":{"name":"tunnel-client-fake","version":"0"}}})";
const QByteArray kInitializedBody = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

bool visibleAscii(const QByteArray &s)
{
    for (const char c : s) {
        if (c < 0x21 || c > 0x7e)
            return false;
    }
    return !s.isEmpty();
}

QString excerpt(const QByteArray &body)
{
    QString text = QString::fromUtf8(body.left(kBodyExcerpt)).simplified();
    if (body.size() > kBodyExcerpt)
        text += QStringLiteral("...");
    return text;
}

} // namespace

McpProbe::McpProbe(const QUrl &url, const QList<HttpHeader> &headers, QObject *parent)
    : QObject(parent), m_url(url), m_headers(headers)
{
    // The MCP server is local; Go's client skips proxies for loopback too.
    m_nam.setProxy(QNetworkProxy::NoProxy);
    m_deadline.setSingleShot(true);
    m_deadline.setInterval(kProbeTimeoutMs);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        dropReply();
        emit timedOut();
    });
}

McpProbe::~McpProbe() { dropReply(); }

QNetworkRequest McpProbe::request() const
{
    QNetworkRequest req(m_url);
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    req.setRawHeader("Accept", "application/json, text/event-stream");
    req.setRawHeader("Content-Type", "application/json");
    req.setRawHeader("User-Agent", "oai-tunnel-client/0.0.13-dev (fake)");
    for (const HttpHeader &h : m_headers)
        req.setRawHeader(h.name, h.value);
    return req;
}

void McpProbe::start()
{
    dropReply();
    m_sse = SseReader();
    m_body.clear();
    m_protocolVersion.clear();
    m_sessionId.clear();
    m_deadline.start();
    m_reply = m_nam.post(request(), kInitializeBody);
    connect(m_reply, &QNetworkReply::readyRead, this, &McpProbe::onInitializeData);
    connect(m_reply, &QNetworkReply::finished, this, &McpProbe::onInitializeFinished);
}

void McpProbe::abort()
{
    m_deadline.stop();
    dropReply();
}

void McpProbe::dropReply()
{
    if (!m_reply)
        return;
    QNetworkReply *reply = m_reply;
    m_reply = nullptr;
    disconnect(reply, nullptr, this, nullptr);
    reply->abort();
    reply->deleteLater();
}

int McpProbe::httpStatus() const
{
    return m_reply ? m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() : 0;
}

bool McpProbe::isEventStream() const
{
    const QByteArray type = m_reply ? m_reply->rawHeader("Content-Type").toLower() : QByteArray();
    return type.startsWith("text/event-stream");
}

void McpProbe::onInitializeData()
{
    const QByteArray chunk = m_reply->readAll();
    if (httpStatus() != 200 || !isEventStream()) {
        m_body += chunk;
        return;
    }
    // An SSE answer may stay open after the response; act on the response as soon as it arrives.
    for (const QByteArray &data : m_sse.feed(chunk)) {
        const QJsonDocument doc = QJsonDocument::fromJson(data);
        const QJsonObject msg = doc.object();
        if (msg.value(QStringLiteral("id")) == QJsonValue(1)
            && (msg.contains(QStringLiteral("result")) || msg.contains(QStringLiteral("error")))) {
            handleInitializeMessage(msg);
            return;
        }
    }
}

void McpProbe::onInitializeFinished()
{
    if (!m_reply)
        return;
    const int status = httpStatus();
    if (status == 0) {
        const bool refused = m_reply->error() == QNetworkReply::ConnectionRefusedError;
        fail(QStringLiteral("POST initialize: %1%2").arg(m_reply->errorString(),
                                                         refused ? QStringLiteral(" (connect: connection refused)") : QString()),
             refused);
        return;
    }
    m_body += m_reply->readAll();
    if (status != 200) {
        fail(QStringLiteral("POST initialize: HTTP %1 %2").arg(status).arg(excerpt(m_body)).trimmed());
        return;
    }
    if (isEventStream()) {
        for (const QByteArray &data : m_sse.finish()) {
            const QJsonObject msg = QJsonDocument::fromJson(data).object();
            if (msg.value(QStringLiteral("id")) == QJsonValue(1)) {
                handleInitializeMessage(msg);
                return;
            }
        }
        QString why = QStringLiteral("initialize: event stream ended without a response to id 1");
        if (m_reply->error() != QNetworkReply::NoError)
            why += QStringLiteral(" (%1)").arg(m_reply->errorString());
        fail(why);
        return;
    }
    const QByteArray type = m_reply->rawHeader("Content-Type").toLower();
    if (!type.startsWith("application/json")) {
        fail(QStringLiteral("initialize: unexpected Content-Type \"%1\"").arg(QString::fromLatin1(type)));
        return;
    }
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(m_body, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        fail(QStringLiteral("initialize: response is not a JSON object: %1").arg(excerpt(m_body)));
        return;
    }
    handleInitializeMessage(doc.object());
}

void McpProbe::handleInitializeMessage(const QJsonObject &message)
{
    if (message.value(QStringLiteral("jsonrpc")).toString() != QLatin1String("2.0")) {
        fail(QStringLiteral("initialize: response is not JSON-RPC 2.0"));
        return;
    }
    if (message.contains(QStringLiteral("error"))) {
        const QJsonObject e = message.value(QStringLiteral("error")).toObject();
        fail(QStringLiteral("initialize: JSON-RPC error %1: %2")
                 .arg(e.value(QStringLiteral("code")).toInt())
                 .arg(e.value(QStringLiteral("message")).toString()));
        return;
    }
    const QString version = message.value(QStringLiteral("result")).toObject()
                                .value(QStringLiteral("protocolVersion")).toString();
    if (version.isEmpty()) {
        fail(QStringLiteral("initialize: result has no protocolVersion"));
        return;
    }
    const QByteArray session = m_reply->rawHeader("Mcp-Session-Id");
    if (session.isEmpty()) {
        fail(QStringLiteral("initialize: response has no Mcp-Session-Id header"));
        return;
    }
    if (!visibleAscii(session)) {
        fail(QStringLiteral("initialize: Mcp-Session-Id is not visible ASCII"));
        return;
    }
    m_protocolVersion = version;
    m_sessionId = session;
    dropReply();

    QNetworkRequest req = request();
    req.setRawHeader("Mcp-Session-Id", m_sessionId);
    req.setRawHeader("MCP-Protocol-Version", m_protocolVersion.toUtf8());
    m_reply = m_nam.post(req, kInitializedBody);
    connect(m_reply, &QNetworkReply::finished, this, &McpProbe::onInitializedFinished);
}

void McpProbe::onInitializedFinished()
{
    if (!m_reply)
        return;
    const int status = httpStatus();
    if (status == 0) {
        fail(QStringLiteral("POST notifications/initialized: %1").arg(m_reply->errorString()));
        return;
    }
    if (status != 202 && status != 204) {
        fail(QStringLiteral("POST notifications/initialized: HTTP %1, expected 202 or 204").arg(status));
        return;
    }
    dropReply();
    m_deadline.stop();
    // Closing the go-sdk client session sends DELETE with the session id; its answer does not matter.
    QNetworkRequest del = request();
    del.setRawHeader("Mcp-Session-Id", m_sessionId);
    del.setRawHeader("MCP-Protocol-Version", m_protocolVersion.toUtf8());
    QNetworkReply *closing = m_nam.deleteResource(del);
    connect(closing, &QNetworkReply::finished, closing, &QObject::deleteLater);
    emit succeeded(m_protocolVersion, m_sessionId);
}

void McpProbe::fail(const QString &reason, bool retryable)
{
    m_deadline.stop();
    dropReply();
    emit failed(reason, retryable);
}

} // namespace faketunnel
