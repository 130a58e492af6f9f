// `chat2sbx status`: effective configuration and whether a server is running and healthy: the MCP
// endpoint, the Secure MCP Tunnel, sandboxes against the limit, pending approvals. Exit 0 only when
// everything that is enabled is healthy. The report comes from runtime/StatusProbe.
#include "Command.h"

#include "runtime/StatusProbe.h"

#include <QCoreApplication>

namespace chat2sbx::app {
namespace {

int runStatus(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("status takes no arguments besides --json (got '%1')").arg(ctx.args.join(QLatin1Char(' '))));
    StatusProbe probe(ctx.config);
    int code = 0;
    probe.run([&ctx, &code](const StatusReport &report) {
        if (ctx.json)
            ctx.printJson(report.toCliJson());
        else
            ctx.print(report.toText());
        const QStringList problems = report.problems();
        if (!problems.isEmpty())
            code = ctx.fail(problems.join(QStringLiteral("; ")));
        QCoreApplication::exit(code);
    });
    QCoreApplication::exec();
    return code;
}

const bool registered = registerCommand({QStringLiteral("status"), QStringLiteral("status [--json]"),
                                         QStringLiteral("Show service, MCP and tunnel readiness"), false, runStatus});

} // namespace
} // namespace chat2sbx::app
