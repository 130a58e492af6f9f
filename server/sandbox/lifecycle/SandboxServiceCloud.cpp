// SandboxService for a held cloud sandbox's runtime (a restore of a cloud checkpoint).
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QPointer>
#include <QTimer>

namespace chat2sbx {

namespace {
// `sbx --cloud rm` may return while the cloud still deletes (§2.8): the name stays taken meanwhile.
constexpr int kNameTakenRetries = 12;
constexpr int kNameTakenRetryMs = 5000;
} // namespace

void SandboxService::replaceHeldCloudRuntime(const QString &sandboxId, const QString &templateName,
                                             std::function<void(bool ok, const QString &error)> done)
{
    const auto r = m_ops->records().find(sandboxId);
    QString refusal;
    if (!r || !r->isCloud())
        refusal = QStringLiteral("sandbox %1 is not in Docker's cloud").arg(sandboxId);
    else if (m_ops->heldFor(sandboxId).isEmpty())
        refusal = QStringLiteral("sandbox %1 is not held").arg(sandboxId);
    if (!refusal.isEmpty())
        return QTimer::singleShot(0, this, [done, refusal] { done(false, refusal); });
    SbxCloudCreateSpec spec;
    spec.name = r->runtimeName;
    spec.templateName = templateName;
    spec.ttlSeconds = m_ops->config().cloudDefaultTtlSeconds;
    if (!m_ops->cloudExpiryDeletes())
        spec.onTimeout = QStringLiteral("stop");
    QPointer<SandboxService> self(this);
    m_ops->removeRuntime(spec.name, [self, sandboxId, spec, done](bool removed, const QString &rmError) {
        if (!self)
            return;
        if (!removed)
            return done(false, QStringLiteral("removing its cloud sandbox failed: %1").arg(rmError));
        self->createFromCloudTemplate(sandboxId, spec, kNameTakenRetries, done);
    });
}

void SandboxService::createFromCloudTemplate(const QString &sandboxId, const SbxCloudCreateSpec &spec, int retries,
                                             std::function<void(bool ok, const QString &error)> done)
{
    QPointer<SandboxService> self(this);
    m_ops->sbx().cloudCreate(spec, [self, sandboxId, spec, retries, done](const SbxResult &created, const QString &) {
        if (!self)
            return;
        if (!created.ok && retries > 0 && created.error.contains(QLatin1String("alreadyExists"))) {
            QTimer::singleShot(kNameTakenRetryMs, self, [self, sandboxId, spec, retries, done] {
                if (self)
                    self->createFromCloudTemplate(sandboxId, spec, retries - 1, done);
            });
            return;
        }
        if (!created.ok)
            return done(false, QStringLiteral("creating its cloud sandbox from the template %1 failed: %2").arg(spec.templateName, created.error));
        // The template is not recorded as its base (setTemplateRef): a cloud sandbox does not need it kept
        // (unlike a local VM, which sbx cannot save once its base image is gone), so the checkpoint may go.
        // It runs (with its memory and processes when the template kept them): the record says so, and
        // the hold keeps tool calls out until the holder releases it.
        QString error;
        const qint64 now = self->m_ops->clock().nowMs();
        if (!self->m_ops->records().markWoken(sandboxId, now, now + self->m_ops->idleMs(), error) && !error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "runs again:" << error;
        self->m_ops->recordCloudExpiry(sandboxId, spec.name, [self, done] {
            if (!self)
                return;
            emit self->sandboxesChanged();
            done(true, QString());
        });
    });
}

} // namespace chat2sbx
