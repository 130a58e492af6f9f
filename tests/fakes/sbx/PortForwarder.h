// Makes a published port real: a detached helper process (this binary, "__forward") accepts on
// the host port and relays each connection to 127.0.0.1:<sandbox port>, where the sandbox's
// processes listen (the fake has no network namespace). It carries FAKE_SBX_SANDBOX=<runtime>,
// so `sbx rm` kills it, and it exits by itself once the sandbox directory is gone.
#pragma once

#include <QString>
#include <QStringList>

namespace fakesbx {

// A listening TCP socket on ip:port (port 0 picks one); returns the fd or -1 with *error.
int openListener(const QString &ip, int port, int *actualPort, QString *error);

// Starts the forwarder with listenFd as its descriptor 3. The caller closes listenFd afterwards.
bool spawnForwarder(const QString &selfExe, const QString &runtime, const QString &sandboxDir,
                    int listenFd, int sandboxPort, QString *error);

// Body of the hidden "__forward <runtime> <sandbox dir> <sandbox port>" command.
int runForwarder(int argc, char **argv, const QStringList &args);

} // namespace fakesbx
