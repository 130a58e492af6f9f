#pragma once
// Broken on purpose: the channel room sits below lifecycle, so it may not include it.
#include "sandbox/lifecycle/SandboxService.h"
