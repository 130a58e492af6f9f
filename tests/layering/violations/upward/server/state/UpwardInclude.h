#pragma once

#include "tools/ToolArgs.h"   // state/ reaching up to tools/: must be refused
