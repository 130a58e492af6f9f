#include "sandbox/lifecycle/Redaction.h"

#include "config/Config.h"
#include "state/SandboxRepository.h"

#include <QRegularExpression>

#include <algorithm>

namespace chat2sbx {

QString dataDirPlaceholder()
{
    return QStringLiteral("<chat2sbx data directory>");
}

QString redactDataPaths(const QString &text, const Config &config)
{
    QString t = text;
    if (!config.workspaceRoot.isEmpty()) {
        const QRegularExpression wsRe(QRegularExpression::escape(config.workspaceRoot) + QStringLiteral("/ws_[0-9a-f]{24}"));
        t.replace(wsRe, QStringLiteral("~/workspace"));
    }
    // Longest first: the workspace and state folders lie inside the data root.
    QStringList roots{config.workspaceRoot, config.stateDir, config.dataRoot};
    roots.removeAll(QString());
    std::sort(roots.begin(), roots.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
    for (const QString &root : roots)
        t.replace(root, dataDirPlaceholder());
    return t;
}

QString redactForAgent(const QString &text, const Config &config, const std::function<QList<SandboxRecord>()> &known)
{
    QString t = text;
    static const QRegularExpression runtimeRe(QStringLiteral("chat2sbx-[0-9a-f]{16}"));
    if (t.contains(runtimeRe)) {
        for (const SandboxRecord &r : known())
            if (!r.runtimeName.isEmpty())
                t.replace(r.runtimeName, r.id);
        t.replace(runtimeRe, QStringLiteral("<sandbox>"));
    }
    return redactDataPaths(t, config);
}

} // namespace chat2sbx
