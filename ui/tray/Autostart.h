#pragma once

#include <QString>

namespace chat2sbx::ui {

// The XDG autostart entry that starts the tray at login:
// $XDG_CONFIG_HOME/autostart/chat2sbx.desktop (~/.config when XDG_CONFIG_HOME is unset or relative).
namespace Autostart {
QString entryPath();
bool isEnabled();
// Writes the entry running `executable tray`, or removes it. `error` is one sentence on failure.
bool setEnabled(bool enabled, const QString &executable, QString &error);
QString entryText(const QString &executable);
} // namespace Autostart

} // namespace chat2sbx::ui
