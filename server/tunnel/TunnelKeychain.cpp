#include "tunnel/TunnelKeychain.h"

#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QTimer>

#include <qt6keychain/keychain.h>

#include <memory>

#include <unistd.h>

namespace chat2sbx {
namespace {

const QString kIdEntry = QStringLiteral("tunnel-id");
const QString kKeyEntry = QStringLiteral("tunnel-key");

// Runs one keychain job with a deadline; `done(job-or-null, timedOut)` runs exactly once.
template <typename JobT>
void runJob(JobT *job, std::function<void(JobT *, bool timedOut)> done)
{
    auto fired = std::make_shared<bool>(false);
    auto timer = new QTimer(job);
    timer->setSingleShot(true);
    // On timeout the job is left to finish on its own (deleting it while the backend still holds a
    // pending call would be unsafe); it deletes itself when it eventually does.
    QObject::connect(timer, &QTimer::timeout, job, [job, done, fired] {
        if (*fired)
            return;
        *fired = true;
        done(job, true);
    });
    QObject::connect(job, &QKeychain::Job::finished, job, [job, done, fired](QKeychain::Job *) {
        job->deleteLater();
        if (*fired)
            return;
        *fired = true;
        done(job, false);
    });
    job->setAutoDelete(false);
    timer->start(TunnelKeychain::kJobTimeoutMs);
    job->start();
}

QString timeoutMessage()
{
    return QStringLiteral("the OS keychain did not answer within %1 s").arg(TunnelKeychain::kJobTimeoutMs / 1000);
}

} // namespace

QString TunnelKeychain::serviceName()
{
    return QStringLiteral("chat2sbx");
}

QString TunnelKeychain::unavailableReason()
{
#if defined(Q_OS_LINUX) || defined(Q_OS_FREEBSD)
    // libsecret and KWallet are both reached over the D-Bus session bus; without one a job would
    // only fail after trying to autolaunch a bus, so say so at once.
    if (!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        return {};
    const QString runtimeDir = qEnvironmentVariable("XDG_RUNTIME_DIR",
                                                    QStringLiteral("/run/user/%1").arg(::getuid()));
    if (QFileInfo(runtimeDir + QStringLiteral("/bus")).exists())
        return {};
    return QStringLiteral("no OS keychain is available (no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset "
                          "and %1/bus does not exist)").arg(runtimeDir);
#else
    return {};
#endif
}

void TunnelKeychain::read(ReadDone done)
{
    const QString unavailable = unavailableReason();
    if (!unavailable.isEmpty()) {
        QTimer::singleShot(0, [done, unavailable] { done(ReadResult{{}, {}, unavailable, false}); });
        return;
    }
    auto idJob = new QKeychain::ReadPasswordJob(serviceName());
    idJob->setKey(kIdEntry);
    runJob<QKeychain::ReadPasswordJob>(idJob, [done](QKeychain::ReadPasswordJob *job, bool timedOut) {
        if (timedOut)
            return done(ReadResult{{}, {}, timeoutMessage(), false});
        if (job->error() != QKeychain::NoError)
            return done(ReadResult{{}, {}, QStringLiteral("OS keychain: %1").arg(job->errorString()),
                                   job->error() == QKeychain::EntryNotFound});
        const QString tunnelId = job->textData().trimmed();
        auto keyJob = new QKeychain::ReadPasswordJob(serviceName());
        keyJob->setKey(kKeyEntry);
        runJob<QKeychain::ReadPasswordJob>(keyJob, [done, tunnelId](QKeychain::ReadPasswordJob *kj, bool keyTimedOut) {
            if (keyTimedOut)
                return done(ReadResult{{}, {}, timeoutMessage(), false});
            if (kj->error() != QKeychain::NoError)
                return done(ReadResult{{}, {}, QStringLiteral("OS keychain: %1").arg(kj->errorString()),
                                       kj->error() == QKeychain::EntryNotFound});
            done(ReadResult{tunnelId, kj->textData().trimmed(), {}, false});
        });
    });
}

void TunnelKeychain::write(const QString &tunnelId, const QString &key, WriteDone done)
{
    const QString unavailable = unavailableReason();
    if (!unavailable.isEmpty()) {
        QTimer::singleShot(0, [done, unavailable] { done(unavailable); });
        return;
    }
    auto idJob = new QKeychain::WritePasswordJob(serviceName());
    idJob->setKey(kIdEntry);
    idJob->setTextData(tunnelId);
    runJob<QKeychain::WritePasswordJob>(idJob, [done, key](QKeychain::WritePasswordJob *job, bool timedOut) {
        if (timedOut)
            return done(timeoutMessage());
        if (job->error() != QKeychain::NoError)
            return done(QStringLiteral("OS keychain: %1").arg(job->errorString()));
        auto keyJob = new QKeychain::WritePasswordJob(serviceName());
        keyJob->setKey(kKeyEntry);
        keyJob->setTextData(key);
        runJob<QKeychain::WritePasswordJob>(keyJob, [done](QKeychain::WritePasswordJob *kj, bool keyTimedOut) {
            if (keyTimedOut)
                return done(timeoutMessage());
            if (kj->error() != QKeychain::NoError)
                return done(QStringLiteral("OS keychain: %1").arg(kj->errorString()));
            done(QString());
        });
    });
}

} // namespace chat2sbx
