#pragma once

#include <QString>

namespace chat2sbx {

// How a published port is shown: the URL a user opens and whether other machines can reach it.
// 0.0.0.0 is opened locally through 127.0.0.1; any address other than loopback is LAN-wide.
QString exposedPortUrl(const QString &hostIp, int hostPort);
bool isLanWide(const QString &hostIp);

// Checks a `host` argument of sandbox_expose: an IPv4 address ("localhost" = 127.0.0.1), which
// must be loopback unless `allowLan`. On success `normalized` is the address to publish on.
bool checkExposeHost(const QString &host, bool allowLan, QString &normalized, QString &error);

} // namespace chat2sbx
