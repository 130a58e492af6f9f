#pragma once

#include "models/ActivityModel.h"

namespace chat2sbx {
class ActivityMonitor;
class SandboxService;
}

namespace chat2sbx::ui {

// ActivityModel over the server's ActivityMonitor.
class ServiceActivityModel : public ActivityModel {
    // No Q_OBJECT: it adds no signals or slots of its own.
public:
    ServiceActivityModel(ActivityMonitor &monitor, const SandboxService &sandboxes, QObject *parent = nullptr);
    QList<RunningCommandRow> running() const override;
    QList<ToolCallRow> recentCalls(int limit) const override;
    void setWatching(bool watching) override;
    void stop(const QString &sandboxId, const QString &sessionId, ResultCallback done) override;

private:
    // Outlives this: a server service (through TrayServices), which outlives the tray's models.
    ActivityMonitor &m_monitor;
    const SandboxService &m_sandboxes;
};

} // namespace chat2sbx::ui
