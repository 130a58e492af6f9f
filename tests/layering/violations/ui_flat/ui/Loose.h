// Broken on purpose: a ui/ file outside the rooms.
#pragma once
