#pragma once

// For the tray integration tests: a minimal synchronous MCP client over real HTTP (test::httpRequest
// runs a local event loop, so the in-process Controller answers meanwhile) and popup screenshots.
#include "TestSupport.h"

#include <QJsonObject>
#include <QString>

class QWidget;

namespace chat2sbx::test {

class TrayMcpClient {
public:
    explicit TrayMcpClient(const QString &url) : m_url(url) {}
    // initialize + notifications/initialized; false with `error` set on failure.
    bool initialize(QString &error);
    // tools/call; returns the CallToolResult ("structuredContent", "isError", "content"), or an
    // object {"transportError": "..."} when the exchange failed.
    QJsonObject callTool(const QString &name, const QJsonObject &arguments, int timeoutMs = 30000);

private:
    HttpResult post(const QJsonObject &message, int timeoutMs);

    QString m_url;
    QString m_session;
    qint64 m_nextId = 1;
};

// <build>/test-output/screenshots/<name>.png; prints and returns the path (empty if it failed).
QString saveScreenshot(QWidget &widget, const QString &name);
// Lets deleteLater'd cards of a previous rebuild go before widgets are looked up.
void settleWidgets();

} // namespace chat2sbx::test
