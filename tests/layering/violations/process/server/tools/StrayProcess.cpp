#include <QProcess>

void startSomething()
{
    auto *p = new QProcess();   // a child process outside its owners: must be refused
    p->start(QStringLiteral("true"), {});
}
