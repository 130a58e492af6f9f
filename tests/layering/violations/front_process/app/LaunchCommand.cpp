#include <QProcess>

void launchSomething()
{
    QProcess p;   // a child process in app/, outside the runner: must be refused
    p.start(QStringLiteral("true"), {});
}
