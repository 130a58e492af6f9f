#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace chat2sbx {

class Database;

// A move of a sandbox between this computer and Docker's cloud (`sbx move`), recorded before
// anything happens (sandbox_moves). Its step says what a start finds done:
//   moving   `sbx move` may have run: the destination is looked for by its name prefix;
//   created  the destination exists (dest_runtime): the workspace goes in, the record switches;
//   switched the record names the destination: the source goes, then the row;
//   source_left the move is done and the sandbox in use where it went; only the source is left to remove.
struct SandboxMove {
    QString sandboxId;
    bool toCloud = true;
    QString step = QStringLiteral("moving");
    QString sourceRuntime;    // the runtime the record named before
    QString destPrefix;       // --name: the destination's name, or its prefix (the cloud adds a suffix)
    QString destRuntime;      // the destination's real name, once read back
    qint64 ttlSeconds = 0;    // to the cloud: the time-to-live asked for (0: cloudDefaultTtl)
    // What the record said before the switch: put back if the destination does not answer.
    bool sourceWorkspaceInVm = false;
    QString sourceCloudSize;
    qint64 startedAt = 0;
    QStringList warnings;     // what sbx warned about, for the result
};

// The switch of a sandbox record onto the destination (one transaction with the move's step).
struct SandboxMoveSwitch {
    QString runtimeName;
    QString placement;        // local | cloud
    QString cloudSize;        // empty on this computer
    qint64 expiresAt = 0;
    qint64 expiresCeilingAt = 0;
    bool workspaceInVm = false;
    qint64 nowMs = 0;
};

class SandboxMoveRepository {
public:
    explicit SandboxMoveRepository(Database &db) : m_db(db) {}

    bool begin(const SandboxMove &move, QString &error);
    // moving → created: the destination's real name (and sbx's warnings).
    bool markCreated(const QString &sandboxId, const QString &destRuntime, const QStringList &warnings, QString &error);
    // created → switched, and the sandbox record names the destination, in one transaction. The
    // record's state becomes running: the destination runs when `sbx move` returns.
    // Back (step `created`, the destination still recorded) when the destination did not answer.
    bool switchRecord(const QString &sandboxId, const SandboxMoveSwitch &to, QString &error, bool back = false);
    // switched → source_left: the source's removal failed; a start removes it and nothing else.
    bool markSourceLeft(const QString &sandboxId, QString &error);
    bool end(const QString &sandboxId, QString &error);
    std::optional<SandboxMove> find(const QString &sandboxId) const;
    QList<SandboxMove> pending() const;

private:
    Database &m_db;
};

} // namespace chat2sbx
