#pragma once

#include "config/Config.h"
#include "state/WorkspaceRepository.h"
#include "workspace/Workspace.h"

#include <QObject>
#include <optional>

namespace chat2sbx {

class Clock;
class Database;

// Workspaces: managed folders under the workspace root, and approved host directories.
class WorkspaceService : public QObject {
    Q_OBJECT
public:
    WorkspaceService(const Config &config, Database &db, Clock &clock, QObject *parent = nullptr);

    // Creates <workspace root>/<ws_id> (0700) and records it before returning.
    std::optional<Workspace> createManaged(QString &error);
    std::optional<Workspace> find(const QString &id) const;
    QList<Workspace> list() const;
    void touch(const QString &id);

    WorkspaceRepository &repository() { return m_repo; }

signals:
    void workspacesChanged();

private:
    const Config &m_config;
    Database &m_db;
    Clock &m_clock;
    WorkspaceRepository m_repo;
};

} // namespace chat2sbx
