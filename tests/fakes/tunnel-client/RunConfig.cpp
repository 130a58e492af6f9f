#include "RunConfig.h"

#include "Secrets.h"

#include <QRegularExpression>

#include <utility>

namespace faketunnel {
namespace {

const char kDefaultHealthAddr[] = "127.0.0.1:8080";

// Flag if given, else the environment variable if non-empty, else fallback.
QString flagOrEnv(const FlagSet &flags, const QString &flag, const QProcessEnvironment &env,
                  const QString &envName, const QString &fallback = QString())
{
    if (flags.isSet(flag) && !flags.value(flag).isEmpty())
        return flags.value(flag);
    const QString fromEnv = env.value(envName);
    return fromEnv.isEmpty() ? fallback : fromEnv;
}

bool buildLogging(const FlagSet &flags, const QProcessEnvironment &env, RunConfig *cfg, QString *error)
{
    const QString level = flagOrEnv(flags, QStringLiteral("log.level"), env, QStringLiteral("LOG_LEVEL"),
                                    QStringLiteral("info"));
    const QString format = flagOrEnv(flags, QStringLiteral("log.format"), env, QStringLiteral("LOG_FORMAT"));
    const QString fmt = format.toLower();
    if (!fmt.isEmpty() && fmt != QLatin1String("struct-text") && fmt != QLatin1String("json")) {
        *error = QStringLiteral("unsupported log format \"%1\": supported formats are \"struct-text\" or \"json\"").arg(format);
        return false;
    }
    if (!parseLogLevel(level, &cfg->logLevel)) {
        *error = QStringLiteral("parse log level \"%1\": unknown name").arg(level);
        return false;
    }
    // The real client refuses a non-default level without an explicit structured format.
    if (level.compare(QLatin1String("info"), Qt::CaseInsensitive) != 0 && fmt.isEmpty()) {
        *error = QStringLiteral("log level requires 'struct-text' or 'json' log format");
        return false;
    }
    cfg->logFormat = fmt;
    return true;
}

bool buildTunnelId(const FlagSet &flags, const QProcessEnvironment &env, RunConfig *cfg, QString *error)
{
    static const QRegularExpression pattern(QStringLiteral("^tunnel_[0-9a-f]{32}$"));
    const QString flag = QStringLiteral("control-plane.tunnel-id");
    const QString id = (flags.isSet(flag) ? flags.value(flag)
                                          : env.value(QStringLiteral("CONTROL_PLANE_TUNNEL_ID"))).trimmed();
    if (id.isEmpty()) {
        *error = QStringLiteral("tunnel ID is required; set --control-plane.tunnel-id or CONTROL_PLANE_TUNNEL_ID");
        return false;
    }
    if (!pattern.match(id).hasMatch()) {
        *error = QStringLiteral("invalid tunnel ID: must match ^tunnel_[0-9a-f]{32}$");
        return false;
    }
    cfg->tunnelId = id;
    return true;
}

bool buildApiKey(const FlagSet &flags, const QProcessEnvironment &env, bool strict, RunConfig *cfg,
                 QStringList *warnings, QString *error)
{
    const QString flag = QStringLiteral("control-plane.api-key");
    if (flags.isSet(flag) && !flags.value(flag).isEmpty()) {
        const Secret secret = resolveApiKeyFlag(flags.value(flag), env);
        if (!secret.ok) {
            *error = secret.error;
            return false;
        }
        if (secret.kind == Secret::Kind::Literal) {
            if (strict) {
                *error = QStringLiteral("invalid control-plane.api-key: value must be prefixed with \"env:\" or \"file:\"");
                return false;
            }
            warnings->append(QStringLiteral("warning: api key passed in clear on the command line; use file: or env:"));
        }
        cfg->apiKey = secret.value;
        cfg->apiKeySource = secret.kind == Secret::Kind::File  ? QStringLiteral("flag:file")
                            : secret.kind == Secret::Kind::Env ? QStringLiteral("flag:env")
                                                               : QStringLiteral("flag:literal");
    } else {
        for (const QString &name : {QStringLiteral("CONTROL_PLANE_API_KEY"), QStringLiteral("OPENAI_API_KEY")}) {
            if (env.contains(name)) {
                cfg->apiKey = env.value(name).toUtf8();
                cfg->apiKeySource = QStringLiteral("env:") + name;
                break;
            }
        }
    }
    const QString shape = checkApiKeyShape(cfg->apiKey);
    if (!shape.isEmpty()) {
        *error = shape;
        return false;
    }
    return true;
}

bool parseServerEntry(const QString &entry, QString *url, QString *channel)
{
    if (entry.startsWith(QLatin1String("http://"), Qt::CaseInsensitive)
        || entry.startsWith(QLatin1String("https://"), Qt::CaseInsensitive) || !entry.contains(QLatin1Char('='))) {
        *url = entry;
        *channel = QStringLiteral("main");
        return true;
    }
    *channel = QStringLiteral("main");
    for (const QString &part : entry.split(QLatin1Char(','))) {
        const int eq = part.indexOf(QLatin1Char('='));
        if (eq <= 0)
            return false;
        const QString key = part.left(eq).trimmed().toLower();
        const QString value = part.mid(eq + 1).trimmed();
        if (key == QLatin1String("url"))
            *url = value;
        else if (key == QLatin1String("channel"))
            *channel = value.toLower();
    }
    return true;
}

bool buildMcpUrl(const FlagSet &flags, const QProcessEnvironment &env, RunConfig *cfg, QString *error)
{
    QStringList entries = flags.values(QStringLiteral("mcp.server-url"));
    if (entries.isEmpty()) {
        for (const QString &line : env.value(QStringLiteral("MCP_SERVER_URL")).split(QRegularExpression(QStringLiteral("[\r\n]")))) {
            if (!line.trimmed().isEmpty())
                entries << line.trimmed();
        }
    }
    QString mainUrl;
    for (const QString &entry : entries) {
        QString url;
        QString channel;
        if (!parseServerEntry(entry.trimmed(), &url, &channel)) {
            *error = QStringLiteral("invalid mcp.server-url entry: expected a URL or url=...,channel=...");
            return false;
        }
        if (channel != QLatin1String("main"))
            continue;
        if (!mainUrl.isEmpty()) {
            *error = QStringLiteral("mcp config: duplicate channel \"main\" from mcp.server-url");
            return false;
        }
        mainUrl = url;
    }
    if (mainUrl.isEmpty()) {
        *error = QStringLiteral("MCP server URL is required; set --mcp.server-url or MCP_SERVER_URL");
        return false;
    }
    const QUrl url(mainUrl, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != QLatin1String("http") && scheme != QLatin1String("https")) || url.host().isEmpty()) {
        *error = QStringLiteral("invalid mcp.server-url \"%1\": need an http(s) URL with a host").arg(mainUrl);
        return false;
    }
    cfg->mcpServerUrl = url;
    return true;
}

bool validHeaderName(const QString &name)
{
    static const QRegularExpression token(QStringLiteral("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"));
    return token.match(name).hasMatch();
}

// Go's http.CanonicalHeaderKey: "x-local-token" -> "X-Local-Token".
QByteArray canonicalHeaderName(const QString &name)
{
    QByteArray out = name.toLatin1().toLower();
    bool upper = true;
    for (char &c : out) {
        if (upper && c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
        upper = c == '-';
    }
    return out;
}

bool appendHeaders(const FlagSet &flags, const QString &flag, const QProcessEnvironment &env, const QString &envName,
                   QList<HttpHeader> *headers, QString *error)
{
    QStringList raw = flags.values(flag);
    if (raw.isEmpty()) {
        for (const QString &part : env.value(envName).split(QRegularExpression(QStringLiteral("[,;]")))) {
            if (!part.trimmed().isEmpty())
                raw << part.trimmed();
        }
    }
    QList<HttpHeader> mine;
    for (const QString &entry : raw) {
        const int colon = entry.indexOf(QLatin1Char(':'));
        if (colon < 0) {
            *error = QStringLiteral("invalid header in --%1: expected 'Key: Value'").arg(flag);
            return false;
        }
        const QString name = entry.left(colon).trimmed();
        const QString value = entry.mid(colon + 1).trimmed();
        if (name.isEmpty()) {
            *error = QStringLiteral("invalid header in --%1: key cannot be empty").arg(flag);
            return false;
        }
        if (!validHeaderName(name)) {
            *error = QStringLiteral("%1 contains invalid HTTP header name \"%2\"").arg(flag, name);
            return false;
        }
        if (value.isEmpty()) {
            *error = QStringLiteral("invalid header value for \"%1\" in --%2: value cannot be empty").arg(name, flag);
            return false;
        }
        const Secret secret = resolveHeaderValue(flag + QLatin1Char('.') + name, value, env);
        if (!secret.ok) {
            *error = secret.error;
            return false;
        }
        const QByteArray canonical = canonicalHeaderName(name);
        bool duplicate = false;
        for (const HttpHeader &h : std::as_const(mine)) {
            if (h.name == canonical) {
                if (h.value != secret.value) {
                    *error = QStringLiteral("%1 contains conflicting values for HTTP header \"%2\"")
                                 .arg(flag, QString::fromLatin1(canonical));
                    return false;
                }
                duplicate = true;
            }
        }
        if (!duplicate)
            mine.append({canonical, secret.value});
    }
    for (const HttpHeader &h : std::as_const(mine)) {
        for (qsizetype i = headers->size() - 1; i >= 0; --i) {
            if (headers->at(i).name == h.name)
                headers->removeAt(i);
        }
        headers->append(h);
    }
    return true;
}

bool buildHealth(const FlagSet &flags, const QProcessEnvironment &env, RunConfig *cfg, QString *error)
{
    const QString addr = flagOrEnv(flags, QStringLiteral("health.listen-addr"), env,
                                   QStringLiteral("HEALTH_LISTEN_ADDR"), QLatin1String(kDefaultHealthAddr));
    cfg->healthUrlFile = flagOrEnv(flags, QStringLiteral("health.url-file"), env, QStringLiteral("HEALTH_URL_FILE"));
    const QString bad = QStringLiteral("invalid health.listen-addr \"%1\": expected host:port").arg(addr);
    QString host;
    QString port;
    if (addr.startsWith(QLatin1Char('['))) {
        const int close = addr.indexOf(QLatin1String("]:"));
        if (close < 0) {
            *error = bad;
            return false;
        }
        host = addr.mid(1, close - 1);
        port = addr.mid(close + 2);
    } else {
        const int colon = addr.lastIndexOf(QLatin1Char(':'));
        if (colon < 0 || addr.indexOf(QLatin1Char(':')) != colon) {
            *error = bad;
            return false;
        }
        host = addr.left(colon);
        port = addr.mid(colon + 1);
    }
    bool ok = false;
    const uint portNumber = port.toUInt(&ok);
    if (!ok || portNumber > 65535) {
        *error = bad;
        return false;
    }
    QHostAddress address;
    if (host.isEmpty())
        address = QHostAddress(QHostAddress::Any);
    else if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        address = QHostAddress(QHostAddress::LocalHost);
    else if (!address.setAddress(host)) {
        *error = bad;
        return false;
    }
    cfg->healthListenAddr = addr;
    cfg->healthHost = address;
    cfg->healthPort = static_cast<quint16>(portNumber);
    return true;
}

} // namespace

ConfigOutcome buildRunConfig(const FlagSet &flags, const QProcessEnvironment &env, bool strictApiKey)
{
    ConfigOutcome out;
    RunConfig &cfg = out.config;
    out.ok = buildLogging(flags, env, &cfg, &out.error)
             && buildTunnelId(flags, env, &cfg, &out.error)
             && buildApiKey(flags, env, strictApiKey, &cfg, &out.warnings, &out.error)
             && buildMcpUrl(flags, env, &cfg, &out.error)
             && appendHeaders(flags, QStringLiteral("mcp.extra-headers"), env, QStringLiteral("MCP_EXTRA_HEADERS"),
                              &cfg.probeHeaders, &out.error)
             && appendHeaders(flags, QStringLiteral("mcp.discovery-extra-headers"), env,
                              QStringLiteral("MCP_DISCOVERY_EXTRA_HEADERS"), &cfg.probeHeaders, &out.error)
             && buildHealth(flags, env, &cfg, &out.error);
    for (const QString &name : flags.ignoredFlagsUsed())
        out.warnings << QStringLiteral("ignoring --%1 (accepted, not emulated by the fake)").arg(name);
    return out;
}

} // namespace faketunnel
