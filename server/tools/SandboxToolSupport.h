#pragma once

#include "mcp/Tool.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <memory>

namespace chat2sbx {

struct Config;
class ChannelPool;
class CheckpointService;
class NetworkAccess;
class PublicPorts;
class SandboxListJson;
class SandboxService;

// What the sandbox tools (SandboxTools.h) work with and share.
struct SandboxToolContext {
    SandboxService *sandboxes = nullptr;
    const Config *config = nullptr;
    ChannelPool *channels = nullptr;             // optional: sandbox_expose then reports listening null
    std::shared_ptr<SandboxListJson> listJson;   // sandbox_list's summaries, kept serialized
    NetworkAccess *network = nullptr;            // optional: sandbox_get then lists no blocked hosts
    CheckpointService *checkpoints = nullptr;    // optional: sandbox_get then lists no checkpoints
    PublicPorts *publicPorts = nullptr;          // optional: a cloud sandbox's port is then refused
};

// Every sandbox tool needs sbx; when it is missing the answer says so (and a reconciliation retry runs).
void whenSbxAvailable(const SandboxToolContext &c, const ToolCall &call, std::function<void()> run);
// For the tools that read the records only (sandbox_list, sandbox_get): they answer at once whatever
// sbx does. Empty when sbx is available; otherwise why not (fit for the agent), and sbx is asked again
// in the background.
QString sbxProblemNow(const SandboxToolContext &c);
// The property those tools add while sbx is not available.
QPair<QString, QJsonValue> sbxProblemProperty();

// sbx can take minutes or hang (create has a 180 s timeout, then clean-up): the agent gets an answer
// after Config::sandboxAnswerWithinMs at the latest, saying the work goes on. The real outcome is
// recorded when sbx finishes and shows in sandbox_list / sandbox_get; the late answer is dropped.
void answerWithin(const SandboxToolContext &c, const ToolCall &call, const QString &stillRunning);

// The user's global AGENTS.md as `agents_md` in `out` when the file exists; false (with `error`) when
// it cannot be read.
bool insertAgentsMd(const Config &config, QJsonObject &out, QString &error);

// Schema fragments. Output schemas stay open (schema::result): isError results carry
// structuredContent too ({"error": ...}), and clients validate it against them.
QJsonObject knownSandboxIdProperty();       // sandbox_id of a sandbox from sandbox_create or sandbox_list
QJsonObject exposedPortProperties();        // one exposed port
QJsonObject agentsMdProperty();             // {agents_md}
QJsonObject sandboxSummarySchema(const QJsonObject &extra = {});   // a sandbox as SandboxPresenter shows it, plus `extra`

} // namespace chat2sbx
