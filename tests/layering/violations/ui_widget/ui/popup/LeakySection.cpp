// Broken on purpose: a widget reaching a server service directly instead of through ui/models/.
#include "LeakySection.h"
#include "sandbox/lifecycle/SandboxService.h"
