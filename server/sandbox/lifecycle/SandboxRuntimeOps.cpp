#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/sbx/SbxDriver.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>

namespace chat2sbx {

SandboxRuntimeOps::SandboxRuntimeOps(const Config &config, Database &db, WorkspaceService &workspaces, SbxDriver &sbx,
                                     Clock &clock, QObject *parent)
    : QObject(parent), m_config(config), m_workspaces(workspaces), m_sbx(sbx), m_clock(clock), m_repo(db),
      m_sessions(db), m_settings(db)
{
}

namespace {
const QString kCloudExpiryDeletes = QStringLiteral("cloud.expiry_deletes");
}

bool SandboxRuntimeOps::cloudExpiryDeletes() const
{
    if (!m_cloudExpiryDeletes)
        m_cloudExpiryDeletes = m_settings.value(kCloudExpiryDeletes).value_or(QString()) == QLatin1String("1");
    return *m_cloudExpiryDeletes;
}

void SandboxRuntimeOps::noteCloudExpiryDeletes(bool deletes)
{
    if (cloudExpiryDeletes() == deletes)
        return;
    QString error;
    m_cloudExpiryDeletes = deletes;
    if (!m_settings.setValue(kCloudExpiryDeletes, deletes ? QStringLiteral("1") : QStringLiteral("0"), m_clock.nowMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot record whether cloud sandboxes stop or go at their end:" << error;
}

void SandboxRuntimeOps::detach(const QString &sandboxId)
{
    if (m_attacher)
        m_attacher->detach(sandboxId);
}

SandboxView SandboxRuntimeOps::viewOf(const SandboxRecord &r) const
{
    SandboxView v;
    v.record = r;
    v.workspace = m_workspaces.find(r.workspaceId);
    v.ports = m_repo.ports(r.id);
    m_repo.readForkOrigin(v);
    return v;
}

RunningSandbox SandboxRuntimeOps::runningOf(const SandboxRecord &r, const std::optional<Workspace> &w) const
{
    return w ? runningOf(r, w->hostPath, w->isManaged()) : runningOf(r, QString(), false);
}

RunningSandbox SandboxRuntimeOps::runningOf(const SandboxRecord &r, const QString &workspacePath, bool managedWorkspace)
{
    RunningSandbox s;
    s.sandboxId = r.id;
    s.runtimeName = r.runtimeName;
    s.workspacePath = workspacePath;
    s.managedWorkspace = managedWorkspace;
    if (r.hasVmWorkspace()) {   // no host mount: the work lives in the VM (the helper makes ~/workspace)
        s.cloud = r.isCloud();
        s.workspacePath = QStringLiteral("~/workspace");
        s.managedWorkspace = true;
    }
    return s;
}

void SandboxRuntimeOps::persist(const QString &id, SandboxState state, const QString &reason)
{
    QString error;
    if (!m_repo.setState(id, state, reason, m_clock.nowMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot record state" << sandboxStateName(state) << "for" << id << ":" << error;
    emit sandboxesChanged();
}

void SandboxRuntimeOps::renewNow(const QString &id)
{
    const qint64 now = m_clock.nowMs();
    QString error;
    if (!m_repo.renew(id, now, now + idleMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot renew" << id << ":" << error;
}

void SandboxRuntimeOps::markSessionsLost(const QString &id, const QString &reason, qint64 startedBefore)
{
    QString error;
    const int n = m_sessions.markSandboxSessionsLost(id, reason, startedBefore, m_clock.nowMs(), error);
    if (n < 0)
        qCWarning(lcSandbox).noquote() << "cannot record the lost bash sessions of" << id << ":" << error;
    else if (n > 0)
        qCInfo(lcSandbox).noquote() << n << "bash sessions of" << id << "are lost:" << reason;
}

void SandboxRuntimeOps::removeRuntime(const QString &runtimeName, std::function<void(bool, const QString &)> done)
{
    if (runtimeName.isEmpty())
        return done(true, {});
    QPointer<SandboxRuntimeOps> self(this);
    if (isCloudRuntime(runtimeName)) {
        m_sbx.cloudRemove(runtimeName, [self, runtimeName, done](const SbxResult &r) {
            if (!self)
                return;
            if (r.ok)
                return done(true, {});
            // Gone already (its TTL ended and the cloud deleted it) counts as removed: the cloud's list says.
            self->m_sbx.cloudList([runtimeName, done, rmError = r.error](const SbxResult &lr, const QList<SbxCloudInfo> &items) {
                if (!lr.ok)
                    return done(false, rmError);
                for (const SbxCloudInfo &i : items)
                    if (i.name == runtimeName)
                        return done(false, rmError);
                done(true, {});
            });
        });
        return;
    }
    m_sbx.remove(runtimeName, [self, runtimeName, done](const SbxResult &r) {
        if (!self)
            return;
        if (r.ok)
            return done(true, {});
        // `rm` of a runtime that is already gone may fail; what counts is that `sbx ls` lacks it.
        self->m_sbx.list([runtimeName, done, rmError = r.error](const SbxResult &lr, const QList<SbxRuntimeInfo> &items) {
            if (!lr.ok)
                return done(false, rmError);
            for (const SbxRuntimeInfo &i : items)
                if (i.name == runtimeName)
                    return done(false, rmError);
            done(true, {});
        });
    });
}

void SandboxRuntimeOps::recordCloudExpiry(const QString &id, const QString &runtimeName, std::function<void()> then)
{
    QPointer<SandboxRuntimeOps> self(this);
    m_sbx.cloudTtl(runtimeName, 0, [self, id, then](const SbxResult &read, const SbxCloudTtl &ttl) {
        if (!self)
            return;
        if (read.ok && (ttl.expiresAtMs > 0 || ttl.maxExpiresAtMs > 0)) {
            QString error;
            if (!self->m_repo.setExpiry(id, ttl.expiresAtMs, ttl.maxExpiresAtMs, error))
                qCWarning(lcSandbox).noquote() << error;
        } else if (!read.ok) {
            qCWarning(lcSandbox).noquote() << "the time-to-live of cloud sandbox" << id << "is not known:" << read.error;
        }
        then();
    });
}

void SandboxRuntimeOps::stopRuntime(const QString &id, const QString &runtimeName, std::function<void()> finished)
{
    m_stopsInFlight.insert(id);
    QPointer<SandboxRuntimeOps> self(this);
    const auto stop = [this, runtimeName](SbxDriver::Callback cb) {
        isCloudRuntime(runtimeName) ? m_sbx.cloudStop(runtimeName, std::move(cb)) : m_sbx.stop(runtimeName, std::move(cb));
    };
    stop([self, id, finished](const SbxResult &r) {
        if (!self)
            return;
        self->m_stopsInFlight.remove(id);
        if (!r.ok)
            qCWarning(lcSandbox).noquote() << "sbx stop of sandbox" << id << "failed (its VM stops by itself once idle):"
                                           << r.error;
        if (finished)
            finished();
    });
}

} // namespace chat2sbx
