#pragma once
// Broken on purpose: a file of sandbox/ outside its rooms.
#include "core/Ids.h"
