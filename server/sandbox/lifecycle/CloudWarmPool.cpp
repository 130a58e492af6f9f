#include "sandbox/lifecycle/CloudWarmPool.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/sbx/SbxCloud.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/WarmHandOver.h"

#include <QHash>
#include <QPointer>

#include <algorithm>

namespace chat2sbx {

CloudWarmPool::CloudWarmPool(const Config &config, Database &db, SbxDriver &sbx, Clock &clock, QObject *parent)
    : QObject(parent), m_config(config), m_db(db), m_sbx(sbx), m_clock(clock), m_repo(db),
      m_target(config.cloudSandboxes ? std::max(0, config.cloudWarmSandboxes) : 0)
{
    m_timer.setInterval(kMaintainEveryMs);
    connect(&m_timer, &QTimer::timeout, this, &CloudWarmPool::maintain);
}

int CloudWarmPool::readyCount() const
{
    const qint64 now = m_clock.nowMs();
    int n = 0;
    for (const CloudWarmRecord &r : m_repo.list())
        n += r.ready && !m_removing.contains(r.runtimeName) && r.expiresAt - now > kDropBeforeEndMs;
    return n;
}

void CloudWarmPool::start()
{
    if (m_started)
        return;
    m_started = true;
    if (m_target <= 0 && m_repo.list().isEmpty())
        return;
    QPointer<CloudWarmPool> self(this);
    m_sbx.cloudList([self](const SbxResult &result, const QList<SbxCloudInfo> &rows) {
        if (!self)
            return;
        if (!result.ok) {
            // No answer (no plan, no network): nothing is removed; tried again at the next upkeep.
            qCWarning(lcSandbox).noquote() << "warm cloud sandboxes: Docker's cloud did not answer:" << result.error;
            self->m_started = false;
            QTimer::singleShot(kMaintainEveryMs, self, &CloudWarmPool::start);
            return;
        }
        QHash<QString, QString> status;
        for (const SbxCloudInfo &row : rows)
            status.insert(row.name, row.status);
        const qint64 now = self->m_clock.nowMs();
        int kept = 0, removed = 0;
        for (const CloudWarmRecord &r : self->m_repo.list()) {
            const bool usable = r.ready && status.value(r.runtimeName) == QLatin1String("running")
                                && r.expiresAt - now > kDropBeforeEndMs && kept < self->m_target;
            if (usable) {
                ++kept;
                continue;
            }
            ++removed;
            if (status.contains(r.runtimeName)) {
                self->removeWarm(r);   // half-made (a create chat2sbx did not see to its end), ending, or surplus
            } else {
                QString error;
                self->m_repo.remove(r.runtimeName, error);
            }
        }
        if (kept || removed)
            qCInfo(lcSandbox).noquote() << QStringLiteral("warm cloud sandboxes: %1 kept, %2 removed").arg(kept).arg(removed);
        self->m_timer.start();
        self->maintain();
        emit self->warmChanged();
    });
}

void CloudWarmPool::maintain()
{
    const qint64 now = m_clock.nowMs();
    int live = 0;
    for (const CloudWarmRecord &r : m_repo.list()) {
        if (m_removing.contains(r.runtimeName) || m_inFlight.contains(r.runtimeName)) {
            live += m_inFlight.contains(r.runtimeName);
            continue;
        }
        // Ending soon (nobody would get much of it), or more than the target: removed now.
        if ((r.ready && r.expiresAt - now <= kDropBeforeEndMs) || live >= m_target || !r.ready) {
            removeWarm(r);
            continue;
        }
        ++live;
    }
    // After failures in a row (no plan, quota), the next try waits for the next upkeep.
    for (int made = 0; live < m_target && m_failuresInRow < 3 && made < m_target; ++live, ++made)
        fillOne();
    if (m_failuresInRow >= 3)
        m_failuresInRow = 2;   // one more try at the next upkeep
}

void CloudWarmPool::fillOne()
{
    CloudWarmRecord r;
    r.runtimeName = kCloudRuntimePrefix + randomHex(8);
    r.sandboxId = newId("sbx_");
    r.workspaceId = newId("ws_");
    r.workspacePath = m_config.workspaceRoot + QLatin1Char('/') + r.workspaceId;
    r.size = QStringLiteral("small");
    r.createdAt = m_clock.nowMs();
    QString error;
    // Persisted first: a kill -9 from here on leaves a row the next start removes with what the cloud made.
    if (!m_repo.insert(r, error)) {
        qCWarning(lcSandbox).noquote() << "cannot record a warm cloud sandbox:" << error;
        return;
    }
    m_inFlight.insert(r.runtimeName);
    createRuntime(r, true);
}

void CloudWarmPool::createRuntime(const CloudWarmRecord &r, bool canStop)
{
    SbxCloudCreateSpec spec;
    spec.name = r.runtimeName;
    spec.size = r.size;
    spec.ttlSeconds = m_config.cloudDefaultTtlSeconds;
    spec.onTimeout = canStop ? QStringLiteral("stop") : QString();   // as SandboxCreator makes them
    QPointer<CloudWarmPool> self(this);
    m_sbx.cloudCreate(spec, [self, r, canStop](const SbxResult &made, const QString &) {
        if (!self)
            return;
        if (!made.ok && canStop && made.error.contains(QLatin1String("on-timeout")))
            return self->createRuntime(r, false);   // an account that cannot stop: the server's default
        if (!made.ok) {
            self->m_inFlight.remove(r.runtimeName);
            ++self->m_failuresInRow;
            qCWarning(lcSandbox).noquote() << "making a warm cloud sandbox failed:" << made.error;
            self->removeWarm(r);
            return;
        }
        self->m_sbx.cloudTtl(r.runtimeName, 0, [self, r](const SbxResult &read, const SbxCloudTtl &ttl) {
            if (!self)
                return;
            self->m_inFlight.remove(r.runtimeName);
            const qint64 ends = read.ok && ttl.expiresAtMs > 0 ? ttl.expiresAtMs
                                                               : r.createdAt + self->m_config.cloudDefaultTtlSeconds * 1000;
            QString dbError;
            if (!self->m_repo.markReady(r.runtimeName, ends, dbError)) {
                if (!dbError.isEmpty())
                    qCWarning(lcSandbox).noquote() << dbError;
                self->removeWarm(r);   // the row went meanwhile (the pool was lowered): what was made goes too
                return;
            }
            self->m_failuresInRow = 0;
            qCInfo(lcSandbox).noquote() << "warm cloud sandbox ready:" << r.runtimeName;
            emit self->warmChanged();
        });
    });
}

void CloudWarmPool::removeWarm(const CloudWarmRecord &r)
{
    if (m_removing.contains(r.runtimeName))
        return;
    m_removing.insert(r.runtimeName);
    QPointer<CloudWarmPool> self(this);
    m_sbx.cloudRemove(r.runtimeName, [self, name = r.runtimeName](const SbxResult &removed) {
        if (!self)
            return;
        self->m_removing.remove(name);
        // Removed, or not there: the row goes. Else it stays for the next upkeep to try again.
        if (removed.ok || removed.error.contains(QLatin1String("not found"))) {
            QString dbError;
            self->m_repo.remove(name, dbError);
        }
        emit self->warmChanged();
    });
}

bool CloudWarmPool::handOver(int limit, qint64 idleMs, SandboxRecord &out, bool &limitReached)
{
    limitReached = false;
    const qint64 now = m_clock.nowMs();
    std::optional<CloudWarmRecord> pick;
    for (const CloudWarmRecord &r : m_repo.list())
        if (r.ready && !m_removing.contains(r.runtimeName) && r.expiresAt - now > kDropBeforeEndMs) {
            pick = r;
            break;
        }
    if (!pick)
        return false;
    WarmHandOverRows rows = warmHandOverRows(pick->sandboxId, pick->workspaceId, pick->workspacePath, pick->runtimeName, now, idleMs);
    SandboxRecord &r = rows.sandbox;
    r.state = SandboxState::Creating;   // attached by the caller, as a create's last step
    r.placement = QStringLiteral("cloud");
    r.cloudSize = pick->size;
    r.expiresAt = pick->expiresAt;
    r.expiresCeilingAt = pick->createdAt + kSbxCloudMaxTtlSeconds * 1000;
    QString error;
    const auto take = [this, &pick](QString &takeError) { return m_repo.takeReady(pick->runtimeName, takeError); };
    if (!commitWarmHandOver(m_db, take, rows, limit, limitReached, error)) {
        if (!limitReached && !error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot hand over a warm cloud sandbox:" << error;
        return false;
    }
    // Its scratch lives in the VM: no folder of this computer is made (WorkspaceService::createManaged).
    qCInfo(lcSandbox).noquote() << "handed over warm cloud sandbox" << r.runtimeName << "as" << r.id;
    out = r;
    emit warmChanged();
    QTimer::singleShot(0, this, &CloudWarmPool::maintain);   // its replacement
    return true;
}

} // namespace chat2sbx
