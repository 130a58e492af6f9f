// sandbox_list's answer without the HTTP layer: the one query, the summaries and
// the JSON-RPC message serve sends, for N sandboxes in a fresh database. Prints one JSON object.
//   chat2sbx-bench-list [sandboxes=1000] [repeats=50]
#include "config/Config.h"
#include "core/Clock.h"
#include "core/Ids.h"
#include "core/JsonRpc.h"
#include "core/WorkingMemory.h"
#include "mcp/ToolCallRunner.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxListJson.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/Database.h"
#include "state/SandboxRepository.h"
#include "state/WorkspaceRepository.h"
#include "workspace/WorkspaceService.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

using namespace chat2sbx;

namespace {

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.at(v.size() / 2);
}

} // namespace

int main(int argc, char **argv)
{
    // As chat2sbx's main does; CHAT2SBX_BENCH_GLIBC_DEFAULTS=1 measures glibc's defaults instead.
    const bool glibcDefaults = qEnvironmentVariableIntValue("CHAT2SBX_BENCH_GLIBC_DEFAULTS") == 1;
    if (!glibcDefaults)
        keepWorkingMemory();
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int n = args.size() > 1 ? args.at(1).toInt() : 1000;
    const int repeats = args.size() > 2 ? args.at(2).toInt() : 50;

    QTemporaryDir tmp;
    Config config;
    config.dataRoot = QDir(tmp.path()).canonicalPath() + QStringLiteral("/.chat2sbx");
    config.stateDir = config.dataRoot + QStringLiteral("/state");
    config.workspaceRoot = config.dataRoot + QStringLiteral("/workspaces");
    config.databasePath = config.stateDir + QStringLiteral("/chat2sbx.sqlite");
    config.sbxPath = QStringLiteral("/nonexistent/sbx");
    QDir().mkpath(config.stateDir);
    Database db;
    QString error;
    if (!db.open(config.databasePath, error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    Clock &clock = Clock::system();
    WorkspaceService workspaces(config, db, clock);
    SbxDriver sbx(config.sbxPath, config.sbxEnv);
    SandboxService sandboxes(config, db, workspaces, sbx, clock);
    WorkspaceRepository workspaceRows(db);
    SandboxRepository sandboxRows(db);
    const qint64 now = clock.nowMs();
    for (int i = 0; i < n; ++i) {
        Workspace w;
        w.id = newId("ws_");
        w.hostPath = config.workspaceRoot + QLatin1Char('/') + w.id;
        w.displayName = QStringLiteral("managed workspace %1").arg(w.id);
        w.createdAt = w.lastUsedAt = now;
        SandboxRecord r;
        r.id = newId("sbx_");
        r.workspaceId = w.id;
        r.runtimeName = newId("chat2sbx-").left(25);
        r.state = SandboxState::Running;
        r.createdAt = r.updatedAt = r.lastActivityAt = now + i;
        r.idleDeadline = now + 3600 * 1000;
        bool limited = false;
        if (!workspaceRows.insert(w, error) || !sandboxRows.insertWithinLimit(r, 0, limited, error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
    }

    // What the sandbox_list handler and ToolCallRunner do: the query, the structured result (from
    // the summaries kept serialized; the first call builds them all), the JSON-RPC message.
    SandboxListJson listJson;
    QList<double> queryMs, answerMs, totalMs;
    double firstMs = 0;
    qsizetype bytes = 0;
    for (int i = -1; i < repeats; ++i) {
        QElapsedTimer t;
        t.start();
        const QList<SandboxView> views = sandboxes.list();
        const double q = t.nsecsElapsed() / 1e6;
        const ToolResult result = ToolResult::okJson(listJson.listJson(views, sandboxes, 0));
        const QByteArray message = jsonrpc::serializeResult(i, ToolCallRunner::callToolResultJson(result));
        const double all = t.nsecsElapsed() / 1e6;
        bytes = message.size();
        if (i < 0) {
            firstMs = all;
            continue;
        }
        queryMs << q;
        answerMs << all - q;
        totalMs << all;
    }
    const QJsonObject out{{QStringLiteral("bench"), QStringLiteral("sandbox_list_answer")},
                          {QStringLiteral("sandboxes"), n},
                          {QStringLiteral("malloc"), glibcDefaults ? QStringLiteral("glibc defaults") : QStringLiteral("keepWorkingMemory")},
                          {QStringLiteral("message_bytes"), double(bytes)},
                          {QStringLiteral("query_ms_median"), median(queryMs)},
                          {QStringLiteral("json_ms_median"), median(answerMs)},
                          {QStringLiteral("total_ms_median"), median(totalMs)},
                          {QStringLiteral("first_call_ms"), firstMs}};
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    return 0;
}
