#pragma once

#include <QJsonObject>
#include <QString>

#include <functional>

namespace chat2sbx {
class Controller;
}

namespace chat2sbx::app {

struct CommandContext;

// One owner for the sandboxes. A CLI verb that changes state (CommandSpec::act) is a request to the
// running server on its control channel (runtime/ControlChannel), which acts with its own services
// (its holds, channels and warm pool) and answers with the verb's text and exit code; the CLI prints
// them as they are. With no server, the CLI takes the lock a server would hold (a server starting
// meanwhile waits for it), acts with services of its own and lets go. The same text, --json and
// exit code either way.
int runOwnedVerb(CommandContext &ctx, const QString &name);

// Lets `controller` answer the verbs on its control channel (serve and the tray call it).
void serveOwnedVerbs(Controller &controller);

// How long the CLI waits for a server's answer (a destroy saves a clone's work first) and for a
// server that is starting to open its channel.
constexpr int kVerbReplyTimeoutMs = 15 * 60 * 1000;
constexpr int kServerStartingWaitMs = 30000;

} // namespace chat2sbx::app
