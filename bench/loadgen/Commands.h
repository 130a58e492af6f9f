#pragma once
#include <QStringList>

namespace chat2sbx::bench {

// Each returns the process exit code. Arguments follow the sub-command name; see usage() in main.cpp.
int cmdLoad(const QStringList &args);     // closed-loop load, several client counts
int cmdTools(const QStringList &args);    // print the server's tools/list result
int cmdCall(const QStringList &args);     // one session, one tool called N times sequentially
int cmdRpc(const QStringList &args);      // one session; JSON-RPC requests from stdin lines, answers to stdout
int cmdStream(const QStringList &args);   // bash + bash_poll until exit, MB/s of output
int cmdSpawn(const QStringList &args);    // posix_spawn + waitpid N times: cost of a bare process run

} // namespace chat2sbx::bench
