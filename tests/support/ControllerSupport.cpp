#include "ControllerSupport.h"

#include "TestSupport.h"

#include <QSignalSpy>

namespace chat2sbx::test {

bool startController(Controller &controller, QString &error)
{
    QSignalSpy started(&controller, &Controller::started);
    QSignalSpy failed(&controller, &Controller::failed);
    controller.start();
    if (!waitFor([&] { return started.count() > 0 || failed.count() > 0; }, 30000)) {
        error = QStringLiteral("the controller did not start");
        return false;
    }
    if (!failed.isEmpty()) {
        error = QStringLiteral("the controller failed: ") + failed.first().first().toString();
        return false;
    }
    return true;
}

void stopController(Controller &controller)
{
    if (controller.state() == Controller::State::Stopped)
        return;
    QSignalSpy stopped(&controller, &Controller::stopped);
    controller.stop();
    stopped.wait(15000);
}

} // namespace chat2sbx::test
