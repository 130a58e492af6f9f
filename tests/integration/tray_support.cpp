#include "tray_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QJsonDocument>
#include <QPixmap>
#include <QSignalSpy>
#include <QWidget>

#include <cstdio>
#include <vector>

#include <unistd.h>

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

int execInside(const char *sessionScript, const char *what, int argc, char **argv)
{
    const QByteArray script = qgetenv("CHAT2SBX_TEST_SOURCE_DIR") + "/tests/desktop/" + sessionScript;
    std::vector<char *> args = {const_cast<char *>("bash"), const_cast<char *>(script.constData())};
    for (int i = 0; i < argc; ++i)
        args.push_back(argv[i]);
    args.push_back(nullptr);
    execvp("bash", args.data());
    perror(what);
    return 1;
}

} // namespace chat2sbx::test
