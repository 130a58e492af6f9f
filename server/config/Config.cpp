#include "config/Config.h"

#include <QHostAddress>

namespace chat2sbx {

QString Config::mcpUrl() const
{
    const QString h = host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(host) : host;
    return QStringLiteral("http://%1:%2/mcp").arg(h).arg(port);
}

QString Config::templateRef() const
{
    return QStringLiteral("%1:%2").arg(templateName, QStringLiteral(CHAT2SBX_VERSION));
}

bool Config::isLoopbackBind() const
{
    if (host == QLatin1String("localhost"))
        return true;
    QHostAddress addr(host);
    return !addr.isNull() && addr.isLoopback();
}

} // namespace chat2sbx
