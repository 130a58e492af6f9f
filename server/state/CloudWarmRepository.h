#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace chat2sbx {

class Database;

// A cloud sandbox made ahead of need (CloudWarmPool). Persisted before `sbx --cloud create` runs, so a
// kill -9 at any point leaves a row the next start removes with what the cloud made.
struct CloudWarmRecord {
    QString runtimeName;     // its name in the cloud
    QString sandboxId;       // reserved: the sandboxes row's id at hand-over
    QString workspaceId;     // reserved: the managed workspace row is written at hand-over
    QString workspacePath;
    QString size;
    bool ready = false;
    qint64 createdAt = 0;
    qint64 expiresAt = 0;    // its time-to-live's end, read back once made
};

// Rows of cloud_warm_sandboxes. Every write is committed before it returns (or joins the caller's
// transaction).
class CloudWarmRepository {
public:
    explicit CloudWarmRepository(Database &db) : m_db(db) {}

    bool insert(const CloudWarmRecord &r, QString &error);
    QList<CloudWarmRecord> list() const;
    bool markReady(const QString &runtimeName, qint64 expiresAt, QString &error);
    // Deletes the row if it is ready; false (no error) when it was not. Used inside the hand-over transaction.
    bool takeReady(const QString &runtimeName, QString &error);
    bool remove(const QString &runtimeName, QString &error);

private:
    // Outlives this: a repository is a member or a local of the database's user.
    Database &m_db;
};

} // namespace chat2sbx
