#include "tray/TrayResources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE must be used outside any namespace; the icons live in the static chat2sbx_resources
// library, whose initialiser the linker would otherwise drop.
static void initTrayResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace chat2sbx::ui {

void ensureResources()
{
    static const bool done = [] {
        initTrayResources();
        return true;
    }();
    Q_UNUSED(done);
}

} // namespace chat2sbx::ui
