// sbx version [--json]. FAKE_SBX_VERSION sets the number (default v0.47.0); before v0.42 --json is
// an unknown flag, as in the real CLI.
#include "Args.h"
#include "Commands.h"
#include "Daemon.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace fakesbx {

namespace {

bool versionBefore(const QString &version, int major, int minor)
{
    static const QRegularExpression re(QStringLiteral("^v?([0-9]+)\\.([0-9]+)"));
    const QRegularExpressionMatch m = re.match(version);
    if (!m.hasMatch())
        return false;
    const int ma = m.captured(1).toInt();
    const int mi = m.captured(2).toInt();
    return ma < major || (ma == major && mi < minor);
}

} // namespace

int cmdVersion(const Context &ctx, const QStringList &args)
{
    QString version = ctx.faults.value(QStringLiteral("FAKE_SBX_VERSION")).trimmed();
    if (version.isEmpty())
        version = QStringLiteral("v0.47.0");
    const ParsedArgs parsed = parseArgs(args, {QStringLiteral("--json")}, {});
    if (!parsed.ok)
        return fail(parsed.error);
    if (!parsed.positional.isEmpty())
        return usageError(QStringLiteral("usage: sbx version [--json]"));
    if (!parsed.has(QStringLiteral("--json"))) {
        printOut(QStringLiteral("sbx version %1 (fake: chat2sbx test double)\n").arg(version).toLocal8Bit());
        return 0;
    }
    if (versionBefore(version, 0, 42))
        return fail(QStringLiteral("unknown flag: --json"));
    announceDaemonStart(ctx);
    // After an update the daemon still runs the old version until it restarts (sbx-releases#381).
    QString daemonVersion = ctx.faults.value(QStringLiteral("FAKE_SBX_DAEMON_VERSION")).trimmed();
    if (daemonVersion.isEmpty())
        daemonVersion = ctx.faults.enabled(QStringLiteral("FAKE_SBX_UPDATE_PENDING"))
                                && !QFileInfo::exists(ctx.state.path(QStringLiteral("daemon-restarted")))
                            ? QStringLiteral("v0.46.0")
                            : version;
    const QJsonObject out{{QStringLiteral("client"), QJsonObject{{QStringLiteral("version"), version}}},
                          {QStringLiteral("server"), QJsonObject{{QStringLiteral("version"), daemonVersion},
                                                                 {QStringLiteral("state"), QStringLiteral("running")}}}};
    printOut(QJsonDocument(out).toJson(QJsonDocument::Indented));
    return 0;
}

} // namespace fakesbx
