#pragma once

// In-memory models for widget tests of the popup (no server).
#include "models/ActivityModel.h"
#include "models/TrayModels.h"
#include "models/WorkspacesModel.h"

#include <QDateTime>

#include <algorithm>

namespace chat2sbx::ui::test {

class FakeApprovals : public ApprovalsModel {
public:
    QList<ApprovalRow> rows;
    QStringList approved, rejected;
    QString failWith;

    QList<ApprovalRow> pending() const override { return rows; }
    bool approve(const QString &id, QString &error) override { return decide(id, error, approved); }
    bool reject(const QString &id, QString &error) override { return decide(id, error, rejected); }
    void add(const ApprovalRow &row)
    {
        rows.append(row);
        emit changed();
        emit requested(row);
    }

private:
    bool decide(const QString &id, QString &error, QStringList &into)
    {
        if (!failWith.isEmpty()) {
            error = failWith;
            return false;
        }
        into << id;
        rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const ApprovalRow &r) { return r.id == id; }), rows.end());
        emit changed();
        return true;
    }
};

class FakeSandboxes : public SandboxesModel {
public:
    QList<SandboxRow> rows;
    QStringList destroyed;
    ResultCallback pendingDone;
    QString pendingId;

    QList<SandboxRow> sandboxes() const override { return rows; }
    void destroy(const QString &id, ResultCallback done) override
    {
        pendingId = id;
        pendingDone = std::move(done);
    }
    QStringList pauseCalls;        // "sbx_… refuse" or "sbx_… end"
    QStringList runningIn;         // what pause() answers runs while not told it may end
    QStringList unpublishCalls;
    void unpublish(const QString &id, int port, ResultCallback done) override
    {
        unpublishCalls << QStringLiteral("%1:%2").arg(id).arg(port);
        done(true, QStringLiteral("port %1 is off the internet").arg(port));
    }
    QStringList moveCalls;
    void move(const QString &id, bool toCloud, bool endRunningCommands, ResultCallback done) override
    {
        moveCalls << QStringLiteral("%1 %2%3").arg(id, toCloud ? QStringLiteral("cloud") : QStringLiteral("local"),
                                                   endRunningCommands ? QStringLiteral(" end") : QString());
        done(true, toCloud ? QStringLiteral("it now runs in Docker's cloud") : QStringLiteral("it now runs on this computer"));
    }
    QStringList extendCalls;
    void extend(const QString &id, ResultCallback done) override
    {
        extendCalls << id;
        done(true, QStringLiteral("%1 now runs until 15:30").arg(id));
    }
    void pause(const QString &id, bool endRunningCommands, PauseCallback done) override
    {
        pauseCalls << QStringLiteral("%1 %2").arg(id, endRunningCommands ? QStringLiteral("end") : QStringLiteral("refuse"));
        if (!endRunningCommands && !runningIn.isEmpty())
            return done(false, QStringLiteral("commands still run"), runningIn);
        for (SandboxRow &r : rows)
            if (r.id == id)
                r.state = QStringLiteral("stopped");
        emit changed();
        done(true, QString(), {});
    }
    QStringList checkpointCalls;   // "restore sbx_… ckp_…", "fork ckp_…", "delete ckp_…"
    void restore(const QString &sandboxId, const QString &checkpointId, ResultCallback done) override
    {
        checkpointCalls << QStringLiteral("restore %1 %2").arg(sandboxId, checkpointId);
        done(true, QString());
    }
    void fork(const QString &checkpointId, ResultCallback done) override
    {
        checkpointCalls << QStringLiteral("fork %1").arg(checkpointId);
        done(true, QStringLiteral("forked as sbx_fork"));
    }
    void deleteCheckpoint(const QString &checkpointId, ResultCallback done) override
    {
        checkpointCalls << QStringLiteral("delete %1").arg(checkpointId);
        done(true, QString());
    }
    void finishDestroy(bool ok, const QString &error = {})
    {
        if (ok) {
            destroyed << pendingId;
            rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const SandboxRow &r) { return r.id == pendingId; }),
                       rows.end());
            emit changed();
        }
        ResultCallback done = std::move(pendingDone);
        pendingDone = nullptr;
        done(ok, error);
    }
};

class FakeStatus : public StatusModel {
public:
    StatusInfo info;
    StatusInfo status() const override { return info; }
    void set(const StatusInfo &s)
    {
        info = s;
        emit changed();
    }
};

class FakeActivity : public ActivityModel {
public:
    QList<RunningCommandRow> rows;
    QList<ToolCallRow> calls;
    QStringList stopped;
    bool watching = false;

    QList<RunningCommandRow> running() const override { return rows; }
    QList<ToolCallRow> recentCalls(int limit) const override { return calls.mid(0, limit); }
    void setWatching(bool on) override { watching = on; }
    void stop(const QString &, const QString &sessionId, ResultCallback done) override
    {
        stopped << sessionId;
        rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const RunningCommandRow &r) { return r.sessionId == sessionId; }),
                   rows.end());
        emit changed();
        done(true, {});
    }
};

// Workspaces whose summaries are given up front (sandbox id -> line); fetch and revoke only record.
class FakeWorkspaces : public WorkspacesModel {
public:
    QList<WorkspaceRow> rows;
    QHash<QString, QString> summaries;
    QStringList fetched, revoked;

    QList<WorkspaceRow> workspaces() const override { return rows; }
    void summarize(const QString &sandboxId, std::function<void(const QString &)> done) override
    {
        done(summaries.value(sandboxId));
    }
    void fetch(const QString &sandboxId, ResultCallback done) override
    {
        fetched << sandboxId;
        done(true, QStringLiteral("fetched as chat2sbx/") + sandboxId);
    }
    void revoke(const QString &workspaceId, ResultCallback done) override
    {
        revoked << workspaceId;
        done(true, {});
    }
};

class FakeNetwork : public NetworkModel {
public:
    QList<NetworkRequestRow> requests;
    QList<BlockedHostsRow> blockedRows;
    QList<NetworkRuleRow> rules;
    QStringList allowed, denied;

    QList<NetworkRequestRow> pending() const override { return requests; }
    QList<BlockedHostsRow> blocked() const override { return blockedRows; }
    QList<NetworkRuleRow> alwaysRules() const override { return rules; }
    void refreshBlocked() override { emit changed(); }
    void allow(const QString &id, bool, ResultCallback done) override
    {
        allowed << id;
        done(true, {});
    }
    bool deny(const QString &id, QString &) override
    {
        denied << id;
        return true;
    }
    void allowBlocked(const QString &, const QString &host, ResultCallback done) override
    {
        allowed << host;
        done(true, {});
    }
    void removeRule(qint64, ResultCallback done) override { done(true, {}); }
};

inline qint64 fixedTime(int hour, int minute)
{
    return QDateTime(QDate(2026, 12, 2), QTime(hour, minute)).toMSecsSinceEpoch();
}

} // namespace chat2sbx::ui::test
