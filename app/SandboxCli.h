#pragma once

#include "config/Config.h"
#include "core/Clock.h"
#include "sandbox/SandboxService.h"
#include "sandbox/SbxDriver.h"
#include "state/Database.h"
#include "workspace/WorkspaceService.h"

#include <memory>

namespace chat2sbx::app {

// The sandbox services a CLI command uses directly on the shared database (no server needed).
// No reconciliation and no idle timer: that is the server's job.
struct SandboxCli {
    explicit SandboxCli(const Config &c)
        : config(c), sbx(c.sbxPath), workspaces(config, db, Clock::system()),
          sandboxes(config, db, workspaces, sbx, Clock::system())
    {
    }
    bool open(QString &error) { return db.open(config.databasePath, error); }

    Config config;
    Database db;
    SbxDriver sbx;
    WorkspaceService workspaces;
    SandboxService sandboxes;
};

} // namespace chat2sbx::app
