#include "models/TrayModels.h"

namespace chat2sbx::ui {

QString tunnelStateText(StatusInfo::Tunnel tunnel)
{
    switch (tunnel) {
    case StatusInfo::Tunnel::Disabled: return QStringLiteral("disabled (local-only)");
    case StatusInfo::Tunnel::NotSetUp: return QStringLiteral("not set up yet (local-only)");
    case StatusInfo::Tunnel::Stopped: return QStringLiteral("stopped");
    case StatusInfo::Tunnel::Starting: return QStringLiteral("starting");
    case StatusInfo::Tunnel::Connected: return QStringLiteral("connected");
    case StatusInfo::Tunnel::Unauthorized: return QStringLiteral("unauthorized");
    case StatusInfo::Tunnel::Failed: return QStringLiteral("failed");
    }
    return {};
}

QString serverStateText(StatusInfo::Server server)
{
    switch (server) {
    case StatusInfo::Server::Stopped: return QStringLiteral("stopped");
    case StatusInfo::Server::Starting: return QStringLiteral("starting");
    case StatusInfo::Server::Running: return QStringLiteral("running");
    case StatusInfo::Server::Stopping: return QStringLiteral("stopping");
    case StatusInfo::Server::Failed: return QStringLiteral("failed");
    }
    return {};
}

} // namespace chat2sbx::ui
