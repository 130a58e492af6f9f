// chat2sbx-loadgen: the benchmark client. Loopback MCP over raw keep-alive HTTP/1.1.
#include "Commands.h"

#include <QCoreApplication>
#include <QTextStream>

#include <map>

using namespace chat2sbx::bench;

static const char *kUsage =
    "usage: chat2sbx-loadgen <command> [options]\n"
    "  load   --url U [--label L] [--tool T --args JSON] [--clients 1,8,64] [--requests N] [--seconds S] [--warmup W]\n"
    "         closed-loop load: tools/list (no --tool) or tools/call; one JSON line per client count\n"
    "  tools  --url U                                  print the tools/list result\n"
    "  call   --url U --tool T [--args JSON] [--repeat N] [--warmup W] [--label L] [--print-result]\n"
    "  rpc    --url U                                  stdin: {\"method\",\"params\"} lines; stdout: answers\n"
    "  stream --url U --sandbox ID --command C [--poll-yield-ms MS] [--expect-bytes N] [--max-seconds S]\n"
    "  spawn  [--repeat N] [--label L] -- program args...   bare process start+wait cost\n"
    "JSON results go to stdout, a short table to stderr.\n";

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    const std::map<QString, int (*)(const QStringList &)> commands{
        {QStringLiteral("load"), cmdLoad},   {QStringLiteral("tools"), cmdTools},   {QStringLiteral("call"), cmdCall},
        {QStringLiteral("rpc"), cmdRpc},     {QStringLiteral("stream"), cmdStream}, {QStringLiteral("spawn"), cmdSpawn}};
    if (args.isEmpty() || !commands.count(args.first())) {
        QTextStream(stderr) << kUsage;
        return 2;
    }
    const QString name = args.takeFirst();
    return commands.at(name)(args);
}
