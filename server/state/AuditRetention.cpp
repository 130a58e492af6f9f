#include "state/AuditRetention.h"

#include "core/Clock.h"
#include "state/AuditLogRepository.h"
#include "state/BashSessionRepository.h"
#include "state/Database.h"

#include <QLoggingCategory>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcAuditRetention, "chat2sbx.audit")

AuditRetention::AuditRetention(Database &db, const Clock &clock, int retentionDays, int maxRows, QObject *parent)
    : QObject(parent), m_db(db), m_clock(clock), m_maxAgeMs(qint64(retentionDays) * 24 * 3600 * 1000), m_maxRows(maxRows)
{
    m_timer.setInterval(3600 * 1000);
    connect(&m_timer, &QTimer::timeout, this, &AuditRetention::pruneNow);
}

void AuditRetention::start()
{
    pruneNow();
    m_timer.start();
}

void AuditRetention::stop()
{
    m_timer.stop();
}

int AuditRetention::pruneNow()
{
    if (!m_db.isOpen())
        return 0;
    QString error;
    AuditLogRepository repo(m_db);
    const int deleted = repo.prune(m_clock.nowMs(), m_maxAgeMs, m_maxRows, error);
    if (deleted < 0)
        qCWarning(lcAuditRetention).noquote() << "cannot prune the activity log:" << error;
    else if (deleted > 0)
        qCInfo(lcAuditRetention).noquote() << "pruned" << deleted << "activity log rows";
    const int sessions = BashSessionRepository(m_db).prune(m_clock.nowMs(), m_maxAgeMs, error);
    if (sessions < 0)
        qCWarning(lcAuditRetention).noquote() << "cannot prune ended bash sessions:" << error;
    else if (sessions > 0)
        qCInfo(lcAuditRetention).noquote() << "pruned" << sessions << "bash sessions of destroyed sandboxes or ended long ago";
    return deleted;
}

} // namespace chat2sbx
