#include "tray_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QJsonDocument>
#include <QPixmap>
#include <QSignalSpy>
#include <QWidget>

namespace chat2sbx::test {

QString saveScreenshot(QWidget &widget, const QString &name)
{
    const QString base = binaryDir().isEmpty() ? QDir::currentPath() : binaryDir();
    const QString dir = base + QStringLiteral("/test-output/screenshots");
    QDir().mkpath(dir);
    const QString path = dir + QLatin1Char('/') + name + QStringLiteral(".png");
    settleWidgets();   // the popup refits to its content on the next event loop pass
    const bool ok = widget.grab().save(path);
    qInfo().noquote() << "screenshot:" << path << (ok ? "" : "(could not save)");
    return ok ? path : QString();
}

void settleWidgets()
{
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

bool startController(Controller &controller, QString &error)
{
    QSignalSpy started(&controller, &Controller::started);
    controller.start();
    if (!started.wait(30000)) {
        error = QStringLiteral("the controller did not start");
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
