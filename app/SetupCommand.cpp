// `chat2sbx setup`: runs runtime/SetupRun (tunnel check, sbx checks, the pinned template) and
// prints its progress lines; exit 0 when the template is ready.
#include "Command.h"

#include "runtime/SetupRun.h"

#include <QCoreApplication>

namespace chat2sbx::app {
namespace {

int runSetup(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("setup takes no arguments (got '%1')").arg(ctx.args.join(QLatin1Char(' '))));
    SetupRun builder(ctx.config);
    if (qEnvironmentVariableIntValue("CHAT2SBX_SETUP_PROGRESS_MS") > 0)
        builder.setProgressIntervalMs(qEnvironmentVariableIntValue("CHAT2SBX_SETUP_PROGRESS_MS"));
    int code = 0;
    builder.run([&ctx](const QString &line) { ctx.print(line); },
                [&ctx, &code](bool ok, const QString &message) {
                    if (ok)
                        ctx.print(message);
                    else
                        code = ctx.fail(message);
                    QCoreApplication::exit(code);
                });
    QCoreApplication::exec();
    return code;
}

const bool registered = registerCommand({QStringLiteral("setup"), QStringLiteral("setup"),
                                         QStringLiteral("Check the tunnel and sbx, build the pinned sandbox template"), false, runSetup});

} // namespace
} // namespace chat2sbx::app
