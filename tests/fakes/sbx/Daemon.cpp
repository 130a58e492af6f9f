#include "Daemon.h"

#include <QFile>
#include <QFileInfo>

#include <cstdio>
#include <unistd.h>

namespace fakesbx {

void announceDaemonStart(const Context &ctx)
{
    const QString marker = ctx.state.path(QStringLiteral("daemon.log"));
    const QString where = ctx.faults.value(QStringLiteral("FAKE_SBX_DAEMON_NOTICE")).trimmed();
    if (QFileInfo::exists(marker) && where != QLatin1String("always"))
        return;
    QFile log(marker);
    if (!log.open(QIODevice::WriteOnly | QIODevice::Append))
        return;
    log.write("sandboxd started by the fake sbx\n");
    log.close();
    if (where == QLatin1String("off") || where == QLatin1String("0"))
        return;
    FILE *stream = where == QLatin1String("stderr") ? stderr : stdout;
    std::fprintf(stream, "Starting sandboxd daemon...\nDaemon started (PID %ld)\nLogs: %s\n",
                 static_cast<long>(::getpid()), marker.toLocal8Bit().constData());
    std::fflush(stream);
}

int requireSignedIn(const Context &ctx)
{
    if (!ctx.faults.enabled(QStringLiteral("FAKE_SBX_NOT_SIGNED_IN")))
        return -1;
    return fail(QStringLiteral("ERROR: you are not signed in and there is no terminal to sign in: "
                               "run 'sbx login' first"));
}

int requirePolicy(const Context &ctx)
{
    if (!ctx.faults.enabled(QStringLiteral("FAKE_SBX_NO_POLICY")))
        return -1;
    return fail(QStringLiteral("ERROR: no network policy is set and there is no terminal to choose one: "
                               "run 'sbx policy init balanced' (or another policy) first"));
}

} // namespace fakesbx
