#pragma once
// A minimal Streamable HTTP MCP client (JSON responses) over TestSupport's httpRequest(), for
// integration tests that drive a real `chat2sbx serve`. Header-only.

#include "TestSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace chat2sbx::test {

class SimpleMcpClient {
public:
    explicit SimpleMcpClient(const QString &url, const QString &clientName = QStringLiteral("integration-test"))
        : m_url(url), m_clientName(clientName)
    {
    }

    bool initialize()
    {
        const HttpResult r = post(QJsonObject{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                                              {"params", QJsonObject{{"protocolVersion", "2025-06-18"},
                                                                     {"capabilities", QJsonObject{}},
                                                                     {"clientInfo", QJsonObject{{"name", m_clientName}, {"version", "1"}}}}}});
        if (r.status != 200)
            return false;
        m_session = r.header("Mcp-Session-Id");
        m_version = QJsonDocument::fromJson(r.body).object().value("result").toObject().value("protocolVersion").toString().toLatin1();
        post(QJsonObject{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
        return !m_session.isEmpty();
    }
    QStringList toolNames()
    {
        QStringList names;
        for (const QJsonValue &t : rpc("tools/list", {}).value("tools").toArray())
            names << t.toObject().value("name").toString();
        return names;
    }
    // The CallToolResult: {content, structuredContent, isError}.
    QJsonObject callTool(const QString &name, const QJsonObject &args, int timeoutMs = 120000)
    {
        return rpc("tools/call", QJsonObject{{"name", name}, {"arguments", args}}, timeoutMs);
    }
    // The text of an isError result (its first content block), or the structured content as JSON.
    static QString describe(const QJsonObject &result)
    {
        return QString::fromUtf8(QJsonDocument(result).toJson(QJsonDocument::Compact)).left(1500);
    }

private:
    QJsonObject rpc(const QString &method, const QJsonObject &params, int timeoutMs = 60000)
    {
        const HttpResult r = post(QJsonObject{{"jsonrpc", "2.0"}, {"id", ++m_id}, {"method", method}, {"params", params}}, timeoutMs);
        return QJsonDocument::fromJson(r.body).object().value("result").toObject();
    }
    HttpResult post(const QJsonObject &message, int timeoutMs = 60000)
    {
        QList<QPair<QByteArray, QByteArray>> headers{{"Accept", "application/json, text/event-stream"},
                                                      {"Content-Type", "application/json"}};
        if (!m_session.isEmpty())
            headers.append({"Mcp-Session-Id", m_session});
        if (!m_version.isEmpty())
            headers.append({"MCP-Protocol-Version", m_version});
        return httpRequest("POST", m_url, headers, QJsonDocument(message).toJson(QJsonDocument::Compact), timeoutMs);
    }

    QString m_url;
    QString m_clientName;
    QByteArray m_session;
    QByteArray m_version;
    int m_id = 1;
};

} // namespace chat2sbx::test
