#include "tray_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QJsonDocument>
#include <QPixmap>
#include <QWidget>

namespace chat2sbx::test {

namespace {
const QByteArray kProtocol = "2025-06-18";
}

HttpResult TrayMcpClient::post(const QJsonObject &message, int timeoutMs)
{
    QList<QPair<QByteArray, QByteArray>> headers{{"Accept", "application/json, text/event-stream"},
                                                 {"Content-Type", "application/json"}};
    if (!m_session.isEmpty()) {
        headers.append({"Mcp-Session-Id", m_session.toLatin1()});
        headers.append({"MCP-Protocol-Version", kProtocol});
    }
    return httpRequest("POST", m_url, headers, QJsonDocument(message).toJson(QJsonDocument::Compact), timeoutMs);
}

bool TrayMcpClient::initialize(QString &error)
{
    const HttpResult r = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                          {QStringLiteral("id"), m_nextId++},
                                          {QStringLiteral("method"), QStringLiteral("initialize")},
                                          {QStringLiteral("params"), QJsonObject{
                                               {QStringLiteral("protocolVersion"), QString::fromLatin1(kProtocol)},
                                               {QStringLiteral("capabilities"), QJsonObject{}},
                                               {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("tst_tray")},
                                                                                          {QStringLiteral("version"), QStringLiteral("1")}}}}}},
                              10000);
    if (r.status != 200) {
        error = QStringLiteral("initialize: HTTP %1 %2 %3").arg(r.status).arg(r.error, QString::fromUtf8(r.body));
        return false;
    }
    m_session = QString::fromLatin1(r.header("Mcp-Session-Id"));
    const HttpResult n = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                          {QStringLiteral("method"), QStringLiteral("notifications/initialized")}},
                              10000);
    if (n.status != 202) {
        error = QStringLiteral("notifications/initialized: HTTP %1").arg(n.status);
        return false;
    }
    return true;
}

QJsonObject TrayMcpClient::callTool(const QString &name, const QJsonObject &arguments, int timeoutMs)
{
    const HttpResult r = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                          {QStringLiteral("id"), m_nextId++},
                                          {QStringLiteral("method"), QStringLiteral("tools/call")},
                                          {QStringLiteral("params"), QJsonObject{{QStringLiteral("name"), name},
                                                                                 {QStringLiteral("arguments"), arguments}}}},
                              timeoutMs);
    const QJsonObject body = QJsonDocument::fromJson(r.body).object();
    if (r.status != 200 || !body.contains(QStringLiteral("result")))
        return QJsonObject{{QStringLiteral("transportError"),
                            QStringLiteral("HTTP %1 %2 %3").arg(r.status).arg(r.error, QString::fromUtf8(r.body))}};
    return body.value(QStringLiteral("result")).toObject();
}

QString saveScreenshot(QWidget &widget, const QString &name)
{
    const QString base = binaryDir().isEmpty() ? QDir::currentPath() : binaryDir();
    const QString dir = base + QStringLiteral("/test-output/screenshots");
    QDir().mkpath(dir);
    const QString path = dir + QLatin1Char('/') + name + QStringLiteral(".png");
    settleWidgets();   // the popup refits to its content on the next event loop pass
    const bool ok = widget.grab().save(path);
    qInfo().noquote() << "screenshot:" << path << (ok ? "" : "(could not save)");
    return ok ? path : QString();
}

void settleWidgets()
{
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

} // namespace chat2sbx::test
