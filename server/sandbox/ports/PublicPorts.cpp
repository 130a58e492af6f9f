#include "sandbox/ports/PublicPorts.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcPublicPorts, "chat2sbx.sandbox.ports.public")

PublicPorts::PublicPorts(Database &db, Clock &clock, SbxDriver &sbx, QObject *parent)
    : QObject(parent), m_clock(clock), m_sbx(sbx), m_repo(db), m_sandboxes(db)
{
}

PublicPorts::Ask PublicPorts::request(const QString &sandboxId, int port, const QString &clientName)
{
    Ask ask;
    const std::optional<PublicPortRequest> latest = m_repo.findLatest(sandboxId, port);
    const qint64 now = m_clock.nowMs();
    if (latest) {
        ask.request = *latest;
        switch (latest->state) {
        case PublicPortState::Published: ask.status = Ask::Status::Published; return ask;
        case PublicPortState::Pending: ask.status = Ask::Status::Waiting; return ask;
        case PublicPortState::Approved: ask.status = Ask::Status::Publishing; return ask;
        case PublicPortState::Rejected:
            if (now - latest->decidedAt < kRetellMs) {
                ask.status = Ask::Status::Rejected;
                return ask;
            }
            break;
        case PublicPortState::Failed:
            if (now - latest->decidedAt < kRetellMs) {
                ask.status = Ask::Status::Failed;
                return ask;
            }
            break;
        case PublicPortState::Unpublished: break;
        }
    }
    if (m_repo.countPending() >= kMaxPending) {
        ask.reason = QStringLiteral("%1 public ports already wait for the user's decision: ask the user to decide those first").arg(kMaxPending);
        return ask;
    }
    PublicPortRequest r;
    r.id = newId("pub_");
    r.sandboxId = sandboxId;
    r.port = port;
    r.clientName = clientName.left(200);
    r.requestedAt = now;
    QString error;
    if (!m_repo.insert(r, error)) {
        ask.reason = error;
        return ask;
    }
    qCInfo(lcPublicPorts).noquote() << "port" << port << "of" << sandboxId << "waits for the user to publish it:" << r.id;
    ask.status = Ask::Status::Waiting;
    ask.request = r;
    emit requestsChanged();
    emit portRequested(r.id);
    return ask;
}

std::optional<PublicPortRequest> PublicPorts::approve(const QString &id, const QString &decidedBy, QString &error)
{
    const std::optional<PublicPortRequest> r = m_repo.find(id);
    if (!r) {
        error = QStringLiteral("no public port request %1").arg(id);
        return std::nullopt;
    }
    const std::optional<SandboxRecord> sandbox = m_sandboxes.find(r->sandboxId);
    if (!sandbox || !sandbox->isCloud() || !sandbox->isActive()) {
        error = QStringLiteral("sandbox %1 of request %2 is no longer in the cloud").arg(r->sandboxId, id);
        return std::nullopt;
    }
    const QString runtimeName = sandbox->runtimeName;
    const int moved = m_repo.move(id, PublicPortState::Pending, PublicPortState::Approved, m_clock.nowMs(), decidedBy, {}, {}, error);
    if (moved < 0)
        return std::nullopt;
    if (moved == 0) {
        error = QStringLiteral("public port request %1 is %2 already, not waiting for a decision").arg(id, publicPortStateName(r->state));
        return std::nullopt;
    }
    emit requestsChanged();
    QPointer<PublicPorts> self(this);
    m_sbx.cloudPublish(runtimeName, r->port, [self, id, port = r->port, sandboxId = r->sandboxId](const SbxResult &res, const QString &url) {
        if (!self)
            return;
        QString dbError;
        const bool ok = res.ok && !url.isEmpty();
        const QString failure = ok ? QString() : (res.ok ? QStringLiteral("sbx printed no URL for the port") : res.error);
        if (self->m_repo.move(id, PublicPortState::Approved, ok ? PublicPortState::Published : PublicPortState::Failed,
                              self->m_clock.nowMs(), {}, url, failure, dbError) < 0)
            qCWarning(lcPublicPorts).noquote() << dbError;
        if (ok)
            qCInfo(lcPublicPorts).noquote() << "port" << port << "of" << sandboxId << "is public at" << url;
        else
            qCWarning(lcPublicPorts).noquote() << "publishing port" << port << "of" << sandboxId << "failed:" << failure;
        emit self->requestsChanged();
    });
    return m_repo.find(id);
}

bool PublicPorts::reject(const QString &id, const QString &decidedBy, QString &error)
{
    const std::optional<PublicPortRequest> r = m_repo.find(id);
    if (!r) {
        error = QStringLiteral("no public port request %1").arg(id);
        return false;
    }
    const int moved = m_repo.move(id, PublicPortState::Pending, PublicPortState::Rejected, m_clock.nowMs(), decidedBy, {}, {}, error);
    if (moved == 0)
        error = QStringLiteral("public port request %1 is %2 already, not waiting for a decision").arg(id, publicPortStateName(r->state));
    if (moved > 0)
        emit requestsChanged();
    return moved > 0;
}

void PublicPorts::unpublish(const QString &sandboxId, const QString &runtimeName, int port, std::function<void(const QString &error)> done)
{
    const std::optional<PublicPortRequest> r = m_repo.findLatest(sandboxId, port);
    const QString key = sandboxId + QLatin1Char(':') + QString::number(port);
    QString refused;
    if (!r || r->state != PublicPortState::Published)
        refused = QStringLiteral("port %1 of %2 is not published").arg(port).arg(sandboxId);
    else if (m_unpublishing.contains(key))
        refused = QStringLiteral("port %1 of %2 is being unpublished already").arg(port).arg(sandboxId);
    if (!refused.isEmpty()) {
        QTimer::singleShot(0, this, [done, refused] { done(refused); });
        return;
    }
    m_unpublishing.insert(key);
    QPointer<PublicPorts> self(this);
    m_sbx.cloudUnpublish(runtimeName, port, [self, key, id = r->id, done](const SbxResult &res) {
        if (!self)
            return;
        self->m_unpublishing.remove(key);
        if (!res.ok)
            return done(res.error);
        QString error;
        if (self->m_repo.move(id, PublicPortState::Published, PublicPortState::Unpublished, self->m_clock.nowMs(), {}, {}, {}, error) < 0)
            return done(error);
        qCInfo(lcPublicPorts).noquote() << key << "is no longer public";
        emit self->requestsChanged();
        done({});
    });
}

std::optional<PublicPortRequest> PublicPorts::find(const QString &id) const
{
    return m_repo.find(id);
}

QList<PublicPortRequest> PublicPorts::pending() const
{
    return m_repo.list(true);
}

QList<PublicPortRequest> PublicPorts::list() const
{
    return m_repo.list(false);
}

QList<PublicPortRequest> PublicPorts::published(const QString &sandboxId) const
{
    return m_repo.published(sandboxId);
}

void PublicPorts::forgetSandboxes(const std::function<bool(const QString &)> &isGone)
{
    QSet<QString> gone;
    for (const PublicPortRequest &r : m_repo.live())
        if (!gone.contains(r.sandboxId) && isGone(r.sandboxId))
            gone.insert(r.sandboxId);
    QString error;
    for (const QString &sandboxId : std::as_const(gone))
        if (!m_repo.closeAllOf(sandboxId, error))   // a failure leaves them live until the next change
            qCWarning(lcPublicPorts).noquote() << error;
    if (!gone.isEmpty())
        emit requestsChanged();
}

} // namespace chat2sbx
