#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace chat2sbx {

class Database;

enum class WarmState { Creating, Ready, Stale };

// A sandbox created ahead of need (WarmPool). Persisted before `sbx create` runs, so a kill -9 at
// any point leaves a row that the next start's reconciliation finishes or removes.
struct WarmRecord {
    QString runtimeName;
    QString sandboxId;       // reserved: becomes the sandboxes row's id at hand-over
    QString workspaceId;     // reserved: the managed workspace row is written at hand-over
    QString workspacePath;   // the managed folder, created before `sbx create`
    QString templateRef;
    WarmState state = WarmState::Creating;
    qint64 createdAt = 0;
};

// Rows of the warm_sandboxes table. Every write is committed before it returns (or joins the caller's
// transaction).
class WarmSandboxRepository {
public:
    explicit WarmSandboxRepository(Database &db) : m_db(db) {}

    bool insert(const WarmRecord &r, QString &error);
    QList<WarmRecord> list() const;
    std::optional<WarmRecord> find(const QString &runtimeName) const;
    // Creating -> Ready; false (no error) when the row is gone or no longer creating.
    bool markReady(const QString &runtimeName, QString &error);
    // Every row becomes stale (the template was rebuilt: `chat2sbx setup`); the pool removes them.
    bool markAllStale(QString &error);
    bool markStale(const QString &runtimeName, QString &error);
    // Deletes the row if it is ready; false (no error) when it was not. Used inside the hand-over transaction.
    bool takeReady(const QString &runtimeName, QString &error);
    bool remove(const QString &runtimeName, QString &error);

private:
    // Outlives this: a repository is a member or a local of the database's user.
    Database &m_db;
};

QString warmStateName(WarmState state);

} // namespace chat2sbx
