#include "sandbox/ports/PortExposure.h"

#include "sandbox/channel/SandboxResolver.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QLoggingCategory>
#include <QPointer>
#include <QTcpServer>

#include <optional>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcPorts, "chat2sbx.sandbox.ports")

namespace {

// A free TCP port on `hostIp` for `sbx ports --publish` (the contract needs an explicit host port).
int pickHostPort(const QString &hostIp)
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress(hostIp), 0))
        return 0;
    return probe.serverPort();
}

// Whether `hostIp:hostPort` can be bound right now (nothing else holds it).
bool hostPortFree(const QString &hostIp, int hostPort)
{
    QTcpServer probe;
    return probe.listen(QHostAddress(hostIp), static_cast<quint16>(hostPort));
}

// An existing mapping differs from what the caller asked for.
QString conflictWith(const SandboxPortRecord &known, const PortExposure::Request &request)
{
    if ((request.hostIpGiven && known.hostIp != request.hostIp) || (request.hostPort > 0 && known.hostPort != request.hostPort))
        return QStringLiteral("port %1 is already exposed on %2:%3; it stays there (destroy the sandbox to publish it elsewhere)")
            .arg(known.sandboxPort).arg(known.hostIp).arg(known.hostPort);
    return {};
}

} // namespace

PortExposure::PortExposure(Database &db, SandboxResolver &resolver, SbxDriver &sbx, QObject *parent)
    : QObject(parent), m_repo(db), m_resolver(resolver), m_sbx(sbx)
{
}

void PortExposure::expose(const QString &sandboxId, const Request &request, Done done)
{
    const int sandboxPort = request.sandboxPort;
    RunningSandbox running;
    QString error;
    if (!m_resolver.resolveRunning(sandboxId, running, error)) {
        Outcome o;
        o.error = error;
        return done(o);
    }
    if (const auto known = m_repo.findPort(sandboxId, sandboxPort)) {
        Outcome o;
        o.error = conflictWith(*known, request);
        o.ok = o.error.isEmpty();
        o.existing = true;
        o.port = *known;
        return done(o);
    }
    const QString key = sandboxId + QLatin1Char(':') + QString::number(sandboxPort);
    if (m_exposing.contains(key)) {
        m_exposing[key].append(std::move(done));
        return;
    }
    m_exposing.insert(key, {std::move(done)});

    QPointer<PortExposure> self(this);
    auto finish = [self, key](const Outcome &o) {
        if (!self)
            return;
        const auto waiters = self->m_exposing.take(key);
        for (const auto &w : waiters)
            w(o);
    };
    auto record = [self, sandboxId, finish, request](const SbxPortMapping &m, bool existing) {
        Outcome o;
        o.port = {m.sandboxPort, m.hostIp, m.hostPort};
        if (existing)
            o.error = conflictWith(o.port, request);
        o.ok = o.error.isEmpty();
        o.existing = existing;
        QString dbError;
        if (!self->m_repo.upsertPort(sandboxId, o.port, dbError))
            qCWarning(lcPorts).noquote() << "cannot record port of" << sandboxId << ":" << dbError;
        emit self->portsChanged();
        finish(o);
    };
    auto fail = [finish](const QString &message) {
        Outcome o;
        o.error = message;
        finish(o);
    };
    auto findIn = [sandboxPort](const QList<SbxPortMapping> &items) -> std::optional<SbxPortMapping> {
        for (const SbxPortMapping &m : items)
            if (m.sandboxPort == sandboxPort)
                return m;
        return std::nullopt;
    };
    const QString runtime = running.runtimeName;
    m_sbx.ports(runtime, [self, runtime, request, record, fail, findIn](const SbxResult &r, const QList<SbxPortMapping> &items) {
        if (!self)
            return;
        if (!r.ok)
            return fail(r.error);
        if (const auto m = findIn(items))
            return record(*m, true);
        int hostPort = request.hostPort;
        if (hostPort > 0 && !hostPortFree(request.hostIp, hostPort))
            return fail(QStringLiteral("host port %1 on %2 is already in use on this machine; choose another host_port "
                                       "or omit it to get a free one").arg(hostPort).arg(request.hostIp));
        if (hostPort == 0)
            hostPort = pickHostPort(request.hostIp);
        if (hostPort == 0)
            return fail(QStringLiteral("no free host port on %1").arg(request.hostIp));
        self->m_sbx.publish(runtime, request.hostIp, hostPort, request.sandboxPort,
                            [self, runtime, record, fail, findIn](const SbxResult &pr) {
            if (!self)
                return;
            if (!pr.ok)
                return fail(pr.error);
            self->m_sbx.ports(runtime, [record, fail, findIn](const SbxResult &r2, const QList<SbxPortMapping> &after) {
                if (!r2.ok)
                    return fail(r2.error);
                if (const auto m = findIn(after))
                    return record(*m, false);
                fail(QStringLiteral("sbx ports does not list the port after publishing it"));
            });
        });
    });
}

} // namespace chat2sbx
