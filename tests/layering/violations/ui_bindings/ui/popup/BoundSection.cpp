// Broken on purpose: a widget naming a binding; app/ hands widgets their models.
#include "bindings/ServiceThing.h"
