#include "config/ConfigLoader.h"
#include "config/FileHostPatterns.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonArray>

#include <functional>

namespace chat2sbx {
namespace {

enum class Kind { String, Path, Port, Bool, Limit, PositiveInt, SmallCount, List, PathList };

constexpr int kMaxSmallCount = 16;

// One row of the configuration table: the environment name, the config.json key, the kind of value
// and where it lands in Config.
struct Setting {
    const char *env;
    const char *json;
    Kind kind;
    std::function<void(Config &, const QVariant &)> apply;
};

QString expandHome(const QString &value, const QString &home)
{
    if (value == QLatin1String("~"))
        return home;
    if (value.startsWith(QLatin1String("~/")))
        return home + value.mid(1);
    return value;
}

QString kindRule(Kind kind)
{
    switch (kind) {
    case Kind::String: return QStringLiteral("must be a non-empty string");
    case Kind::Path: return QStringLiteral("must be an absolute path (or start with ~/)");
    case Kind::Port: return QStringLiteral("must be an integer from 1 to 65535");
    case Kind::Bool: return QStringLiteral("must be 1/0, true/false, yes/no or on/off");
    case Kind::Limit: return QStringLiteral("must be a positive integer or \"unlimited\"");
    case Kind::PositiveInt: return QStringLiteral("must be a positive integer");
    case Kind::SmallCount: return QStringLiteral("must be an integer from 0 to %1").arg(kMaxSmallCount);
    case Kind::List: return QStringLiteral("must be a comma-separated list");
    case Kind::PathList: return QStringLiteral("must be a colon-separated list of absolute paths");
    }
    return {};
}

// Parses a textual value (environment, or a JSON string). Returns false when it does not fit the kind.
bool parseText(Kind kind, const QString &text, const QString &home, QVariant &out)
{
    const QString v = text.trimmed();
    switch (kind) {
    case Kind::String:
        if (v.isEmpty())
            return false;
        out = v;
        return true;
    case Kind::Path: {
        const QString p = expandHome(v, home);
        if (p.isEmpty() || !QDir::isAbsolutePath(p))
            return false;
        out = QDir::cleanPath(p);
        return true;
    }
    case Kind::Port: {
        bool ok = false;
        const int n = v.toInt(&ok);
        if (!ok || n < 1 || n > 65535)
            return false;
        out = n;
        return true;
    }
    case Kind::Bool: {
        const QString l = v.toLower();
        if (l == QLatin1String("1") || l == QLatin1String("true") || l == QLatin1String("yes") || l == QLatin1String("on"))
            out = true;
        else if (l == QLatin1String("0") || l == QLatin1String("false") || l == QLatin1String("no") || l == QLatin1String("off"))
            out = false;
        else
            return false;
        return true;
    }
    case Kind::Limit: {
        if (v.compare(QLatin1String("unlimited"), Qt::CaseInsensitive) == 0) {
            out = 0;
            return true;
        }
        bool ok = false;
        const int n = v.toInt(&ok);
        if (!ok || n < 1)
            return false;
        out = n;
        return true;
    }
    case Kind::PositiveInt: {
        bool ok = false;
        const qint64 n = v.toLongLong(&ok);
        if (!ok || n < 1)
            return false;
        out = n;
        return true;
    }
    case Kind::SmallCount: {
        bool ok = false;
        const int n = v.toInt(&ok);
        if (!ok || n < 0 || n > kMaxSmallCount)
            return false;
        out = n;
        return true;
    }
    case Kind::List: {
        QStringList items;
        for (const QString &item : v.split(QLatin1Char(','), Qt::SkipEmptyParts))
            items << item.trimmed();
        out = items;
        return true;
    }
    case Kind::PathList: {
        QStringList items;
        for (const QString &item : v.split(QLatin1Char(':'), Qt::SkipEmptyParts)) {
            const QString p = expandHome(item.trimmed(), home);
            if (!QDir::isAbsolutePath(p))
                return false;
            items << QDir::cleanPath(p);
        }
        out = items;
        return true;
    }
    }
    return false;
}

bool parseJson(Kind kind, const QJsonValue &value, const QString &home, QVariant &out)
{
    if (value.isString())
        return parseText(kind, value.toString(), home, out);
    switch (kind) {
    case Kind::Port:
    case Kind::Limit:
    case Kind::PositiveInt:
    case Kind::SmallCount: {
        if (!value.isDouble())
            return false;
        const double d = value.toDouble();
        if (d != static_cast<double>(static_cast<qint64>(d)))
            return false;
        return parseText(kind, QString::number(static_cast<qint64>(d)), home, out);
    }
    case Kind::Bool:
        if (!value.isBool())
            return false;
        out = value.toBool();
        return true;
    case Kind::List:
    case Kind::PathList: {
        if (!value.isArray())
            return false;
        QStringList parts;
        for (const QJsonValue &item : value.toArray()) {
            if (!item.isString())
                return false;
            parts << item.toString();
        }
        return parseText(kind, parts.join(kind == Kind::List ? QLatin1Char(',') : QLatin1Char(':')), home, out);
    }
    default:
        return false;
    }
}

QString shown(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    return value.toVariant().toString();
}

const QList<Setting> &settings()
{
    static const QList<Setting> table = {
        {"CHAT2SBX_HOST", "host", Kind::String, [](Config &c, const QVariant &v) { c.host = v.toString(); }},
        {"CHAT2SBX_PORT", "port", Kind::Port, [](Config &c, const QVariant &v) { c.port = static_cast<quint16>(v.toInt()); }},
        {"CHAT2SBX_STATE_DIR", "stateDir", Kind::Path, [](Config &c, const QVariant &v) { c.stateDir = v.toString(); }},
        {"CHAT2SBX_WORKSPACE_ROOT", "workspaceRoot", Kind::Path, [](Config &c, const QVariant &v) { c.workspaceRoot = v.toString(); }},
        {"CHAT2SBX_DATABASE_PATH", "databasePath", Kind::Path, [](Config &c, const QVariant &v) { c.databasePath = v.toString(); }},
        {"CHAT2SBX_ALLOWED_HOST_ROOTS", "allowedHostRoots", Kind::PathList, [](Config &c, const QVariant &v) { c.allowedHostRoots = v.toStringList(); }},
        {"CHAT2SBX_ENABLE_TUNNEL", "enableTunnel", Kind::Bool, [](Config &c, const QVariant &v) { c.enableTunnel = v.toBool(); }},
        {"CHAT2SBX_TUNNEL_CLIENT", "tunnelClient", Kind::Path, [](Config &c, const QVariant &v) { c.tunnelClient = v.toString(); }},
        {"CHAT2SBX_SECRET_DIR", "secretDir", Kind::Path, [](Config &c, const QVariant &v) { c.secretDir = v.toString(); }},
        {"CHAT2SBX_MAX_ACTIVE_SANDBOXES", "maxActiveSandboxes", Kind::Limit, [](Config &c, const QVariant &v) { c.maxActiveSandboxes = v.toInt(); }},
        {"CHAT2SBX_WARM_SANDBOXES", "warmSandboxes", Kind::SmallCount, [](Config &c, const QVariant &v) { c.warmSandboxes = v.toInt(); }},
        {"CHAT2SBX_SBX", "sbx", Kind::String, [](Config &c, const QVariant &v) { c.sbxPath = v.toString(); }},
        {"CHAT2SBX_SESSION_IDLE_SECONDS", "sessionIdleSeconds", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.sessionIdleSeconds = v.toInt(); }},
        {"CHAT2SBX_SANDBOX_IDLE_SECONDS", "sandboxIdleSeconds", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.sandboxIdleSeconds = v.toLongLong(); }},
        {"CHAT2SBX_SANDBOX_SLEEP_SECONDS", "sandboxSleepSeconds", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.sandboxSleepSeconds = v.toLongLong(); }},
        {"CHAT2SBX_SBX_TIMEOUT_SECONDS", "sbxTimeoutSeconds", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.sbxTimeoutSeconds = static_cast<int>(qMin<qint64>(v.toLongLong(), 3600)); }},
        {"CHAT2SBX_SBX_RECHECK_SECONDS", "sbxRecheckSeconds", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.sbxRecheckSeconds = static_cast<int>(qMin<qint64>(v.toLongLong(), 3600)); }},
        {"CHAT2SBX_WORKSPACE_RETENTION_DAYS", "workspaceRetentionDays", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.workspaceRetentionDays = v.toInt(); }},
        {"CHAT2SBX_ALLOWED_ORIGINS", "allowedOrigins", Kind::List, [](Config &c, const QVariant &v) { c.allowedOrigins = v.toStringList(); }},
        {"CHAT2SBX_ALLOWED_HOSTS", "allowedHosts", Kind::List, [](Config &c, const QVariant &v) { c.allowedHosts = v.toStringList(); }},
        {"CHAT2SBX_LOCAL_TOKEN_HEADER", "localTokenHeader", Kind::String, [](Config &c, const QVariant &v) { c.localTokenHeader = v.toString(); }},
        {"CHAT2SBX_REQUIRE_LOCAL_TOKEN", "requireLocalToken", Kind::Bool, [](Config &c, const QVariant &v) { c.requireLocalToken = v.toBool(); }},
        {"CHAT2SBX_BEARER_TOKEN", "bearerToken", Kind::String, [](Config &c, const QVariant &v) { c.bearerToken = v.toString(); }},
        {"CHAT2SBX_TEMPLATE", "template", Kind::String, [](Config &c, const QVariant &v) { c.templateName = v.toString(); }},
        {"CHAT2SBX_TUNNEL_BACKOFF_MS", "tunnelBackoffMs", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.tunnelBackoffMs = static_cast<int>(qMin<qint64>(v.toLongLong(), 60000)); }},
        {"CHAT2SBX_IMPORT_FILE_HOSTS", "importFileHosts", Kind::List, [](Config &c, const QVariant &v) { c.importFileHosts = v.toStringList(); }},
        {"CHAT2SBX_EXPORT_DIR", "exportDir", Kind::Path, [](Config &c, const QVariant &v) { c.exportDir = v.toString(); }},
        {"CHAT2SBX_EXPORT_FILE_MAX_MB", "exportMaxFileMiB", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.exportMaxFileMiB = static_cast<int>(qMin<qint64>(v.toLongLong(), 1 << 20)); }},
        {"CHAT2SBX_EXPORT_SANDBOX_MAX_MB", "exportMaxSandboxMiB", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.exportMaxSandboxMiB = static_cast<int>(qMin<qint64>(v.toLongLong(), 1 << 22)); }},
        {"CHAT2SBX_EXPORT_NEEDS_APPROVAL", "exportNeedsApproval", Kind::Bool, [](Config &c, const QVariant &v) { c.exportNeedsApproval = v.toBool(); }},
        {"CHAT2SBX_EXPORT_OVER_BUDGET", "exportOverBudget", Kind::String, [](Config &c, const QVariant &v) { c.exportOverBudget = v.toString(); }},
        {"CHAT2SBX_IMPORT_FILE_MAX_MB", "importFileMaxMiB", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.importFileMaxMiB = static_cast<int>(qMin<qint64>(v.toLongLong(), 1024)); }},
        {"CHAT2SBX_TEST_IMPORT_CA_FILE", "testImportCaFile", Kind::Path, [](Config &c, const QVariant &v) { c.testImportCaFile = v.toString(); }},
        {"CHAT2SBX_TUNNEL_STOP_GRACE_MS", "tunnelStopGraceMs", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.tunnelStopGraceMs = static_cast<int>(qMin<qint64>(v.toLongLong(), 60000)); }},
        {"CHAT2SBX_TUNNEL_READY_TIMEOUT_MS", "tunnelReadyTimeoutMs", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.tunnelReadyTimeoutMs = static_cast<int>(qBound<qint64>(qint64(1000), v.toLongLong(), qint64(600000))); }},
        {"CHAT2SBX_SBX_ENV", "sbxEnv", Kind::List, [](Config &c, const QVariant &v) { c.sbxEnv = v.toStringList(); }},
        {"CHAT2SBX_TUNNEL_ENV", "tunnelEnv", Kind::List, [](Config &c, const QVariant &v) { c.tunnelEnv = v.toStringList(); }},
        {"CHAT2SBX_EXPOSE_ALLOW_LAN", "exposeAllowLan", Kind::Bool, [](Config &c, const QVariant &v) { c.exposeAllowLan = v.toBool(); }},
        {"CHAT2SBX_TOOL_CARDS", "toolCards", Kind::Bool, [](Config &c, const QVariant &v) { c.toolCards = v.toBool(); }},
        {"CHAT2SBX_AUDIT_RETENTION_DAYS", "auditRetentionDays", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.auditRetentionDays = static_cast<int>(qMin<qint64>(v.toLongLong(), 36500)); }},
        {"CHAT2SBX_CHECKPOINT_MAX_COUNT", "checkpointMaxCount", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.checkpointMaxCount = static_cast<int>(qMin<qint64>(v.toLongLong(), 10000)); }},
        {"CHAT2SBX_CHECKPOINT_MAX_GIB", "checkpointMaxGiB", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.checkpointMaxGiB = static_cast<int>(qMin<qint64>(v.toLongLong(), 1 << 20)); }},
        {"CHAT2SBX_CLOUD_CHECKPOINT_MAX_COUNT", "cloudCheckpointMaxCount", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.cloudCheckpointMaxCount = static_cast<int>(qMin<qint64>(v.toLongLong(), 10000)); }},
        {"CHAT2SBX_CLOUD_CHECKPOINT_MAX_GIB", "cloudCheckpointMaxGiB", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.cloudCheckpointMaxGiB = static_cast<int>(qMin<qint64>(v.toLongLong(), 1 << 20)); }},
        {"CHAT2SBX_CHECKPOINT_BEFORE_EXPIRY", "checkpointBeforeExpiry", Kind::Bool, [](Config &c, const QVariant &v) { c.checkpointBeforeExpiry = v.toBool(); }},
        {"CHAT2SBX_CLOUD_SANDBOXES", "cloudSandboxes", Kind::Bool, [](Config &c, const QVariant &v) { c.cloudSandboxes = v.toBool(); }},
        {"CHAT2SBX_DEFAULT_PLACEMENT", "defaultPlacement", Kind::String, [](Config &c, const QVariant &v) { c.defaultPlacement = v.toString(); }},
        {"CHAT2SBX_CLOUD_MAX_SANDBOXES", "cloudMaxSandboxes", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.cloudMaxSandboxes = static_cast<int>(qMin<qint64>(v.toLongLong(), 1000)); }},
        {"CHAT2SBX_CLOUD_MAX_SIZE", "cloudMaxSize", Kind::String, [](Config &c, const QVariant &v) { c.cloudMaxSize = v.toString(); }},
        {"CHAT2SBX_CLOUD_DEFAULT_TTL", "cloudDefaultTtl", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.cloudDefaultTtlSeconds = qMin<qint64>(v.toLongLong(), 24 * 3600); }},
        {"CHAT2SBX_CLOUD_WARM_SANDBOXES", "cloudWarmSandboxes", Kind::SmallCount, [](Config &c, const QVariant &v) { c.cloudWarmSandboxes = v.toInt(); }},
        {"CHAT2SBX_CLOUD_WARN_BEFORE", "cloudWarnBefore", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.cloudWarnBeforeSeconds = qMin<qint64>(v.toLongLong(), 24 * 3600); }},
        {"CHAT2SBX_MOVE_TEMP_SPACE_GIB", "moveTempSpaceGiB", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.moveTempSpaceGiB = static_cast<int>(qMin<qint64>(v.toLongLong(), 1 << 20)); }},
        {"CHAT2SBX_AUDIT_MAX_ROWS", "auditMaxRows", Kind::PositiveInt, [](Config &c, const QVariant &v) { c.auditMaxRows = static_cast<int>(qMin<qint64>(v.toLongLong(), 100000000)); }},
    };
    return table;
}

} // namespace

QList<QPair<QString, QString>> ConfigLoader::settingNames()
{
    QList<QPair<QString, QString>> names{{QStringLiteral("CHAT2SBX_DATA_ROOT"), QString()},
                                         {QStringLiteral("CHAT2SBX_CONFIG"), QString()}};
    for (const Setting &s : settings())
        names.append({QString::fromLatin1(s.env), QString::fromLatin1(s.json)});
    return names;
}

bool ConfigLoader::load(const QProcessEnvironment &env, const QString &homeDir, Config &out, QString &error)
{
    Config c;
    const QString home = QDir::cleanPath(homeDir);

    // The data root decides where config.json lives, so it comes from the environment or the default only.
    c.dataRoot = home + QStringLiteral("/.chat2sbx");
    if (env.contains(QStringLiteral("CHAT2SBX_DATA_ROOT"))) {
        QVariant v;
        const QString raw = env.value(QStringLiteral("CHAT2SBX_DATA_ROOT"));
        if (!parseText(Kind::Path, raw, home, v)) {
            error = QStringLiteral("invalid CHAT2SBX_DATA_ROOT=%1: %2").arg(raw, kindRule(Kind::Path));
            return false;
        }
        c.dataRoot = v.toString();
    }
    c.tunnelClient = home + QStringLiteral("/.local/bin/tunnel-client");
    c.secretDir = home + QStringLiteral("/.secrets/tunnel-client");
    c.exportDir = home + QStringLiteral("/Downloads/chat2sbx");
    c.configFilePath = env.value(QStringLiteral("CHAT2SBX_CONFIG"), c.dataRoot + QStringLiteral("/config.json"));

    QFile file(c.configFilePath);
    if (file.exists()) {
        if (!file.open(QIODevice::ReadOnly)) {
            error = QStringLiteral("cannot read %1: %2").arg(c.configFilePath, file.errorString());
            return false;
        }
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
        if (parseError.error != QJsonParseError::NoError) {
            error = QStringLiteral("malformed JSON in %1 at offset %2: %3")
                        .arg(c.configFilePath).arg(parseError.offset).arg(parseError.errorString());
            return false;
        }
        if (!doc.isObject()) {
            error = QStringLiteral("malformed %1: the top level must be a JSON object").arg(c.configFilePath);
            return false;
        }
        const QJsonObject obj = doc.object();
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            const Setting *setting = nullptr;
            for (const Setting &s : settings())
                if (it.key() == QLatin1String(s.json))
                    setting = &s;
            if (!setting) {
                error = QStringLiteral("unknown setting \"%1\" in %2").arg(it.key(), c.configFilePath);
                return false;
            }
            QVariant v;
            if (!parseJson(setting->kind, it.value(), home, v)) {
                error = QStringLiteral("invalid %1=%2 in %3: %4")
                            .arg(it.key(), shown(it.value()), c.configFilePath, kindRule(setting->kind));
                return false;
            }
            setting->apply(c, v);
        }
    }

    for (const Setting &s : settings()) {
        const QString name = QLatin1String(s.env);
        if (!env.contains(name))
            continue;
        const QString raw = env.value(name);
        QVariant v;
        if (!parseText(s.kind, raw, home, v)) {
            error = QStringLiteral("invalid %1=%2: %3").arg(name, raw, kindRule(s.kind));
            return false;
        }
        s.apply(c, v);
    }

    if (c.stateDir.isEmpty())
        c.stateDir = c.dataRoot + QStringLiteral("/state");
    if (c.workspaceRoot.isEmpty())
        c.workspaceRoot = c.dataRoot + QStringLiteral("/workspaces");
    if (c.databasePath.isEmpty())
        c.databasePath = c.stateDir + QStringLiteral("/chat2sbx.sqlite");

    for (const QString &pattern : c.importFileHosts) {
        const QString problem = FileHostPatterns::problem(pattern);
        if (!problem.isEmpty()) {
            error = QStringLiteral("invalid importFileHosts entry \"%1\": %2").arg(pattern.left(200), problem);
            return false;
        }
    }
    if (c.exportOverBudget != QLatin1String("ask") && c.exportOverBudget != QLatin1String("refuse")) {
        error = QStringLiteral("invalid exportOverBudget \"%1\" (config.json or CHAT2SBX_EXPORT_OVER_BUDGET): must be \"ask\" "
                               "(an export over a budget waits for the user's approval) or \"refuse\"")
                    .arg(c.exportOverBudget.left(200));
        return false;
    }
    if (c.defaultPlacement != QLatin1String("local") && c.defaultPlacement != QLatin1String("cloud")
        && c.defaultPlacement != QLatin1String("auto")) {
        error = QStringLiteral("invalid defaultPlacement \"%1\" (config.json or CHAT2SBX_DEFAULT_PLACEMENT): must be \"local\", "
                               "\"cloud\" or \"auto\" (the cloud when local sbx cannot run sandboxes here)")
                    .arg(c.defaultPlacement.left(200));
        return false;
    }
    static const QStringList sizes{QStringLiteral("micro"), QStringLiteral("small"), QStringLiteral("medium"), QStringLiteral("large"),
                                   QStringLiteral("xl")};
    if (!sizes.contains(c.cloudMaxSize)) {
        error = QStringLiteral("invalid cloudMaxSize \"%1\" (config.json or CHAT2SBX_CLOUD_MAX_SIZE): must be one of %2")
                    .arg(c.cloudMaxSize.left(200), sizes.join(QStringLiteral(", ")));
        return false;
    }
    if (c.host != QLatin1String("localhost") && QHostAddress(c.host).isNull()) {
        error = QStringLiteral("invalid CHAT2SBX_HOST=%1: must be an IP address or localhost").arg(c.host);
        return false;
    }
    if (!c.isLoopbackBind() && c.bearerToken.isEmpty()) {
        error = QStringLiteral("invalid CHAT2SBX_HOST=%1: a non-loopback bind requires CHAT2SBX_BEARER_TOKEN").arg(c.host);
        return false;
    }
    if (!c.isLoopbackBind() && c.bearerToken.size() < 24) {
        error = QStringLiteral("invalid CHAT2SBX_BEARER_TOKEN: must be at least 24 characters for a non-loopback bind");
        return false;
    }
    out = c;
    return true;
}

bool ConfigLoader::loadFromProcess(Config &out, QString &error)
{
    return load(QProcessEnvironment::systemEnvironment(), QDir::homePath(), out, error);
}

} // namespace chat2sbx
