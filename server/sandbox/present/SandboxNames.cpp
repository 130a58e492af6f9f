#include "sandbox/present/SandboxNames.h"

#include "state/SandboxRepository.h"
#include "state/WorkspaceRepository.h"

namespace chat2sbx {

namespace {
constexpr int kMaxBaseChars = 24;
constexpr int kSuffixDigits = 4;
}

QString sandboxShortName(const QString &sandboxId, const QString &workspaceFolderName, bool managedWorkspace)
{
    QString base;
    if (!managedWorkspace) {
        // One line of printable text: a folder name may hold anything a file system allows.
        for (const QChar c : workspaceFolderName.trimmed())
            base += c.isPrint() && !c.isSpace() ? c : QLatin1Char('-');
        if (base.size() > kMaxBaseChars)
            base = base.left(kMaxBaseChars - 1) + QChar(0x2026);
    }
    if (base.isEmpty())
        base = QStringLiteral("scratch");
    const QString random = sandboxId.startsWith(QLatin1String("sbx_")) ? sandboxId.mid(4) : sandboxId;
    return random.isEmpty() ? base : base + QLatin1Char('-') + random.left(kSuffixDigits);
}

QString sandboxShortName(const SandboxView &view)
{
    if (!view.workspace)
        return sandboxShortName(view.record.id, QString(), true);
    return sandboxShortName(view.record.id, view.workspace->displayName, view.workspace->mode == WorkspaceMode::Managed);
}

QString SandboxNameLookup::operator()(const QString &sandboxId)
{
    if (sandboxId.isEmpty())
        return {};
    const auto known = m_names.constFind(sandboxId);
    if (known != m_names.cend())
        return *known;
    QString name = sandboxId;
    if (const std::optional<SandboxRecord> r = SandboxRepository(m_db).find(sandboxId)) {
        const std::optional<Workspace> w = WorkspaceRepository(m_db).find(r->workspaceId);
        name = w ? sandboxShortName(sandboxId, w->displayName, w->mode == WorkspaceMode::Managed)
                 : sandboxShortName(sandboxId, QString(), true);
    }
    m_names.insert(sandboxId, name);
    return name;
}

} // namespace chat2sbx
