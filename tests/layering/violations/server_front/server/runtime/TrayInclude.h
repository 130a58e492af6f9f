#pragma once
// Broken on purpose: server/ knows nothing of the tray.
#include "tray/TrayApp.h"
