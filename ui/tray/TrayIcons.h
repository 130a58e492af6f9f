#pragma once

#include "models/TrayModels.h"

#include <QIcon>

namespace chat2sbx::ui {

enum class TrayState { Stopped, LocalOnly, TunnelReady, Error };

TrayState trayStateOf(const StatusInfo &status);
QString trayStateName(TrayState state);          // "stopped", "local-only", "tunnel connected", "error"
QString trayIconPath(TrayState state);           // ":/icons/tray-*.svg"
// The tray icon for `state`, with the approvals badge when `pendingApprovals` > 0 (rendered from SVG).
QIcon trayIcon(TrayState state, int pendingApprovals);
QString trayToolTip(const StatusInfo &status, int pendingApprovals);

} // namespace chat2sbx::ui
