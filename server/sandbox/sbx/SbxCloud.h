#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace chat2sbx {

// Docker's cloud sandboxes as `sbx --cloud` presents them (reference/sbx-cloud.md). Where the page
// says UNKNOWN (the `ls --json` shape, what create prints, the `ttl` output) the readers accept every
// plausible variant; what they cannot read they leave empty, and callers quote sbx's own output.

// The five compute sizes (§3.1): CPUs and memory always as one pair.
struct SbxCloudSize {
    QString name;   // micro, small, medium, large, xl
    int cpus = 0;
    int memoryMib = 0;
};
const QList<SbxCloudSize> &sbxCloudSizes();
std::optional<SbxCloudSize> sbxCloudSize(const QString &name);
// The rank of a size (micro 0 … xl 4), -1 for none.
int sbxCloudSizeRank(const QString &name);

constexpr qint64 kSbxCloudMaxTtlSeconds = 24 * 3600;   // 24 h from creation, extensions only forward

struct SbxCloudCreateSpec {
    QString name;             // letters, digits, hyphens (no periods in the cloud)
    QString templateName;     // a cloud template (§7): it supplies the agent and the size, so neither is passed
    QString size;             // one of sbxCloudSizes(); empty: the server's default (small)
    qint64 ttlSeconds = 0;    // 0: the server's default (about 1 h)
    QString onTimeout;        // stop | delete; empty: the server's default
};

// `sbx move` (reference/sbx-cloud.md §6): never with --cloud, always --force (no terminal to confirm).
struct SbxMoveSpec {
    QString source;           // a local runtime name, or a cloud sandbox's sbx_ id (to local)
    bool toCloud = true;
    QString namePrefix;       // --name: the destination's name, or its prefix (the cloud adds a suffix)
    qint64 ttlSeconds = 0;    // to the cloud: 15 s to 24 h; 0: the server's default
    QString onTimeout;        // to the cloud: stop | delete; empty: the server's default
};

struct SbxCloudPort {
    int port = 0;
    QString url;              // the public https URL
};

struct SbxCloudInfo {
    QString id;               // sbx_…
    QString name;
    QString status;           // as sbx says it: running, stopped, creating, … (unknown: not usable now, not gone)
    int cpus = 0;
    int memoryMib = 0;
    qint64 expiresAtMs = 0;   // 0: none armed, or not said
    QList<SbxCloudPort> ports;
};

// A cloud template as `sbx --cloud template ls --json` lists it (the shape is UNKNOWN, §10.6).
struct SbxCloudTemplate {
    QString id;               // tmpl_…
    QString name;
    qint64 sizeBytes = -1;    // -1: not said
};

struct SbxCloudTtl {
    qint64 expiresAtMs = 0;      // 0: no deadline armed (stopped) or not read
    qint64 maxExpiresAtMs = 0;   // the 24 h ceiling; 0: not read
};

// `sbx --cloud create …` arguments (the agent `shell`, never a path).
QStringList sbxCloudCreateArgs(const SbxCloudCreateSpec &spec);
// The sandbox id in what create or `run --detached` printed: the first sbx_… token, stdout first.
QString parseSbxCloudId(const QByteArray &out, const QByteArray &err);
// A duration as sbx takes one for --ttl: "2h", "90m", "1h30m", "45s" (units in either case); 0 when it
// is not one.
qint64 sbxDurationSeconds(const QString &text);
QStringList sbxMoveArgs(const SbxMoveSpec &spec);
// What `sbx move` warned about (lines with "warning" first, from either stream; bounded): every one is
// passed on, since a move leaves things behind that the user must hear of.
QStringList parseSbxWarnings(const QByteArray &out, const QByteArray &err);
// `sbx --cloud ls --json`: {"sandboxes":[…]}, {"items":[…]} or a bare array; the id as id, ID,
// sandboxId or sandbox_id; the name as name or displayName; status or state; expiry as expires_at,
// expiresAt or expiration (ISO 8601 or Unix seconds). False when it is not JSON of such a shape.
bool parseSbxCloudList(const QByteArray &json, QList<SbxCloudInfo> &out);
// `sbx --cloud template ls --json`: {"templates":[…]}, {"items":[…]} or a bare array; the id as id or
// ID (tmpl_…), the name as name, the size in bytes as size, size_bytes or sizeBytes. False when it is
// not JSON of such a shape.
bool parseSbxCloudTemplates(const QByteArray &json, QList<SbxCloudTemplate> &out);
// `sbx --cloud ttl … [--json]`: the JSON fields, else the first two ISO 8601 times of the text.
bool parseSbxCloudTtl(const QByteArray &out, SbxCloudTtl &ttl);
// The public URL `ports --publish` printed: the first https:// token.
QString parseSbxCloudUrl(const QByteArray &out);

} // namespace chat2sbx
