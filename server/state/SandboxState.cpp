#include "state/SandboxState.h"

#include <QStringList>

namespace chat2sbx {
namespace {

constexpr SandboxState kAllStates[] = {SandboxState::Creating, SandboxState::Running,  SandboxState::Stopped,
                                       SandboxState::Destroying, SandboxState::Failed, SandboxState::Destroyed};

} // namespace

QString sandboxStateName(SandboxState state)
{
    switch (state) {
    case SandboxState::Creating: return QStringLiteral("creating");
    case SandboxState::Running: return QStringLiteral("running");
    case SandboxState::Stopped: return QStringLiteral("stopped");
    case SandboxState::Destroying: return QStringLiteral("destroying");
    case SandboxState::Failed: return QStringLiteral("failed");
    case SandboxState::Destroyed: return QStringLiteral("destroyed");
    }
    return {};
}

bool parseSandboxState(const QString &text, SandboxState &out)
{
    for (SandboxState s : kAllStates) {
        if (text == sandboxStateName(s)) {
            out = s;
            return true;
        }
    }
    return false;
}

bool isActiveSandboxState(SandboxState state)
{
    switch (state) {
    case SandboxState::Creating:
    case SandboxState::Running:
    case SandboxState::Stopped:
    case SandboxState::Destroying:
        return true;
    case SandboxState::Failed:
    case SandboxState::Destroyed:
        return false;
    }
    return false;
}

QString activeSandboxStatesSql()
{
    QStringList quoted;
    for (SandboxState s : kAllStates) {
        if (isActiveSandboxState(s))
            quoted << QLatin1Char('\'') + sandboxStateName(s) + QLatin1Char('\'');
    }
    return QLatin1Char('(') + quoted.join(QLatin1Char(',')) + QLatin1Char(')');
}

} // namespace chat2sbx
