// Broken on purpose: the popup sits below the tray, so it may not include the tray.
#include "tray/TrayApp.h"
