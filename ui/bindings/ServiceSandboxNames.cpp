#include "bindings/ServiceSandboxNames.h"

#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxNames.h"

namespace chat2sbx::ui {

QString ServiceSandboxNames::operator()(const QString &sandboxId)
{
    if (sandboxId.isEmpty())
        return {};
    if (!m_loaded) {
        m_loaded = true;
        for (const SandboxView &v : m_sandboxes.list())
            m_names.insert(v.record.id, sandboxShortName(v));
    }
    return m_names.value(sandboxId, sandboxId);
}

} // namespace chat2sbx::ui
