#pragma once

#include "McpTestClient.h"
#include "TestSupport.h"

#include <QDebug>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace chat2sbx::test {

// The sandbox_id of a sandbox_create in the cloud that succeeded (`extra`: size, ttl); empty when it
// failed (the client's lastBody says why).
inline QString createInCloud(McpTestClient &mcp, QJsonObject extra = {}, int timeoutMs = 120000)
{
    extra.insert(QStringLiteral("placement"), QStringLiteral("cloud"));
    const QJsonObject made = mcp.callToolResult(QStringLiteral("sandbox_create"), extra, timeoutMs);
    return made.value(QStringLiteral("isError")).toBool(true)
               ? QString()
               : made.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
}

// A tool result's structuredContent, and its first text.
inline QJsonObject structured(const QJsonObject &result)
{
    return result.value(QStringLiteral("structuredContent")).toObject();
}

inline QString text(const QJsonObject &result)
{
    return result.value(QStringLiteral("content")).toArray().first().toObject().value(QStringLiteral("text")).toString();
}

// What `bash` printed, or "ERROR: " and the error text.
inline QString bashOutput(McpTestClient &mcp, const QString &id, const QString &command)
{
    const QJsonObject r = mcp.callToolResult(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), id},
                                                                    {QStringLiteral("command"), command},
                                                                    {QStringLiteral("yield_time_ms"), 30000}});
    return r.value(QStringLiteral("isError")).toBool() ? QStringLiteral("ERROR: ") + text(r)
                                                        : structured(r).value(QStringLiteral("output")).toString();
}

// Calls bash until its output is `expected` (a sandbox just moved or made again may first say to
// call again); what it last said is logged when it never is.
inline bool bashSays(McpTestClient &mcp, const QString &id, const QString &command, const QString &expected)
{
    QString last;
    const bool ok = waitFor([&] { return (last = bashOutput(mcp, id, command)) == expected; }, 30000);
    if (!ok)
        qWarning().noquote() << "bash" << command << "said" << last << "not" << expected;
    return ok;
}

// The fake cloud's sandboxes as `sbx --cloud ls --json` lists them.
inline QJsonArray cloudRows(const TestEnvironment &env)
{
    const CliResult r = runFakeSbx(env, {QStringLiteral("--cloud"), QStringLiteral("ls"), QStringLiteral("--json")});
    return QJsonDocument::fromJson(r.out).object().value(QStringLiteral("sandboxes")).toArray();
}

// A repository on this computer with one commit on `main`, registered as a clone workspace (the
// user's own `chat2sbx workspace add`); its workspace id, empty on failure.
inline QString cloneWorkspace(TestEnvironment &env, const QString &repo)
{
    QDir().mkpath(repo);
    const auto git = [&repo](const QStringList &args) { return runProcess(QStringLiteral("git"), args, {}, repo).exitCode == 0; };
    writeFile(repo + QStringLiteral("/a.txt"), "alpha\n");
    if (!git({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")}) ||
        !git({QStringLiteral("add"), QStringLiteral(".")}) ||
        !git({QStringLiteral("-c"), QStringLiteral("user.name=user"), QStringLiteral("-c"), QStringLiteral("user.email=user@example.com"),
              QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("initial")}))
        return {};
    env.set(QStringLiteral("CHAT2SBX_ALLOWED_HOST_ROOTS"), QFileInfo(repo).absolutePath());
    const CliResult r = runCli(env, {QStringLiteral("workspace"), QStringLiteral("add"), repo});
    return r.exitCode == 0 ? QString::fromUtf8(r.out).trimmed().section(QLatin1Char(' '), 3, 3) : QString();
}

// `git <args>` in `repo`: its output, trimmed.
inline QString gitLine(const QString &repo, const QStringList &args)
{
    return QString::fromUtf8(runProcess(QStringLiteral("git"), args, {}, repo).out).trimmed();
}

} // namespace chat2sbx::test
