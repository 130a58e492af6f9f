#pragma once

#include "mcp/Tool.h"

#include <QJsonObject>
#include <QStringList>

class QObject;

namespace chat2sbx {

struct Config;

// What the checkpoint tools (CheckpointTools.h) share.

// The docker_images argument's schema (`what` it is for), and its values as given.
QJsonObject dockerImagesProperty(const QString &what);
QStringList dockerImagesOf(const ToolCall &call);

// A save, restore or fork of a large disk takes minutes: after sandboxAnswerWithinMs the agent hears
// `stillRunning` (it polls from there); a job done sooner answers first and this answer is dropped.
// The timer lives no longer than `context`.
void answerStillRunningAfter(const Config &config, QObject &context, const ToolResponder &responder,
                             const QJsonObject &stillRunning);

} // namespace chat2sbx
