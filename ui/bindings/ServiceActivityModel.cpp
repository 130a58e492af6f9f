#include "bindings/ServiceActivityModel.h"

#include "bindings/ClientNames.h"

#include "bindings/ServiceSandboxNames.h"

#include "sandbox/lifecycle/ActivityMonitor.h"

namespace chat2sbx::ui {

ServiceActivityModel::ServiceActivityModel(ActivityMonitor &monitor, const SandboxService &sandboxes, QObject *parent)
    : ActivityModel(parent), m_monitor(monitor), m_sandboxes(sandboxes)
{
    connect(&monitor, &ActivityMonitor::changed, this, &ActivityModel::changed);
    connect(&monitor, &ActivityMonitor::callsChanged, this, &ActivityModel::callsChanged);
}

QList<RunningCommandRow> ServiceActivityModel::running() const
{
    QList<RunningCommandRow> rows;
    ServiceSandboxNames names(m_sandboxes);
    for (const RunningCommand &c : m_monitor.running())
        rows.append(RunningCommandRow{c.sandboxId, c.sessionId, c.command, c.startedAt, c.lastLines, names(c.sandboxId)});
    return rows;
}

QList<ToolCallRow> ServiceActivityModel::recentCalls(int limit) const
{
    QList<ToolCallRow> rows;
    ServiceSandboxNames names(m_sandboxes);
    for (const AuditEntry &e : m_monitor.recentCalls(limit))
        rows.append(ToolCallRow{e.at, clientShownName(e.client), e.tool, e.sandboxId, e.summary, e.outcome, e.durationMs, e.detail,
                                e.shortConversation(), names(e.sandboxId)});
    return rows;
}

void ServiceActivityModel::setWatching(bool watching)
{
    m_monitor.setWatching(watching);
}

void ServiceActivityModel::stop(const QString &sandboxId, const QString &sessionId, ResultCallback done)
{
    m_monitor.stop(sandboxId, sessionId, std::move(done));
}

} // namespace chat2sbx::ui
