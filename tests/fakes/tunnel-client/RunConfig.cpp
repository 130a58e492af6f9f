#include "RunConfig.h"

#include "Secrets.h"

#include <QFile>
#include <QFileInfo>
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
    cfg->logFile = flagOrEnv(flags, QStringLiteral("log.file"), env, QStringLiteral("LOG_FILE"));
    QString format = flagOrEnv(flags, QStringLiteral("log.format"), env, QStringLiteral("LOG_FORMAT"));
    const bool explicitFormat = !format.isEmpty();
    if (format.isEmpty() && !cfg->logFile.isEmpty())
        format = QStringLiteral("struct-text");   // a log file implies the structured text format
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
    if (level.compare(QLatin1String("info"), Qt::CaseInsensitive) != 0 && !explicitFormat) {
        *error = QStringLiteral("log level requires 'struct-text' or 'json' log format");
        return false;
    }
    cfg->logFormat = fmt.isEmpty() ? LogFormat::Unset : fmt == QLatin1String("json") ? LogFormat::Json : LogFormat::StructText;
    return true;
}

// pkg/runtimeconfig/profile.go ResolveConfigSource: flags first, then TUNNEL_CLIENT_CONFIG,
// TUNNEL_CLIENT_PROFILE (in the profile directory), TUNNEL_CLIENT_PROFILE_FILE. The file must be readable.
bool buildConfigSource(const FlagSet &flags, const QProcessEnvironment &env, RunConfig *cfg, QString *error)
{
    auto pick = [&](const char *flag, const char *var) {
        const QString f = flags.value(QLatin1String(flag)).trimmed();
        return !f.isEmpty() ? f : env.value(QLatin1String(var)).trimmed();
    };
    const QString config = pick("config", "TUNNEL_CLIENT_CONFIG");
    const QString profile = pick("profile", "TUNNEL_CLIENT_PROFILE");
    const QString profileFile = pick("profile-file", "TUNNEL_CLIENT_PROFILE_FILE");
    if ((!config.isEmpty()) + (!profile.isEmpty()) + (!profileFile.isEmpty()) > 1) {
        *error = QStringLiteral("TUNNEL_CLIENT_CONFIG, TUNNEL_CLIENT_PROFILE and TUNNEL_CLIENT_PROFILE_FILE are mutually exclusive");
        return false;
    }
    QString path = !config.isEmpty() ? config : profileFile;
    if (!profile.isEmpty()) {
        static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
        if (!name.match(profile).hasMatch()) {
            *error = QStringLiteral("invalid profile name \"%1\": use letters, numbers, '.', '_' or '-'").arg(profile);
            return false;
        }
        QString dir = pick("profile-dir", "TUNNEL_CLIENT_PROFILE_DIR");
        if (dir.isEmpty() && !env.value(QStringLiteral("XDG_CONFIG_HOME")).trimmed().isEmpty())
            dir = env.value(QStringLiteral("XDG_CONFIG_HOME")).trimmed() + QStringLiteral("/tunnel-client");
        if (dir.isEmpty())
            dir = env.value(QStringLiteral("HOME")).trimmed() + QStringLiteral("/.config/tunnel-client");
        path = dir + QLatin1Char('/') + profile + QStringLiteral(".yaml");
    }
    if (path.isEmpty())
        return true;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("read config file %1: open %1: %2").arg(path,
                     QFileInfo::exists(path) ? QStringLiteral("permission denied") : QStringLiteral("no such file or directory"));
        return false;
    }
    cfg->configFile = path;
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

bool buildApiKey(const FlagSet &flags, const QProcessEnvironment &env, RunConfig *cfg, QString *error)
{
    const QString flag = QStringLiteral("control-plane.api-key");
    if (flags.isSet(flag) && !flags.value(flag).isEmpty()) {
        const Secret secret = resolveApiKeyFlag(flags.value(flag), env);
        if (!secret.ok) {
            *error = secret.error;
            return false;
        }
        if (secret.kind == Secret::Kind::Literal) {
            *error = QStringLiteral("invalid control-plane.api-key: value must be prefixed with \"env:\" or \"file:\"");
            return false;
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
    // MCP_COMMAND (or --mcp.command) binds a stdio server to channel main unless it names another.
    QStringList commands = flags.values(QStringLiteral("mcp.command"));
    if (commands.isEmpty() && !env.value(QStringLiteral("MCP_COMMAND")).trimmed().isEmpty())
        commands << env.value(QStringLiteral("MCP_COMMAND")).trimmed();
    for (const QString &command : std::as_const(commands)) {
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("(?:^|,)\\s*channel\\s*=\\s*([^,]+)")).match(command);
        const QString channel = m.hasMatch() ? m.captured(1).trimmed().toLower() : QStringLiteral("main");
        if (channel == QLatin1String("main") && !mainUrl.isEmpty()) {
            *error = QStringLiteral("mcp config: duplicate channel \"main\" from mcp.command (http_streamable already configured)");
            return false;
        }
    }
    if (mainUrl.isEmpty()) {
        *error = commands.isEmpty() ? QStringLiteral("MCP server URL is required; set --mcp.server-url or MCP_SERVER_URL")
                                    : QStringLiteral("the fake does not run stdio MCP servers (--mcp.command / MCP_COMMAND)");
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

bool buildStartupWait(const FlagSet &flags, const QProcessEnvironment &env, RunConfig *cfg, QString *error)
{
    const QString raw = flagOrEnv(flags, QStringLiteral("mcp.startup-wait-timeout"), env,
                                  QStringLiteral("MCP_STARTUP_WAIT_TIMEOUT"), QStringLiteral("0s"));
    if (!parseGoDuration(raw, &cfg->startupWaitMs)) {
        *error = QStringLiteral("invalid mcp.startup-wait-timeout: time: invalid duration \"%1\"").arg(raw);
        return false;
    }
    if (cfg->startupWaitMs < 0) {
        *error = QStringLiteral("mcp.startup-wait-timeout must not be negative");
        return false;
    }
    return true;
}

} // namespace

bool parseGoDuration(const QString &text, qint64 *ms)
{
    QString s = text.trimmed();
    bool negative = false;
    if (s.startsWith(QLatin1Char('-')) || s.startsWith(QLatin1Char('+'))) {
        negative = s.startsWith(QLatin1Char('-'));
        s = s.mid(1);
    }
    if (s == QLatin1String("0")) {
        *ms = 0;
        return true;
    }
    static const QRegularExpression part(QStringLiteral("^([0-9]*\\.?[0-9]+)(ns|us|ms|s|m|h)"));
    double total = 0;
    if (s.isEmpty())
        return false;
    while (!s.isEmpty()) {
        const QRegularExpressionMatch m = part.match(s);
        if (!m.hasMatch())
            return false;
        const double value = m.captured(1).toDouble();
        const QString unit = m.captured(2);
        const double factor = unit == QLatin1String("h") ? 3600000.0 : unit == QLatin1String("m") ? 60000.0
                            : unit == QLatin1String("s") ? 1000.0 : unit == QLatin1String("ms") ? 1.0
                            : unit == QLatin1String("ns") ? 1e-6 : 1e-3;
        total += value * factor;
        s = s.mid(m.capturedLength());
    }
    if (total > 1e12)
        return false;
    *ms = static_cast<qint64>(negative ? -total : total);
    return true;
}

ConfigOutcome buildRunConfig(const FlagSet &flags, const QProcessEnvironment &env)
{
    ConfigOutcome out;
    RunConfig &cfg = out.config;
    out.ok = buildConfigSource(flags, env, &cfg, &out.error)
             && buildLogging(flags, env, &cfg, &out.error)
             && buildTunnelId(flags, env, &cfg, &out.error)
             && buildApiKey(flags, env, &cfg, &out.error)
             && buildMcpUrl(flags, env, &cfg, &out.error)
             && appendHeaders(flags, QStringLiteral("mcp.extra-headers"), env, QStringLiteral("MCP_EXTRA_HEADERS"),
                              &cfg.probeHeaders, &out.error)
             && appendHeaders(flags, QStringLiteral("mcp.discovery-extra-headers"), env,
                              QStringLiteral("MCP_DISCOVERY_EXTRA_HEADERS"), &cfg.probeHeaders, &out.error)
             && buildStartupWait(flags, env, &cfg, &out.error)
             && buildHealth(flags, env, &cfg, &out.error);
    for (const QString &name : flags.ignoredFlagsUsed())
        out.warnings << QStringLiteral("ignoring --%1 (accepted, not emulated by the fake)").arg(name);
    return out;
}

} // namespace faketunnel
