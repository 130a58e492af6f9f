#pragma once

// In-memory models for widget tests of the popup (no server).
#include "TrayModels.h"

#include <QDateTime>

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

inline qint64 fixedTime(int hour, int minute)
{
    return QDateTime(QDate(2026, 12, 2), QTime(hour, minute)).toMSecsSinceEpoch();
}

} // namespace chat2sbx::ui::test
