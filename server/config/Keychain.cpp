#include "config/Keychain.h"

#include <QFileInfo>
#include <QPointer>
#include <QTimer>

#include <qt6keychain/keychain.h>

#include <memory>

#include <unistd.h>

namespace chat2sbx::keychain {
namespace {

// Runs one job with a deadline; `finished(job)` or `timedOut()` runs once, and not at all when a
// non-null context is gone by then.
void runJob(QKeychain::Job *job, QObject *context, int timeoutMs, std::function<void(QKeychain::Job *)> finished,
            std::function<void()> timedOut)
{
    auto fired = std::make_shared<bool>(false);
    const bool hasContext = context != nullptr;
    QPointer<QObject> guard(context);
    auto alive = [hasContext, guard] { return !hasContext || !guard.isNull(); };
    auto *timer = new QTimer(job);
    timer->setSingleShot(true);
    // On timeout the job is left to finish on its own (deleting it while the backend still holds a
    // pending call would be unsafe); it deletes itself when it eventually does.
    QObject::connect(timer, &QTimer::timeout, job, [fired, alive, timedOut] {
        if (std::exchange(*fired, true) || !alive())
            return;
        timedOut();
    });
    QObject::connect(job, &QKeychain::Job::finished, job, [job, fired, alive, finished](QKeychain::Job *) {
        job->deleteLater();
        if (std::exchange(*fired, true) || !alive())
            return;
        finished(job);
    });
    job->setAutoDelete(false);
    timer->start(timeoutMs);
    job->start();
}

Result failure(const QKeychain::Job *job)
{
    Result r;
    r.error = QStringLiteral("OS keychain: %1").arg(job->errorString());
    r.notFound = job->error() == QKeychain::EntryNotFound;
    return r;
}

Result timeout(int timeoutMs)
{
    Result r;
    r.error = QStringLiteral("the OS keychain did not answer within %1 s").arg(timeoutMs / 1000.0, 0, 'g', 3);
    r.timedOut = true;
    return r;
}

// Reports `error` from the event loop (callers are promised "later", never re-entrantly).
void failLater(const QString &error, Done done, QObject *context)
{
    Result r;
    r.error = error;
    const bool hasContext = context != nullptr;
    QPointer<QObject> guard(context);
    QTimer::singleShot(0, [r, done, hasContext, guard] {
        if (!hasContext || guard)
            done(r);
    });
}

} // namespace

QString serviceName()
{
    return QStringLiteral("chat2sbx");
}

QString unavailableReason()
{
#if defined(Q_OS_LINUX) || defined(Q_OS_FREEBSD)
    if (!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        return {};
    const QString runtimeDir = qEnvironmentVariable("XDG_RUNTIME_DIR", QStringLiteral("/run/user/%1").arg(::getuid()));
    if (QFileInfo(runtimeDir + QStringLiteral("/bus")).exists())
        return {};
    return QStringLiteral("no OS keychain is available (no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset "
                          "and %1/bus does not exist)").arg(runtimeDir);
#else
    return {};
#endif
}

void read(const QString &key, Done done, QObject *context, int timeoutMs)
{
    if (const QString why = unavailableReason(); !why.isEmpty())
        return failLater(why, std::move(done), context);
    auto *job = new QKeychain::ReadPasswordJob(serviceName());
    job->setKey(key);
    runJob(
        job, context, timeoutMs,
        [done](QKeychain::Job *j) {
            if (j->error() != QKeychain::NoError)
                return done(failure(j));
            Result r;
            r.text = static_cast<QKeychain::ReadPasswordJob *>(j)->textData();
            done(r);
        },
        [done, timeoutMs] { done(timeout(timeoutMs)); });
}

void write(const QString &key, const QString &value, Done done, QObject *context, int timeoutMs)
{
    if (const QString why = unavailableReason(); !why.isEmpty())
        return failLater(why, std::move(done), context);
    auto *job = new QKeychain::WritePasswordJob(serviceName());
    job->setKey(key);
    job->setTextData(value);
    runJob(
        job, context, timeoutMs,
        [done](QKeychain::Job *j) { done(j->error() != QKeychain::NoError ? failure(j) : Result{}); },
        [done, timeoutMs] { done(timeout(timeoutMs)); });
}

} // namespace chat2sbx::keychain
