// sbx ls --json  (FAKE_SBX_LS_HIDE=<name>[,...]|all leaves sandboxes out, as if they had vanished:
// for FAKE_SBX_LS_HIDE_CALLS listings or FAKE_SBX_LS_HIDE_FOR_MS when set; FieldFaults.h)
#include "Args.h"
#include "Commands.h"
#include "FieldFaults.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace fakesbx {

int cmdList(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {QStringLiteral("--json")}, {});
    if (!parsed.ok)
        return fail(parsed.error);
    if (!parsed.has(QStringLiteral("--json")) || !parsed.positional.isEmpty())
        return usageError(QStringLiteral("usage: sbx ls --json"));
    const ListHiding hiding(ctx);
    QJsonArray array;
    const QStringList names = ctx.state.sandboxNames();
    for (const QString &name : names) {
        SandboxMeta meta;
        if (hiding.hides(name) || !ctx.state.readMeta(name, &meta))
            continue;
        QJsonArray ports;
        for (const PortMapping &p : std::as_const(meta.ports))
            ports.append(p.toJson());
        const QString id = QString::fromLatin1(QCryptographicHash::hash(name.toUtf8(), QCryptographicHash::Sha256).toHex().left(12));
        array.append(QJsonObject{{QStringLiteral("name"), name},
                                 {QStringLiteral("id"), id},
                                 {QStringLiteral("agent"), QStringLiteral("shell")},
                                 {QStringLiteral("status"), meta.status},
                                 {QStringLiteral("workspaces"), meta.workspace.isEmpty() ? QJsonArray() : QJsonArray{meta.workspace}},
                                 {QStringLiteral("ports"), ports}});
    }
    printOut(QJsonDocument(QJsonObject{{QStringLiteral("sandboxes"), array}}).toJson(QJsonDocument::Indented));
    return 0;
}

} // namespace fakesbx
