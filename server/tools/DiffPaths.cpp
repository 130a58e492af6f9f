#include "tools/DiffPaths.h"

namespace chat2sbx {

QString diffHeaderPath(const QString &workspacePath, bool managedWorkspace, const QString &path)
{
    QString p = path;
    while (p.startsWith(QLatin1String("./")))
        p = p.mid(2);
    if (!p.startsWith(QLatin1Char('~')) && !p.startsWith(QLatin1Char('/')))
        return p;
    // Managed workspaces are reached as ~/workspace; host ones at their own path.
    for (const QString &base : {managedWorkspace ? QStringLiteral("~/workspace") : QString(), workspacePath}) {
        if (!base.isEmpty() && p.startsWith(base + QLatin1Char('/')))
            return p.mid(base.size() + 1);
    }
    return p;
}

} // namespace chat2sbx
