#include "tunnel/TunnelClientLaunch.h"

#include <QFileInfo>
#include <QHostAddress>

namespace chat2sbx {

QString TunnelClientLaunch::whyNotRunnable(const QString &program)
{
    const QFileInfo info(program);
    if (!info.exists())
        return QStringLiteral("tunnel-client not found at %1 (install it, set CHAT2SBX_TUNNEL_CLIENT, "
                              "or run local-only with CHAT2SBX_ENABLE_TUNNEL=0)").arg(program);
    if (!info.isFile() || !info.isExecutable())
        return QStringLiteral("%1 is not an executable file (CHAT2SBX_TUNNEL_CLIENT)").arg(program);
    return {};
}

QString TunnelClientLaunch::mcpUrlFor(const QString &listenHost, quint16 port)
{
    QString host = listenHost;
    const QHostAddress address(host);
    if (host == QLatin1String("localhost") || address == QHostAddress::AnyIPv4 || address == QHostAddress::Any
        || address == QHostAddress::AnyIPv6)
        host = QStringLiteral("127.0.0.1");
    else if (host.contains(QLatin1Char(':')))
        host = QStringLiteral("[%1]").arg(host);
    return QStringLiteral("http://%1:%2/mcp").arg(host).arg(port);
}

const QString TunnelClientLaunch::keyVariable = QStringLiteral("CHAT2SBX_TUNNEL_KEY");
const QString TunnelClientLaunch::localTokenVariable = QStringLiteral("CHAT2SBX_LOCAL_TOKEN");

namespace {

const char *const kAlwaysPassed[] = {
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR",
    "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR",
};

// Prefixes of the client's own settings (pkg/runtimeconfig/config.go env fallbacks) and of ours.
const char *const kReservedPrefixes[] = {
    "MCP_", "CONTROL_PLANE_", "TUNNEL_CLIENT_", "LOG_", "HEALTH_", "OPENAI_", "CLOUDFLARED_", "HARPOON_",
    "ADMIN_UI_", "EMBEDDED_MCP_", "PID_", "CHAT2SBX_",
};

} // namespace

bool TunnelClientLaunch::isReservedName(const QString &name)
{
    for (const char *prefix : kReservedPrefixes)
        if (name.startsWith(QLatin1String(prefix)))
            return true;
    return name == QLatin1String("CA_BUNDLE") || name == QLatin1String("HTTP_PROXY_URL");
}

QString TunnelClientLaunch::goDuration(qint64 ms)
{
    return ms % 1000 == 0 ? QStringLiteral("%1s").arg(ms / 1000) : QStringLiteral("%1ms").arg(ms);
}

QStringList TunnelClientLaunch::runArguments() const
{
    QStringList args{
        QStringLiteral("run"),
        QStringLiteral("--control-plane.tunnel-id=%1").arg(tunnelId),
        QStringLiteral("--control-plane.api-key=env:%1").arg(keyVariable),
        QStringLiteral("--mcp.server-url=%1").arg(mcpServerUrl),
        QStringLiteral("--health.listen-addr=127.0.0.1:0"),
        QStringLiteral("--health.url-file=%1").arg(healthUrlFile),
        QStringLiteral("--log.level=info"),
        // JSON lines: the supervisor reads poll failures (status_code) and errors from them.
        QStringLiteral("--log.format=json"),
    };
    if (startupWaitMs > 0)
        args << QStringLiteral("--mcp.startup-wait-timeout=%1").arg(goDuration(startupWaitMs));
    if (!localTokenHeader.isEmpty())
        args << QStringLiteral("--mcp.extra-headers") << QStringLiteral("%1: env:%2").arg(localTokenHeader, localTokenVariable);
    return args;
}

QStringList TunnelClientLaunch::doctorArguments() const
{
    QStringList args{
        QStringLiteral("doctor"),
        QStringLiteral("--explain"),
        QStringLiteral("--control-plane.tunnel-id=%1").arg(tunnelId),
        QStringLiteral("--control-plane.api-key=env:%1").arg(keyVariable),
        QStringLiteral("--mcp.server-url=%1").arg(mcpServerUrl),
        QStringLiteral("--health.listen-addr=127.0.0.1:0"),
    };
    if (!localTokenHeader.isEmpty())
        args << QStringLiteral("--mcp.extra-headers") << QStringLiteral("%1: env:%2").arg(localTokenHeader, localTokenVariable);
    return args;
}

QProcessEnvironment TunnelClientLaunch::environment(const QProcessEnvironment &parent, const QStringList &extra,
                                                    const QString &key, const QString &localToken, QStringList *refused)
{
    QProcessEnvironment env;
    const QStringList names = parent.keys();
    for (const char *name : kAlwaysPassed)
        if (parent.contains(QLatin1String(name)))
            env.insert(QLatin1String(name), parent.value(QLatin1String(name)));
    for (const QString &name : names)
        if (name.startsWith(QLatin1String("LC_")))
            env.insert(name, parent.value(name));
    for (QString pattern : extra) {
        pattern = pattern.trimmed();
        if (pattern.isEmpty())
            continue;
        const bool prefix = pattern.endsWith(QLatin1Char('*'));
        const QString stem = prefix ? pattern.chopped(1) : pattern;
        if (stem.isEmpty())
            continue;   // "*" alone would be the whole environment again
        for (const QString &name : names) {
            if (prefix ? !name.startsWith(stem) : name != stem)
                continue;
            if (isReservedName(name)) {
                if (refused && !refused->contains(name))
                    refused->append(name);
                continue;
            }
            env.insert(name, parent.value(name));
        }
    }
    if (!env.contains(QStringLiteral("PATH")))
        env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    env.insert(keyVariable, key);
    if (!localToken.isEmpty())
        env.insert(localTokenVariable, localToken);
    return env;
}

} // namespace chat2sbx
