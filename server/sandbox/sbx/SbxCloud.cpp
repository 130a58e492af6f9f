#include "sandbox/sbx/SbxCloud.h"

#include "sandbox/sbx/SbxJson.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

namespace chat2sbx {

namespace {

QJsonValue firstOf(const QJsonObject &o, std::initializer_list<const char *> keys)
{
    for (const char *key : keys) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (!v.isUndefined() && !v.isNull())
            return v;
    }
    return {};
}

// ISO 8601 text or Unix seconds (or milliseconds); 0 when neither.
qint64 timeOf(const QJsonValue &v)
{
    if (v.isDouble()) {
        const double n = v.toDouble();
        return n > 1e12 ? static_cast<qint64>(n) : n > 0 ? static_cast<qint64>(n * 1000) : 0;
    }
    const QDateTime t = QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
    return t.isValid() ? t.toMSecsSinceEpoch() : 0;
}

} // namespace

const QList<SbxCloudSize> &sbxCloudSizes()
{
    static const QList<SbxCloudSize> sizes{{QStringLiteral("micro"), 1, 2048},
                                           {QStringLiteral("small"), 2, 4096},
                                           {QStringLiteral("medium"), 4, 8192},
                                           {QStringLiteral("large"), 8, 16384},
                                           {QStringLiteral("xl"), 16, 32768}};
    return sizes;
}

std::optional<SbxCloudSize> sbxCloudSize(const QString &name)
{
    for (const SbxCloudSize &s : sbxCloudSizes())
        if (s.name == name)
            return s;
    return std::nullopt;
}

int sbxCloudSizeRank(const QString &name)
{
    for (int i = 0; i < sbxCloudSizes().size(); ++i)
        if (sbxCloudSizes().at(i).name == name)
            return i;
    return -1;
}

QStringList sbxCloudCreateArgs(const SbxCloudCreateSpec &spec)
{
    QStringList args{QStringLiteral("--cloud"), QStringLiteral("create"), QStringLiteral("--name"), spec.name};
    if (!spec.templateName.isEmpty())
        args << QStringLiteral("--template") << spec.templateName;
    else if (const std::optional<SbxCloudSize> size = sbxCloudSize(spec.size)) {
        args << QStringLiteral("--cpus") << QString::number(size->cpus) << QStringLiteral("--memory")
             << QStringLiteral("%1g").arg(size->memoryMib / 1024);
    }
    if (spec.ttlSeconds > 0)
        args << QStringLiteral("--ttl") << QStringLiteral("%1s").arg(spec.ttlSeconds);
    if (!spec.onTimeout.isEmpty())
        args << QStringLiteral("--on-timeout") << spec.onTimeout;
    if (spec.templateName.isEmpty())
        args << QStringLiteral("shell");
    return args;
}

qint64 sbxDurationSeconds(const QString &text)
{
    static const QRegularExpression whole(QStringLiteral("^(?:[0-9]{1,5}[hms])+$"), QRegularExpression::CaseInsensitiveOption);
    if (!whole.match(text).hasMatch())
        return 0;
    static const QRegularExpression part(QStringLiteral("([0-9]+)([hms])"), QRegularExpression::CaseInsensitiveOption);
    qint64 seconds = 0;
    for (auto it = part.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QChar unit = m.captured(2).toLower().at(0);
        seconds += m.captured(1).toLongLong() * (unit == QLatin1Char('h') ? 3600 : unit == QLatin1Char('m') ? 60 : 1);
    }
    return seconds;
}

QStringList sbxMoveArgs(const SbxMoveSpec &spec)
{
    QStringList args{QStringLiteral("move"), spec.source, QStringLiteral("--to"),
                     spec.toCloud ? QStringLiteral("cloud") : QStringLiteral("local"), QStringLiteral("--force")};
    if (!spec.namePrefix.isEmpty())
        args << QStringLiteral("--name") << spec.namePrefix;
    if (spec.toCloud && spec.ttlSeconds > 0)
        args << QStringLiteral("--ttl") << QStringLiteral("%1s").arg(spec.ttlSeconds);
    if (spec.toCloud && !spec.onTimeout.isEmpty())
        args << QStringLiteral("--on-timeout") << spec.onTimeout;
    return args;
}

QStringList parseSbxWarnings(const QByteArray &out, const QByteArray &err)
{
    static const QRegularExpression warning(QStringLiteral("^\\W*warn(ing)?\\b[:\\s]*"), QRegularExpression::CaseInsensitiveOption);
    QStringList found;
    for (const QByteArray &text : {out, err}) {
        for (const QString &raw : QString::fromUtf8(text).split(QLatin1Char('\n'))) {
            const QString line = raw.trimmed();
            const QRegularExpressionMatch m = warning.match(line);
            if (!m.hasMatch() || found.size() >= 20)
                continue;
            const QString rest = line.mid(m.capturedLength()).left(400);
            if (!rest.isEmpty() && !found.contains(rest))
                found << rest;
        }
    }
    return found;
}

QString parseSbxCloudId(const QByteArray &out, const QByteArray &err)
{
    static const QRegularExpression id(QStringLiteral("\\b(sbx_[A-Za-z0-9]{4,64})\\b"));
    for (const QByteArray &text : {out, err}) {
        const QRegularExpressionMatch m = id.match(QString::fromUtf8(text));
        if (m.hasMatch())
            return m.captured(1);
    }
    return {};
}

namespace {
// The rows of a listing whose envelope is UNKNOWN: a bare array, {"<key>":[…]} or {"items":[…]}.
bool listedRows(const QByteArray &json, const QString &key, QJsonArray &rows)
{
    const QJsonDocument doc = parseSbxJson(json);
    if (doc.isArray())
        rows = doc.array();
    else if (doc.isObject() && doc.object().value(key).isArray())
        rows = doc.object().value(key).toArray();
    else if (doc.isObject() && doc.object().value(QStringLiteral("items")).isArray())
        rows = doc.object().value(QStringLiteral("items")).toArray();
    else
        return false;
    return true;
}
} // namespace

bool parseSbxCloudList(const QByteArray &json, QList<SbxCloudInfo> &out)
{
    QJsonArray rows;
    if (!listedRows(json, QStringLiteral("sandboxes"), rows))
        return false;
    for (const QJsonValue &v : rows) {
        const QJsonObject o = v.toObject();
        SbxCloudInfo info;
        info.id = firstOf(o, {"id", "ID", "sandboxId", "sandbox_id"}).toString();
        info.name = firstOf(o, {"name", "displayName", "display_name"}).toString();
        if (!info.id.startsWith(QLatin1String("sbx_")) && info.name.startsWith(QLatin1String("sbx_")))
            std::swap(info.id, info.name);
        if (!info.id.startsWith(QLatin1String("sbx_")))
            continue;   // not a row this reader understands: left out, never taken for gone
        info.status = firstOf(o, {"status", "state"}).toString().toLower();
        info.cpus = firstOf(o, {"cpus", "cpu"}).toInt();
        info.memoryMib = firstOf(o, {"memory_mib", "memoryMib", "memory_mb"}).toInt();
        info.expiresAtMs = timeOf(firstOf(o, {"expires_at", "expiresAt", "expiration", "expires"}));
        for (const QJsonValue &p : firstOf(o, {"ports"}).toArray()) {
            const QJsonObject po = p.toObject();
            SbxCloudPort port{firstOf(po, {"port", "number", "sandbox_port"}).toInt(), firstOf(po, {"url", "URL"}).toString()};
            if (port.port > 0)
                info.ports.append(port);
        }
        out.append(info);
    }
    return true;
}

bool parseSbxCloudTemplates(const QByteArray &json, QList<SbxCloudTemplate> &out)
{
    QJsonArray rows;
    if (!listedRows(json, QStringLiteral("templates"), rows))
        return false;
    for (const QJsonValue &v : rows) {
        const QJsonObject o = v.toObject();
        SbxCloudTemplate t;
        t.id = firstOf(o, {"id", "ID", "templateId", "template_id"}).toString();
        t.name = firstOf(o, {"name", "displayName", "display_name"}).toString();
        const QJsonValue size = firstOf(o, {"size", "size_bytes", "sizeBytes"});
        if (size.isDouble() && size.toDouble() >= 0)
            t.sizeBytes = static_cast<qint64>(size.toDouble());
        if (!t.name.isEmpty())
            out.append(t);
    }
    return true;
}

bool parseSbxCloudTtl(const QByteArray &out, SbxCloudTtl &ttl)
{
    const QJsonDocument doc = parseSbxJson(out);
    if (doc.isObject()) {
        const QJsonObject o = doc.object();
        ttl.expiresAtMs = timeOf(firstOf(o, {"expires_at", "expiresAt", "expiration"}));
        ttl.maxExpiresAtMs = timeOf(firstOf(o, {"max_expires_at", "maxExpiresAt", "max_expiration", "ceiling"}));
        return ttl.expiresAtMs > 0 || ttl.maxExpiresAtMs > 0;
    }
    static const QRegularExpression iso(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?(?:Z|[+-]\\d\\d:\\d\\d)"));
    QList<qint64> times;
    for (auto it = iso.globalMatch(QString::fromUtf8(out)); it.hasNext();)
        times << timeOf(it.next().captured(0));
    if (times.size() >= 2) {
        ttl.expiresAtMs = times.at(0);
        ttl.maxExpiresAtMs = times.at(1);
    } else if (times.size() == 1) {
        ttl.maxExpiresAtMs = times.at(0);   // "no deadline while stopped; at most …"
    }
    return !times.isEmpty();
}

QString parseSbxCloudUrl(const QByteArray &out)
{
    static const QRegularExpression url(QStringLiteral("https://[^\\s\"'<>]+"));
    const QRegularExpressionMatch m = url.match(QString::fromUtf8(out));
    return m.hasMatch() ? m.captured(0) : QString();
}

} // namespace chat2sbx
