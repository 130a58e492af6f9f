// The fake's on-disk state under $FAKE_SBX_STATE: one directory per sandbox with meta.json,
// home/, tmp/ and (with --clone) clone/; state mutations are serialized with flock on ./lock.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace fakesbx {

struct PortMapping
{
    QString hostIp;
    int hostPort = 0;
    int sandboxPort = 0;
    QString protocol;

    QJsonObject toJson() const;
    static PortMapping fromJson(const QJsonObject &o);
};

struct SandboxMeta
{
    QString name;
    QString templateRef;   // empty: the stock shell template
    QString memory;        // empty: default
    bool clone = false;
    QString workspace;     // the host workspace root as given to create (absolute)
    QString mountSource;   // the folder the VM got at `workspace`: its realpath when the VM last started
    QString status;        // "creating" | "running" | "stopped"
    QString created;       // ISO 8601 UTC
    QList<PortMapping> ports;

    QJsonObject toJson() const;
    static bool fromJson(const QJsonObject &o, SandboxMeta *meta);
};

class StateDir
{
public:
    explicit StateDir(const QString &root);

    QString root() const { return m_root; }
    QString path(const QString &relative) const { return m_root + QLatin1Char('/') + relative; }
    QString sandboxesDir() const { return path(QStringLiteral("sandboxes")); }
    QString sandboxDir(const QString &name) const { return sandboxesDir() + QLatin1Char('/') + name; }
    QString templatesFile() const { return path(QStringLiteral("templates.json")); }
    QString templateSnapshotDir(const QString &id) const { return path(QStringLiteral("templates/")) + id; }

    bool ensure(QString *error) const;
    QStringList sandboxNames() const;  // sorted
    bool exists(const QString &name) const;
    // A sandbox directory without a readable meta.json reads as {name, status "creating"}.
    bool readMeta(const QString &name, SandboxMeta *meta) const;
    bool writeMeta(const SandboxMeta &meta, QString *error) const;

private:
    QString m_root;
};

// flock on $FAKE_SBX_STATE/lock for the lifetime of the object. The descriptor is close-on-exec.
class StateLock
{
public:
    explicit StateLock(const StateDir &state);
    ~StateLock();
    StateLock(const StateLock &) = delete;
    StateLock &operator=(const StateLock &) = delete;
    bool ok() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

bool isValidSandboxName(const QString &name);

} // namespace fakesbx
