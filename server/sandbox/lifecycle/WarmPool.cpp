#include "sandbox/lifecycle/WarmPool.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/Database.h"
#include "state/WarmHandOver.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QLoggingCategory>
#include <QPointer>

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcWarm, "chat2sbx.warm")

namespace {

// A managed folder the pool reserved: <workspace root>/ws_<hex>. Never anything else is deleted.
bool isReservedFolder(const Config &config, const QString &path)
{
    static const QRegularExpression re(QStringLiteral("^ws_[0-9a-f]{24}$"));
    return !config.workspaceRoot.isEmpty() && QFileInfo(path).absolutePath() == QDir::cleanPath(config.workspaceRoot)
           && re.match(QFileInfo(path).fileName()).hasMatch();
}

} // namespace

WarmPool::WarmPool(const Config &config, Database &db, SbxDriver &sbx, Clock &clock, QObject *parent)
    : QObject(parent), m_config(config), m_db(db), m_sbx(sbx), m_clock(clock), m_repo(db), m_target(config.warmSandboxes)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &WarmPool::maintain);
}

WarmPool::~WarmPool() = default;

void WarmPool::setTarget(int count)
{
    m_target = std::max(0, count);
    if (m_reconciled)
        scheduleMaintain(0);
}

int WarmPool::readyCount() const
{
    int n = 0;
    for (const WarmRecord &r : m_repo.list())
        n += r.state == WarmState::Ready && !m_removing.contains(r.runtimeName);
    return n;
}

int WarmPool::creatingCount() const
{
    int n = 0;
    for (const WarmRecord &r : m_repo.list())
        n += r.state == WarmState::Creating;
    return n;
}

void WarmPool::scheduleMaintain(int delayMs)
{
    if (!m_timer.isActive() || m_timer.remainingTime() > delayMs)
        m_timer.start(delayMs);
}

// ---- start-up -------------------------------------------------------------------------------------

void WarmPool::reconcileWith(const QSet<QString> &presentRuntimes, QSet<QString> &owned)
{
    const QString currentTemplate = m_config.templateRef();
    int adopted = 0, removed = 0;
    for (const WarmRecord &r : m_repo.list()) {
        owned.insert(r.runtimeName);
        if (m_inFlight.contains(r.runtimeName) || m_removing.contains(r.runtimeName))
            continue;
        const bool present = presentRuntimes.contains(r.runtimeName);
        if (r.state == WarmState::Ready && present && r.templateRef == currentTemplate && adopted < m_target) {
            ++adopted;   // left unattached: it may be asleep, and wakes when it is handed over
            continue;
        }
        ++removed;
        if (present || r.state == WarmState::Creating)
            removeWarm(r);   // half-made, stale, another template's, or surplus
        else
            dropRow(r);      // its runtime is gone
    }
    if (adopted || removed)
        qCInfo(lcWarm).noquote() << QStringLiteral("warm sandboxes: %1 adopted, %2 removed").arg(adopted).arg(removed);
    m_reconciled = true;
    scheduleMaintain(0);
    emit warmChanged();
}

// ---- upkeep ---------------------------------------------------------------------------------------

void WarmPool::maintain()
{
    if (!m_reconciled)
        return;
    const QString currentTemplate = m_config.templateRef();
    int live = 0;
    for (const WarmRecord &r : m_repo.list()) {
        if (m_removing.contains(r.runtimeName))
            continue;
        if (r.state == WarmState::Stale || (r.templateRef != currentTemplate && !m_inFlight.contains(r.runtimeName))) {
            removeWarm(r);
            continue;
        }
        if (live >= m_target && !m_inFlight.contains(r.runtimeName)) {
            removeWarm(r);   // warmSandboxes was lowered
            continue;
        }
        ++live;
    }
    // After a failure, wait the retry interval before the next `sbx create` (sbx broken, template missing).
    const bool backingOff = m_failuresInRow > 0 && m_sinceFailure.isValid() && m_sinceFailure.elapsed() < m_retryIntervalMs;
    for (; live < m_target && !backingOff; ++live)
        fillOne();
    // Stale rows written by `chat2sbx setup` in another process are noticed here.
    scheduleMaintain(m_failuresInRow > 0 ? m_retryIntervalMs : std::max(m_retryIntervalMs, 30000));
}

void WarmPool::fillOne()
{
    WarmRecord r;
    r.runtimeName = QStringLiteral("chat2sbx-") + randomHex(8);
    r.sandboxId = newId("sbx_");
    r.workspaceId = newId("ws_");
    r.workspacePath = m_config.workspaceRoot + QLatin1Char('/') + r.workspaceId;
    r.templateRef = m_config.templateRef();
    r.state = WarmState::Creating;
    r.createdAt = m_clock.nowMs();
    QString error;
    // Persist first: a kill -9 from here on leaves a row the next start removes with its runtime.
    if (!m_repo.insert(r, error)) {
        qCWarning(lcWarm).noquote() << "cannot record a warm sandbox:" << error;
        return;
    }
    if (!QDir().mkpath(m_config.workspaceRoot)
        || (::mkdir(QFile::encodeName(r.workspacePath).constData(), 0700) != 0 && errno != EEXIST)) {
        qCWarning(lcWarm).noquote() << "cannot create the folder of a warm sandbox under" << m_config.workspaceRoot;
        dropRow(r);
        ++m_failuresInRow;
        m_sinceFailure.start();
        return;
    }
    ::chmod(QFile::encodeName(m_config.workspaceRoot).constData(), 0700);
    m_inFlight.insert(r.runtimeName);
    emit warmChanged();
    SbxCreateSpec spec;
    spec.runtimeName = r.runtimeName;
    spec.templateRef = r.templateRef;
    spec.workspaceRoot = r.workspacePath;
    QPointer<WarmPool> self(this);
    m_sbx.create(spec, [self, r](const SbxResult &result) {
        if (!self)
            return;
        if (!result.ok)
            return self->created(r.runtimeName, false, result.error);
        if (!self->m_attacher)
            return self->created(r.runtimeName, true, {});
        RunningSandbox s;
        s.sandboxId = r.sandboxId;
        s.runtimeName = r.runtimeName;
        s.workspacePath = r.workspacePath;
        s.managedWorkspace = true;
        self->m_attacher->attach(s, [self, runtime = r.runtimeName](bool ok, const QString &attachError) {
            if (!self)
                return;
            if (ok)
                self->m_attached.insert(runtime);
            self->created(runtime, ok, ok ? QString() : QStringLiteral("its channel did not start: %1").arg(attachError));
        });
    });
}

void WarmPool::created(const QString &runtimeName, bool ok, const QString &error)
{
    m_inFlight.remove(runtimeName);
    const auto r = m_repo.find(runtimeName);
    QString dbError;
    if (ok && r && r->state == WarmState::Creating && m_repo.markReady(runtimeName, dbError)) {
        m_failuresInRow = 0;
        qCInfo(lcWarm).noquote() << "warm sandbox ready:" << runtimeName;
        emit warmChanged();
        scheduleMaintain(0);   // the target may have changed meanwhile
        return;
    }
    if (!ok) {
        ++m_failuresInRow;
        m_sinceFailure.start();
        qCWarning(lcWarm).noquote() << "making a warm sandbox failed (retrying in" << m_retryIntervalMs / 1000 << "s):" << error;
    }
    if (r)
        removeWarm(*r);   // failed, or marked stale while it was made
    else if (ok)
        removeWarm(WarmRecord{runtimeName, {}, {}, {}, {}, WarmState::Stale, 0});
    scheduleMaintain(ok ? 0 : m_retryIntervalMs);
}

void WarmPool::removeWarm(const WarmRecord &r)
{
    if (m_removing.contains(r.runtimeName))
        return;
    m_removing.insert(r.runtimeName);
    if (m_attached.remove(r.runtimeName) && m_attacher)
        m_attacher->detach(r.sandboxId);
    QPointer<WarmPool> self(this);
    m_sbx.remove(r.runtimeName, [self, r](const SbxResult &result) {
        if (!self)
            return;
        self->m_removing.remove(r.runtimeName);
        if (!result.ok) {
            // Gone already, or sbx failed: the row stays (stale) and the next maintain() tries again.
            self->m_sbx.list([self, r, error = result.error](const SbxResult &lr, const QList<SbxRuntimeInfo> &items) {
                if (!self)
                    return;
                const bool listed = !lr.ok || std::any_of(items.begin(), items.end(),
                                                          [&r](const SbxRuntimeInfo &i) { return i.name == r.runtimeName; });
                if (!listed)
                    return self->dropRow(r);
                qCWarning(lcWarm).noquote() << "cannot remove warm sandbox" << r.runtimeName << ":" << error;
                QString dbError;
                self->m_repo.markStale(r.runtimeName, dbError);
            });
            return;
        }
        self->dropRow(r);
    });
}

void WarmPool::dropRow(const WarmRecord &r)
{
    if (!r.workspacePath.isEmpty() && isReservedFolder(m_config, r.workspacePath))
        QDir(r.workspacePath).removeRecursively();
    QString error;
    if (!m_repo.remove(r.runtimeName, error))
        qCWarning(lcWarm).noquote() << "cannot forget warm sandbox" << r.runtimeName << ":" << error;
    emit warmChanged();
}

// ---- hand-over ------------------------------------------------------------------------------------

bool WarmPool::handOver(int limit, qint64 idleMs, SandboxRecord &out, bool &attached, bool &limitReached)
{
    limitReached = false;
    if (m_target <= 0 && m_repo.list().isEmpty())
        return false;
    const QString currentTemplate = m_config.templateRef();
    std::optional<WarmRecord> pick;
    for (const WarmRecord &r : m_repo.list()) {
        if (r.state != WarmState::Ready || r.templateRef != currentTemplate || m_removing.contains(r.runtimeName))
            continue;
        // An awake one first: it answers without waking a VM.
        if (!pick || (m_attached.contains(r.runtimeName) && !m_attached.contains(pick->runtimeName)))
            pick = r;
    }
    if (!pick)
        return false;
    attached = m_attached.contains(pick->runtimeName);

    WarmHandOverRows rows = warmHandOverRows(pick->sandboxId, pick->workspaceId, pick->workspacePath, pick->runtimeName,
                                             m_clock.nowMs(), idleMs);
    SandboxRecord &r = rows.sandbox;
    r.state = attached ? SandboxState::Running : SandboxState::Creating;
    r.templateRef = pick->templateRef;
    QString error;
    const auto take = [this, &pick](QString &takeError) { return m_repo.takeReady(pick->runtimeName, takeError); };
    if (!commitWarmHandOver(m_db, take, rows, limit, limitReached, error)) {
        if (!limitReached && !error.isEmpty())
            qCWarning(lcWarm).noquote() << "cannot hand over a warm sandbox:" << error;
        return false;
    }
    m_attached.remove(pick->runtimeName);   // the channel is the sandbox's now
    qCInfo(lcWarm).noquote() << "handed over warm sandbox" << r.runtimeName << "as" << r.id << (attached ? "(awake)" : "(waking)");
    out = r;
    emit warmChanged();
    scheduleMaintain(0);   // make its replacement
    return true;
}

void WarmPool::shutdown()
{
    m_timer.stop();
    if (m_attacher)
        for (const WarmRecord &r : m_repo.list())
            if (m_attached.contains(r.runtimeName))
                m_attacher->detach(r.sandboxId);
    m_attached.clear();
}

} // namespace chat2sbx
