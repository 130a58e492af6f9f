#include "tray_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QJsonDocument>
#include <QPixmap>
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

} // namespace chat2sbx::test
