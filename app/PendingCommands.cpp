// Commands whose implementation has not landed yet. They exist so `--help` shows the whole command
// line of DESIGN.md, and they fail loudly rather than pretend to succeed. Remove an entry when its
// real command file is added.
#include "Command.h"

namespace chat2sbx::app {
namespace {

struct Pending {
    const char *name;
    const char *usage;
    const char *summary;
};

const Pending kPending[] = {
    {"tray", "tray", "Start the tray application (the default)"},
};

const bool registered = [] {
    for (const Pending &p : kPending) {
        const QString name = QLatin1String(p.name);
        registerCommand({name, QLatin1String(p.usage), QLatin1String(p.summary) + QStringLiteral(" (not implemented yet)"),
                         false, [name](CommandContext &ctx) {
                             return ctx.fail(QStringLiteral("'%1' is not implemented in this build yet").arg(name));
                         }});
    }
    return true;
}();

} // namespace
} // namespace chat2sbx::app
