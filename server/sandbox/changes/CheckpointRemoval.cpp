#include "sandbox/changes/CheckpointRemoval.h"

#include "config/Config.h"
#include "core/ChildProcess.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QFileInfo>
#include <QLoggingCategory>
#include <QPointer>
#include <QRegularExpression>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcCheckpointRemoval, "chat2sbx.checkpoint")

ChildSpec removeTree(const QString &dir)
{
    ChildSpec spec;
    spec.program = QStringLiteral("rm");
    spec.arguments = {QStringLiteral("-rf"), QStringLiteral("--"), dir};
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    spec.environment = env;
    spec.timeoutMs = 30 * 60 * 1000;
    spec.maxOutBytes = 64 * 1024;
    return spec;
}
} // namespace

CheckpointRemoval::CheckpointRemoval(const Config &config, Database &db, SbxDriver &sbx, QObject *parent)
    : QObject(parent), m_config(config), m_sbx(sbx), m_repo(db)
{
}

bool CheckpointRemoval::isTemplateOfLiveSandbox(const QString &checkpointId) const
{
    return m_repo.isTemplateOfLiveSandbox(checkpointId);
}

void CheckpointRemoval::removeAsked(const QString &checkpointId, const QSet<QString> &inUse, Done done)
{
    const std::optional<Checkpoint> c = m_repo.find(checkpointId);
    QString refusal;
    if (!c)
        refusal = QStringLiteral("unknown checkpoint_id %1").arg(checkpointId);
    else if (c->state == CheckpointState::Saving)
        refusal = QStringLiteral("checkpoint %1 is still being saved: delete it once it is ready").arg(c->id);
    else if (inUse.contains(c->id) || m_repo.pendingRestoreUsing(c->id))
        refusal = QStringLiteral("checkpoint %1 is being restored or forked right now").arg(c->id);
    else if (isTemplateOfLiveSandbox(c->id))
        refusal = QStringLiteral("checkpoint %1 is the template a sandbox still runs from (a fork of it, or one restored to it), "
                                 "and sbx cannot save that sandbox again without it: destroy that sandbox first").arg(c->id);
    if (!refusal.isEmpty())
        return done(false, refusal);
    remove(*c, std::move(done));
}

void CheckpointRemoval::remove(const Checkpoint &c, Done done)
{
    if (m_removing.contains(c.id))
        return done(true, {});
    m_removing.insert(c.id);
    QPointer<CheckpointRemoval> self(this);
    if (c.inCloud)
        return removeInCloud(c, std::move(done));
    m_sbx.templateRemove(c.templateRef, [self, c, done](const SbxResult &r) {
        if (!self)
            return;
        if (r.ok)
            return self->dropRow(c, done);
        // Already gone (a failed save, an earlier try, the user's own `sbx template rm`) is removed.
        self->m_sbx.templateList([self, c, done, rmError = r.error](const SbxResult &lr, const QStringList &refs) {
            if (!self)
                return;
            if (!lr.ok || refs.contains(c.templateRef)) {
                self->m_removing.remove(c.id);
                return done(false, QStringLiteral("sbx could not remove the template %1: %2").arg(c.templateRef, rmError));
            }
            self->dropRow(c, done);
        });
    });
}

void CheckpointRemoval::removeInCloud(const Checkpoint &c, Done done)
{
    QPointer<CheckpointRemoval> self(this);
    m_sbx.cloudTemplateRemove(c.templateRef, [self, c, done](const SbxResult &r) {
        if (!self)
            return;
        if (r.ok)
            return self->dropRow(c, done);
        // Already gone (a failed save, the user's own `sbx --cloud template rm`) counts as removed.
        self->m_sbx.cloudTemplateList([self, c, done, rmError = r.error](const SbxResult &lr, const QList<SbxCloudTemplate> &listed) {
            if (!self)
                return;
            const bool stillThere = std::any_of(listed.begin(), listed.end(), [&c](const SbxCloudTemplate &t) { return t.name == c.templateRef; });
            if (!lr.ok || stillThere) {
                self->m_removing.remove(c.id);
                return done(false, QStringLiteral("sbx could not remove the cloud template %1: %2").arg(c.templateRef, rmError));
            }
            self->dropRow(c, done);
        });
    });
}

void CheckpointRemoval::dropRow(const Checkpoint &c, const Done &done)
{
    const QString dir = c.workspaceCopy.isEmpty() ? QString() : QFileInfo(c.workspaceCopy).path();
    QPointer<CheckpointRemoval> self(this);
    const auto finish = [self, c, done] {
        if (!self)
            return;
        self->m_removing.remove(c.id);
        QString error;
        if (!self->m_repo.remove(c.id, error))
            return done(false, error);
        emit self->removed(c.sandboxId, c.id);
        done(true, {});
    };
    if (dir.isEmpty() || !QFileInfo(dir).fileName().startsWith(QLatin1String("ckp_")))
        return finish();
    ChildProcess::run(removeTree(dir), this, [finish](const ChildResult &) { finish(); });
}

QList<Checkpoint> CheckpointRemoval::evictOverBudget(const QSet<QString> &keep, QString &overBudget)
{
    QList<Checkpoint> local, cloud;   // oldest first
    for (const Checkpoint &c : m_repo.inState(CheckpointState::Ready))
        (c.inCloud ? cloud : local).append(c);
    QString localOver, cloudOver;
    QList<Checkpoint> evicted = evictFrom(local, {m_config.checkpointMaxCount, m_config.checkpointMaxGiB, QStringLiteral("checkpoints"),
                                                  QStringLiteral("checkpointMaxCount"), QStringLiteral("checkpointMaxGiB")},
                                         keep, localOver);
    evicted += evictFrom(cloud, {m_config.cloudCheckpointMaxCount, m_config.cloudCheckpointMaxGiB,
                                 QStringLiteral("checkpoints in Docker's cloud"), QStringLiteral("cloudCheckpointMaxCount"),
                                 QStringLiteral("cloudCheckpointMaxGiB")},
                         keep, cloudOver);
    overBudget = QStringList{localOver, cloudOver}.filter(QRegularExpression(QStringLiteral("."))).join(QStringLiteral(". "));
    return evicted;
}

QList<Checkpoint> CheckpointRemoval::evictFrom(const QList<Checkpoint> &ready, const Budget &budget, const QSet<QString> &keep,
                                               QString &overBudget)
{
    int count = int(ready.size());
    qint64 bytes = 0;
    int pinned = 0;
    qint64 pinnedBytes = 0;
    for (const Checkpoint &c : ready) {
        bytes += c.sizeBytes;
        if (c.pinned) {
            ++pinned;
            pinnedBytes += c.sizeBytes;
        }
    }
    const qint64 maxBytes = qint64(budget.maxGiB) << 30;
    QList<Checkpoint> evicted;
    for (const Checkpoint &c : ready) {
        if (count <= budget.maxCount && bytes <= maxBytes)
            break;
        if (c.pinned || keep.contains(c.id) || m_removing.contains(c.id) || m_repo.pendingRestoreUsing(c.id) || isTemplateOfLiveSandbox(c.id))
            continue;
        evicted << c;
        --count;
        bytes -= c.sizeBytes;
        qCInfo(lcCheckpointRemoval).noquote() << "checkpoint" << c.id << "of" << c.sandboxId << "evicted by the budget";
        remove(c, [id = c.id](bool ok, const QString &error) {
            if (!ok)
                qCWarning(lcCheckpointRemoval).noquote() << "removing evicted checkpoint" << id << "failed:" << error;
        });
    }
    // What the evictions leave (their rows stay ready until sbx removed the templates).
    overBudget.clear();
    if (count > budget.maxCount || bytes > maxBytes)
        overBudget = QStringLiteral("%1 %2 (%3 GiB) are kept, more than the budget (%4 %5, %6 %7): "
                                    "%8 of them (%9 GiB) are pinned (pin: true, or the undo of a clone restore, one per sandbox) and "
                                    "the budget never evicts those. Delete or unpin some with sandbox_checkpoint_delete")
                         .arg(count)
                         .arg(budget.what)
                         .arg(double(bytes) / double(1 << 30), 0, 'f', 1)
                         .arg(budget.countKey)
                         .arg(budget.maxCount)
                         .arg(budget.gibKey)
                         .arg(budget.maxGiB)
                         .arg(pinned)
                         .arg(double(pinnedBytes) / double(1 << 30), 0, 'f', 1);
    return evicted;
}

void CheckpointRemoval::sweep()
{
    for (const Checkpoint &c : m_repo.orphaned(100)) {
        if (m_removing.contains(c.id))
            continue;
        remove(c, [id = c.id](bool ok, const QString &error) {
            if (!ok)
                qCWarning(lcCheckpointRemoval).noquote() << "removing checkpoint" << id << "of a destroyed sandbox failed:" << error;
        });
    }
}

} // namespace chat2sbx
