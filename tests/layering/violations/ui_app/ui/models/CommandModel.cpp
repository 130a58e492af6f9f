// Broken on purpose: ui/ sits below app/, so it may not include a command's header.
#include "Command.h"
