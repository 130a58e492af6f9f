#pragma once

#include <QString>

namespace chat2sbx {
class ExportApprovals;
}

namespace chat2sbx::app {

struct CommandContext;

// `chat2sbx approval approve|reject exp_…`: the user's decision on a file a sandbox wants to save.
int decideExportRequest(CommandContext &ctx, ExportApprovals &exports, const QString &id, bool approve);

} // namespace chat2sbx::app
