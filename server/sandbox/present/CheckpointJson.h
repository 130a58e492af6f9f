#pragma once

#include "state/Checkpoint.h"

#include <QJsonObject>

namespace chat2sbx {

// A checkpoint as sandbox_checkpoint(s) and `chat2sbx sandbox checkpoints --json` show it: its id,
// sandbox, state (saving, ready, failed and why), label, time, whether the workspace was copied and
// the copy's size. Never a host path: the agent reads it.
QJsonObject checkpointJson(const Checkpoint &c);

} // namespace chat2sbx
