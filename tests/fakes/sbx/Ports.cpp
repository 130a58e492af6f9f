// sbx ports <runtime> --json | sbx ports <runtime> --publish <ip>:<hostport>:<sandboxport>/<proto>
#include "Args.h"
#include "Commands.h"
#include "FieldFaults.h"
#include "Daemon.h"
#include "Lifecycle.h"
#include "PortForwarder.h"

#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTcpServer>

#include <unistd.h>

namespace fakesbx {

namespace {

bool parseSpec(const QString &spec, PortMapping *m)
{
    static const QRegularExpression re(
        QStringLiteral("^([0-9.]+):([0-9]{1,5}):([0-9]{1,5})(?:/(tcp|tcp4|udp|udp4))?$"));
    const QRegularExpressionMatch match = re.match(spec);
    if (!match.hasMatch())
        return false;
    QHostAddress address;
    if (!address.setAddress(match.captured(1)) || address.protocol() != QAbstractSocket::IPv4Protocol)
        return false;
    m->hostIp = match.captured(1);
    m->hostPort = match.captured(2).toInt();
    m->sandboxPort = match.captured(3).toInt();
    m->protocol = match.captured(4).isEmpty() ? QStringLiteral("tcp4") : match.captured(4);
    return m->hostPort <= 65535 && m->sandboxPort >= 1 && m->sandboxPort <= 65535;
}

QSet<int> allocatedHostPorts(const Context &ctx)
{
    QSet<int> used;
    const QStringList names = ctx.state.sandboxNames();
    for (const QString &name : names) {
        SandboxMeta meta;
        if (ctx.state.readMeta(name, &meta)) {
            for (const PortMapping &p : meta.ports)
                used.insert(p.hostPort);
        }
    }
    return used;
}

int freePort(const QString &ip, const QSet<int> &used)
{
    for (int attempt = 0; attempt < 50; ++attempt) {
        QTcpServer probe;
        if (!probe.listen(QHostAddress(ip), 0))
            return -1;
        const int port = probe.serverPort();
        if (!used.contains(port))
            return port;
    }
    return -1;
}

int listPorts(const Context &ctx, const QString &name)
{
    SandboxMeta meta;
    if (!ctx.state.readMeta(name, &meta))
        return fail(QStringLiteral("sandbox '%1' not found").arg(name));
    QJsonArray array;
    for (const PortMapping &p : meta.ports)
        array.append(p.toJson());
    printOut(QJsonDocument(array).toJson(QJsonDocument::Indented));
    return 0;
}

int publish(const Context &ctx, const QString &name, const QString &spec)
{
    PortMapping wanted;
    if (!parseSpec(spec, &wanted))
        return fail(QStringLiteral("invalid port specification \"%1\" (expected <ip>:<hostport>:<sandboxport>/tcp4)").arg(spec));
    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    SandboxMeta meta;
    if (!ctx.state.readMeta(name, &meta) || meta.workspace.isEmpty())
        return fail(QStringLiteral("sandbox '%1' not found").arg(name));
    QString error;
    if (meta.status == QLatin1String("stopped")) {
        const int policy = requirePolicy(ctx);
        if (policy >= 0)
            return policy;
        if (const int executor = requireExecutor(ctx); executor >= 0)
            return executor;
        if (!startSandbox(ctx, &meta, &error))
            return fail(error);
    }
    for (const PortMapping &p : meta.ports) {
        if (p.sandboxPort == wanted.sandboxPort)
            return 0;  // already published: the existing mapping stays
    }
    const QSet<int> used = allocatedHostPorts(ctx);
    if (wanted.hostPort != 0 && used.contains(wanted.hostPort))
        return fail(QStringLiteral("host port %1 is already allocated").arg(wanted.hostPort));

    const bool forward = !ctx.faults.enabled(QStringLiteral("FAKE_SBX_NO_FORWARD")) &&
                         wanted.protocol.startsWith(QLatin1String("tcp")) && wanted.hostPort != wanted.sandboxPort;
    if (forward) {
        int fd = -1;
        int port = 0;
        for (int attempt = 0; attempt < 50 && fd < 0; ++attempt) {
            fd = openListener(wanted.hostIp, wanted.hostPort, &port, &error);
            if (fd < 0)
                return fail(QStringLiteral("host port %1 is not available: %2").arg(wanted.hostPort).arg(error));
            if (used.contains(port)) {
                ::close(fd);
                fd = -1;
            }
        }
        if (fd < 0)
            return fail(QStringLiteral("no free host port"));
        const bool started = spawnForwarder(ctx.selfExe, name, ctx.state.sandboxDir(name), fd, wanted.sandboxPort, &error);
        ::close(fd);
        if (!started)
            return fail(error);
        wanted.hostPort = port;
    } else if (wanted.hostPort == 0) {
        wanted.hostPort = freePort(wanted.hostIp, used);
        if (wanted.hostPort < 0)
            return fail(QStringLiteral("no free host port on %1").arg(wanted.hostIp));
    }
    meta.ports << wanted;
    if (!ctx.state.writeMeta(meta, &error))
        return fail(error);
    return 0;
}

} // namespace

int cmdPorts(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {QStringLiteral("--json")}, {QStringLiteral("--publish")});
    if (!parsed.ok)
        return fail(parsed.error);
    const QString usage = QStringLiteral("usage: sbx ports <sandbox> --json | sbx ports <sandbox> --publish <ip>:<hostport>:<sandboxport>/tcp4");
    if (parsed.positional.size() != 1 || parsed.has(QStringLiteral("--json")) == parsed.has(QStringLiteral("--publish")))
        return usageError(usage);
    if (parsed.count(QStringLiteral("--publish")) > 1)
        return fail(QStringLiteral("flag --publish given more than once"));
    const QString name = parsed.positional.first();
    if (parsed.has(QStringLiteral("--json")))
        return listPorts(ctx, name);
    return publish(ctx, name, parsed.value(QStringLiteral("--publish")));
}

} // namespace fakesbx
