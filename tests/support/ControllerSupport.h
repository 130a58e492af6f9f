#pragma once

// A Controller of the test's own process, started and stopped as serve does it.
#include "runtime/Controller.h"

#include <QString>

namespace chat2sbx::test {

// Starts the controller and waits (30 s) for started() or failed(); false with `error` (the
// controller's own reason when it failed).
bool startController(Controller &controller, QString &error);
// Stops a controller that is not stopped and waits for it (15 s).
void stopController(Controller &controller);

} // namespace chat2sbx::test
