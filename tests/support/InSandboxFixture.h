#pragma once
// Shared by the in-sandbox tool tests: a real sandbox of the fake sbx, its control channel, the
// bash-session service and the in-sandbox tools registered on a ToolRegistry, reached through a
// fixed SandboxResolver. Header-only on purpose (each test includes it once).

#include "TestSupport.h"
#include "ToolCallSupport.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "core/Ids.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/bash/BashSessions.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/Database.h"
#include "tools/InSandboxTools.h"

#include <QDir>
#include <QJsonDocument>
#include <QSqlQuery>

#include <memory>
#include <optional>

namespace chat2sbx::test {

class FixedResolver : public SandboxResolver {
public:
    RunningSandbox sandbox;
    int calls = 0;
    bool resolveRunning(const QString &sandboxId, RunningSandbox &out, QString &error) override
    {
        ++calls;
        if (sandboxId != sandbox.sandboxId) {
            error = QStringLiteral("sandbox %1 does not exist").arg(sandboxId);
            return false;
        }
        out = sandbox;
        return true;
    }
};

struct PendingCall {
    std::shared_ptr<std::optional<ToolResult>> result = std::make_shared<std::optional<ToolResult>>();
    bool done() const { return result->has_value(); }
    const ToolResult &get() const { return **result; }
};

class InSandboxFixture {
public:
    TestEnvironment env;
    Database db;
    std::unique_ptr<SbxDriver> driver;
    std::unique_ptr<ChannelPool> pool;
    std::unique_ptr<BashSessions> sessions;
    ToolRegistry tools;
    FixedResolver resolver;
    QString workspaceDir;

    const RunningSandbox &sandbox() const { return resolver.sandbox; }
    QString id() const { return resolver.sandbox.sandboxId; }

    // Creates the sandbox with the fake sbx and attaches its channel. managed: the workspace is a
    // managed one (reached as ~/workspace inside).
    bool setUp(QString &error, bool managed = true)
    {
        if (fakeSbxPath().isEmpty()) {
            error = QStringLiteral("CHAT2SBX_FAKE_SBX is not set (fake sbx not built)");
            return false;
        }
        qputenv("FAKE_SBX_STATE", QFile::encodeName(env.sbxState()));
        qputenv("FAKE_SBX_TEMPLATES", Config().templateRef().toUtf8());
        if (!db.open(env.dataRoot() + QStringLiteral("/state/chat2sbx.sqlite"), error))
            return false;
        const QString wsId = newId("ws_");
        workspaceDir = env.dataRoot() + QStringLiteral("/workspaces/") + wsId;
        QDir().mkpath(workspaceDir);
        QSqlQuery q(db.handle());
        if (!q.exec(QStringLiteral("INSERT INTO workspaces (id, mode, host_path, display_name, created_at, last_used_at)"
                                   " VALUES ('%1','managed','%2','w',1,1)").arg(wsId, workspaceDir))) {
            error = QStringLiteral("insert workspace failed");
            return false;
        }
        RunningSandbox sb;
        sb.sandboxId = newId("sbx_");
        sb.runtimeName = QStringLiteral("chat2sbx-") + randomHex(6);
        sb.workspacePath = workspaceDir;
        sb.managedWorkspace = managed;
        if (!q.exec(QStringLiteral("INSERT INTO sandboxes (id,workspace_id,runtime_name,state,created_at,updated_at,"
                                   "last_activity_at) VALUES ('%1','%2','%3','running',1,1,1)")
                        .arg(sb.sandboxId, wsId, sb.runtimeName))) {
            error = QStringLiteral("insert sandbox failed");
            return false;
        }
        resolver.sandbox = sb;

        driver = std::make_unique<SbxDriver>(fakeSbxPath(), fakeSbxVariables());
        SbxCreateSpec spec;
        spec.runtimeName = sb.runtimeName;
        spec.templateRef = Config().templateRef();
        spec.workspaceRoot = workspaceDir;
        std::optional<SbxResult> created;
        driver->create(spec, [&](const SbxResult &r) { created = r; });
        if (!waitFor([&] { return created.has_value(); }, 60000) || !created->ok) {
            error = QStringLiteral("sbx create: %1").arg(created ? created->error : QStringLiteral("timeout"));
            return false;
        }
        SandboxChannel::Options options;
        options.pingTimeoutMs = 3000;
        pool = std::make_unique<ChannelPool>(*driver, options);
        sessions = std::make_unique<BashSessions>(db, *pool, Clock::system());
        registerInSandboxTools(tools, resolver, *pool, *sessions);
        std::optional<QString> attached;
        pool->attach(sb, [&](bool ok, const QString &e) { attached = ok ? QString() : e; });
        if (!waitFor([&] { return attached.has_value(); }, 60000) || !attached->isEmpty()) {
            error = QStringLiteral("attach: %1").arg(attached ? *attached : QStringLiteral("timeout"));
            return false;
        }
        return true;
    }

    // `cancellation`: what the MCP layer cancels on notifications/cancelled (tests cancel it by hand).
    PendingCall start(const QString &name, QJsonObject args, bool addSandboxId = true,
                      const CancellationToken &cancellation = {})
    {
        PendingCall pending;
        if (addSandboxId && !args.contains(QStringLiteral("sandbox_id")))
            args.insert(QStringLiteral("sandbox_id"), id());
        const ToolRegistry::Entry *entry = tools.find(name);
        if (!entry) {
            *pending.result = ToolResult::error(QStringLiteral("no tool ") + name);
            return pending;
        }
        if (const auto invalid = schemaViolation(*entry, args)) {
            *pending.result = *invalid;
            return pending;
        }
        ToolCall call;
        call.toolName = name;
        call.arguments = args;
        call.cancellation = cancellation;
        auto result = pending.result;
        call.responder = ToolResponder([result](const ToolResult &r) { *result = r; });
        entry->handler(call);
        return pending;
    }

    ToolResult call(const QString &name, const QJsonObject &args, int timeoutMs = 30000)
    {
        PendingCall p = start(name, args);
        if (!waitFor([&] { return p.done(); }, timeoutMs))
            return ToolResult::error(QStringLiteral("test: %1 did not answer within %2 ms").arg(name).arg(timeoutMs));
        return p.get();
    }

    // A one-off `sbx exec <runtime> cmd...` (not through the channel).
    SbxResult exec(const QStringList &command, const QByteArray &stdinData = {})
    {
        SbxExecSpec spec;
        spec.runtimeName = sandbox().runtimeName;
        spec.command = command;
        spec.stdinData = stdinData;
        std::optional<SbxResult> r;
        driver->exec(spec, [&](const SbxResult &res) { r = res; });
        waitFor([&] { return r.has_value(); }, 30000);
        return r ? *r : SbxResult{};
    }

    static QString describe(const ToolResult &r)
    {
        return (r.isError ? QStringLiteral("isError: ") + r.message + QLatin1Char(' ') : QString())
               + QString::fromUtf8(QJsonDocument(r.structured).toJson(QJsonDocument::Compact)).left(600);
    }
};

} // namespace chat2sbx::test
