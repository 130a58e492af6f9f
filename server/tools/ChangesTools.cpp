#include "tools/ChangesTools.h"

namespace chat2sbx {

void registerChangesTools(ToolRegistry &registry, SandboxResolver &resolver, ChangesService &changes)
{
    addShowChangesTool(registry, resolver, changes);
    addExportChangesTool(registry, changes);
}

} // namespace chat2sbx
