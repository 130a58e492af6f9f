#pragma once

#include "models/TrayModels.h"

#include <QIcon>

namespace chat2sbx::ui {

enum class TrayState { Stopped, LocalOnly, TunnelReady, Error };

TrayState trayStateOf(const StatusInfo &status);
QString trayStateName(TrayState state);          // "stopped", "local-only", "tunnel connected", "error"
// The icon's theme name: "chat2sbx-tray-ready", with "-attention" (the waiting badge) when
// something waits for the user. The package installs each as hicolor/scalable/status/<name>.svg.
QString trayIconName(TrayState state, bool attention);
QStringList trayIconNames();                      // all eight
QString trayIconPath(TrayState state, bool attention);   // ":/icons/tray-*.svg"
// The tray icon for `state`, with the badge when `pendingApprovals` > 0 (rendered from SVG).
QIcon trayIcon(TrayState state, int pendingApprovals);
QString trayToolTip(const StatusInfo &status, int pendingApprovals);
// The menu's first line: "2 wait for you", "Ready · 3 sandboxes running", "Needs setup", …
QString trayStatusLine(const StatusInfo &status, int waiting, int running);
// Writes the icons, under their theme names, into a hicolor tree of this user's (in the runtime
// folder) for hosts that resolve IconName in the item's IconThemePath: the tree's root, or empty
// with `error`.
QString writeThemeIcons(QString &error);

} // namespace chat2sbx::ui
