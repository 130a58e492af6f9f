#include "state/StateCounts.h"

#include "state/ApprovalRepository.h"
#include "state/Database.h"
#include "state/SandboxRepository.h"
#include "state/WarmSandboxRepository.h"

namespace chat2sbx {

StateCounts StateCounts::readOnly(const QString &databasePath)
{
    Database db;
    db.setBusyTimeout(2000);
    QString error;
    if (!db.openReadOnly(databasePath, error))
        return {};
    return read(db);
}

StateCounts StateCounts::read(Database &db)
{
    StateCounts c;
    c.activeSandboxes = SandboxRepository(db).countActive();
    qint64 warm = 0;
    for (const WarmRecord &r : WarmSandboxRepository(db).list())
        warm += r.state == WarmState::Ready;
    c.warmSandboxes = warm;
    c.pendingApprovals = ApprovalRepository(db).list(true).size();
    return c;
}

} // namespace chat2sbx
