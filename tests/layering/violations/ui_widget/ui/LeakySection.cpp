// Broken on purpose: a widget reaching a server service directly instead of through ui/TrayModels.h.
#include "LeakySection.h"
#include "sandbox/lifecycle/SandboxService.h"
