#pragma once

// For the tray integration tests: popup screenshots and settling the widgets between rebuilds.
#include "TestSupport.h"

#include <QString>

class QWidget;

namespace chat2sbx::test {

// <build>/test-output/screenshots/<name>.png; prints and returns the path (empty if it failed).
QString saveScreenshot(QWidget &widget, const QString &name);
// Lets deleteLater'd cards of a previous rebuild go before widgets are looked up.
void settleWidgets();

} // namespace chat2sbx::test
