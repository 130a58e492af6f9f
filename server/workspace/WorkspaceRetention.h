#pragma once

#include "state/Workspace.h"

#include <QObject>
#include <QStringList>
#include <QTimer>

namespace chat2sbx {

class Clock;
class WorkspaceService;

// Moves managed workspaces that have had no sandbox (none creating, running or destroying) for
// Config::workspaceRetentionDays after their last use or their last sandbox's end into
// Config::trashDir()/<ws_id>-<UTC timestamp> (a rename: never deleted; recoverable by moving it
// back) and marks them trashed. Host workspaces (clone, direct) are never moved or deleted.
class WorkspaceRetention : public QObject {
    Q_OBJECT
public:
    WorkspaceRetention(WorkspaceService &workspaces, Clock &clock, QObject *parent = nullptr);

    struct Report {
        QStringList trashed;   // workspace ids moved (or, folder already gone, just marked)
        QStringList failed;    // "ws_…: reason"
    };

    // One sweep, synchronous (a few renames).
    Report sweep();
    // Moves one managed workspace to the trash now (the user removed it); false with a reason.
    bool moveToTrash(const Workspace &workspace, QString &error);
    // Sweeps once on the next event loop turn, then every `intervalMs` (default hourly).
    void start(int intervalMs = 3600 * 1000);
    void stop();

signals:
    void swept(int trashedCount);

private:
    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    WorkspaceService &m_workspaces;
    Clock &m_clock;
    QTimer m_timer;
};

} // namespace chat2sbx
