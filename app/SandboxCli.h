#pragma once

#include "config/Config.h"
#include "core/Clock.h"
#include "sandbox/changes/ChangesService.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/Database.h"
#include "workspace/HostGit.h"
#include "workspace/WorkspaceService.h"

#include <QCoreApplication>

#include <memory>

namespace chat2sbx::app {

// The sandbox services a CLI command uses directly on the shared database (no server needed).
// No reconciliation and no idle timer: that is the server's job. The CLI has its own control
// channel into a sandbox when it needs one (export): a second helper beside the server's, under
// an owner of its own so that neither helper replaces the other.
struct SandboxCli {
    static SandboxChannel::Options channelOptions()
    {
        SandboxChannel::Options o;
        o.owner = QStringLiteral("cli-%1").arg(QCoreApplication::applicationPid());
        return o;
    }

    explicit SandboxCli(const Config &c)
        : config(c), sbx(c.sbxPath, c.sbxEnv), workspaces(config, db, Clock::system()),
          sandboxes(config, db, workspaces, sbx, Clock::system()), channels(sbx, channelOptions()),
          changes(sandboxes, channels, hostGit)
    {
        sandboxes.setDestroyGuard(&changes);
    }
    ~SandboxCli()
    {
        for (const SandboxView &v : sandboxes.list())
            channels.detach(v.record.id);
    }
    bool open(QString &error) { return db.open(config.databasePath, error); }

    Config config;
    Database db;
    SbxDriver sbx;
    WorkspaceService workspaces;
    SandboxService sandboxes;
    ChannelPool channels;
    HostGit hostGit;
    ChangesService changes;
};

} // namespace chat2sbx::app
