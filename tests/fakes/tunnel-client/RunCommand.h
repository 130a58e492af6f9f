// `tunnel-client run`: validation, fault handling before start, then the event loop.
#pragma once

#include <QStringList>

class QCoreApplication;

namespace faketunnel {

// argv is the whole command line (argv[0] included) as logged to FAKE_TUNNEL_LOG;
// runArgs are the arguments after "run".
int runCommand(QCoreApplication &app, const QStringList &argv, const QStringList &runArgs);

} // namespace faketunnel
