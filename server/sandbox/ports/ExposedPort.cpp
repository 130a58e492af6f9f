#include "sandbox/ports/ExposedPort.h"

#include <QHostAddress>

namespace chat2sbx {

QString exposedPortUrl(const QString &hostIp, int hostPort)
{
    const QString host = hostIp.isEmpty() || hostIp == QLatin1String("0.0.0.0") ? QStringLiteral("127.0.0.1") : hostIp;
    return QStringLiteral("http://%1:%2/").arg(host).arg(hostPort);
}

bool isLanWide(const QString &hostIp)
{
    const QHostAddress a(hostIp);
    return !a.isNull() && !a.isLoopback();
}

bool checkExposeHost(const QString &host, bool allowLan, QString &normalized, QString &error)
{
    const QString h = host.trimmed();
    if (h.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0) {
        normalized = QStringLiteral("127.0.0.1");
        return true;
    }
    const QHostAddress a(h);
    if (a.isNull() || a.protocol() != QAbstractSocket::IPv4Protocol) {
        error = QStringLiteral("host must be an IPv4 address such as 127.0.0.1 (the default) or 0.0.0.0; got \"%1\"")
                    .arg(h.left(64));
        return false;
    }
    normalized = a.toString();
    if (!a.isLoopback() && !allowLan) {
        error = QStringLiteral("publishing on %1 would open the sandbox's port to other machines on the network; "
                               "the user must allow that first (config exposeAllowLan: true, or "
                               "CHAT2SBX_EXPOSE_ALLOW_LAN=1). Omit host to publish on 127.0.0.1 (this machine only).")
                    .arg(normalized);
        return false;
    }
    return true;
}

} // namespace chat2sbx
