#pragma once
// In-process sandbox stack for tests: the real SandboxService, SbxDriver (on the fake sbx),
// WorkspaceService and the sandbox tools over a TestEnvironment's data root, plus helpers to call
// tools and to look at the fake's state. Header-only so tests need no CMake change.

#include "TestSupport.h"
#include "ToolCallSupport.h"

#include "ManualClock.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxIdleExpiry.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxSleeper.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/Database.h"
#include "state/SandboxRepository.h"
#include "tools/SandboxTools.h"
#include "workspace/WorkspaceService.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include <memory>

namespace chat2sbx::test {

inline QString pinnedTemplate()
{
    return QStringLiteral("chat2sbx-shell:" CHAT2SBX_VERSION);
}

// Makes the in-process driver's children see the fake's state (child processes inherit our environment).
inline void pointFakeSbxAt(const TestEnvironment &env, bool withTemplate = true)
{
    qputenv("FAKE_SBX_STATE", env.sbxState().toUtf8());
    if (withTemplate)
        qputenv("FAKE_SBX_TEMPLATES", pinnedTemplate().toUtf8());
    else
        qunsetenv("FAKE_SBX_TEMPLATES");
}

// The status the fake sbx reports for `runtime` now (`sbx ls --json`): running, stopped, creating; empty
// when it does not list it.
inline QString fakeSandboxStatus(const TestEnvironment &env, const QString &runtime)
{
    QList<SbxRuntimeInfo> items;
    SbxDriver::parseList(runFakeSbx(env, {QStringLiteral("ls"), QStringLiteral("--json")}).out, items);
    for (const SbxRuntimeInfo &i : items)
        if (i.name == runtime)
            return i.status;
    return {};
}

struct CallResult {
    bool finished = false;
    ToolResult result;
    QJsonObject json() const { return result.structuredObject(); }
    QString text() const
    {
        return result.message + QLatin1Char(' ') + QString::fromUtf8(QJsonDocument(result.structuredObject()).toJson(QJsonDocument::Compact));
    }
};

class SandboxHarness {
public:
    explicit SandboxHarness(TestEnvironment &env, const QString &sbxPath = fakeSbxPath()) : m_env(env)
    {
        pointFakeSbxAt(env);
        config = env.config();
        config.sbxPath = sbxPath;
        QString error;
        opened = db.open(config.databasePath, error);
        if (!opened)
            qWarning("harness: %s", qPrintable(error));
        sbx = std::make_unique<SbxDriver>(config.sbxPath, config.sbxEnv);
        workspaces = std::make_unique<WorkspaceService>(config, db, clock);
        sandboxes = std::make_unique<SandboxService>(config, db, *workspaces, *sbx, clock);
        registerSandboxTools(tools, *sandboxes, config);
    }

    // Starts a call; the returned result fills in when the handler answers.
    std::shared_ptr<CallResult> start(const QString &name, const QJsonObject &args = {})
    {
        auto out = std::make_shared<CallResult>();
        const ToolRegistry::Entry *entry = tools.find(name);
        if (!entry) {
            out->finished = true;
            out->result = ToolResult::error(QStringLiteral("no such tool ") + name);
            return out;
        }
        if (const auto invalid = schemaViolation(*entry, args)) {
            out->finished = true;
            out->result = *invalid;
            return out;
        }
        ToolCall call;
        call.toolName = name;
        call.arguments = args;
        call.responder = ToolResponder([this, out](const ToolResult &r) {
            out->finished = true;
            out->result = r;
            checkLeaks(out->text());
        });
        entry->handler(call);
        return out;
    }

    CallResult call(const QString &name, const QJsonObject &args = {}, int timeoutMs = 30000)
    {
        auto r = start(name, args);
        waitFor([r] { return r->finished; }, timeoutMs);
        return *r;
    }

    bool reconcile(int timeoutMs = 30000)
    {
        bool done = false;
        sandboxes->reconciler().reconcile([&done] { done = true; });
        return waitFor([&done] { return done; }, timeoutMs);
    }

    // Result texts must never show a runtime name or a data-directory path.
    void checkLeaks(const QString &text)
    {
        static const QRegularExpression runtimeRe(QStringLiteral("chat2sbx-[0-9a-f]{6,}"));
        if (text.contains(runtimeRe))
            leaks << QStringLiteral("runtime name in: ") + text;
        for (const QString &p : {m_env.dataRoot(), config.workspaceRoot, config.stateDir})
            if (!p.isEmpty() && text.contains(p))
                leaks << QStringLiteral("data path in: ") + text;
    }

    // Names `sbx ls --json` shows right now (run synchronously; tests may block).
    QStringList runtimes() const
    {
        QProcess p;
        p.start(config.sbxPath, {QStringLiteral("ls"), QStringLiteral("--json")});
        p.waitForFinished(scaled(10000));
        QList<SbxRuntimeInfo> items;
        SbxDriver::parseList(p.readAllStandardOutput(), items);
        QStringList names;
        for (const SbxRuntimeInfo &i : items)
            names << i.name;
        return names;
    }

    // Every call the fake logged, as argv lists.
    QList<QStringList> calls() const
    {
        QList<QStringList> out;
        for (const QByteArray &line : readFile(m_env.sbxState() + QStringLiteral("/calls.log")).split('\n')) {
            if (line.trimmed().isEmpty())
                continue;
            QStringList argv;
            for (const QJsonValue &v : QJsonDocument::fromJson(line).array())
                argv << v.toString();
            out << argv;
        }
        return out;
    }
    int countCalls(const QString &command) const
    {
        int n = 0;
        for (const QStringList &c : calls())
            if (!c.isEmpty() && c.first() == command)
                ++n;
        return n;
    }

    // Calls of `command` naming `argument` (e.g. rm of one runtime).
    int countCalls(const QString &command, const QString &argument) const
    {
        int n = 0;
        for (const QStringList &c : calls())
            if (!c.isEmpty() && c.first() == command && c.contains(argument))
                ++n;
        return n;
    }

    TestEnvironment &m_env;
    Config config;
    Database db;
    SandboxRepository records{db};   // the tests' direct view of the sandboxes table
    bool opened = false;
    ManualClock clock;
    std::unique_ptr<SbxDriver> sbx;
    std::unique_ptr<WorkspaceService> workspaces;
    std::unique_ptr<SandboxService> sandboxes;
    ToolRegistry tools;
    QStringList leaks;
};

} // namespace chat2sbx::test
