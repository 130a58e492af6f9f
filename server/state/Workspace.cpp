#include "state/Workspace.h"

namespace chat2sbx {

QString workspaceModeName(WorkspaceMode mode)
{
    switch (mode) {
    case WorkspaceMode::Managed: return QStringLiteral("managed");
    case WorkspaceMode::Clone: return QStringLiteral("clone");
    case WorkspaceMode::Direct: return QStringLiteral("direct");
    }
    return {};
}

bool parseWorkspaceMode(const QString &text, WorkspaceMode &out)
{
    for (WorkspaceMode m : {WorkspaceMode::Managed, WorkspaceMode::Clone, WorkspaceMode::Direct}) {
        if (text == workspaceModeName(m)) {
            out = m;
            return true;
        }
    }
    return false;
}

QString Workspace::pathInSandbox() const
{
    return isManaged() ? QStringLiteral("~/workspace") : hostPath;
}

} // namespace chat2sbx
