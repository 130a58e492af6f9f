#pragma once

#include "mcp/Tool.h"
#include "sandbox/bash/BashSessions.h"

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

class ToolArgs;

// What the bash tools (BashTools.h) share: their session ids, waits and the snapshot they answer with.

constexpr qint64 kMaxBashYieldMs = 60000;

// running / exited / lost (its processes died with the VM, no exit status): lost says why.
QString bashSessionStatus(bool exited, const QString &lostReason);
// lost_reason, when the session is lost.
void insertBashLostReason(QJsonObject &result, const QString &lostReason);

// Schema fragments.
QJsonObject bashSessionIdProperty();
QJsonObject bashYieldProperty();   // yield_time_ms, default 10000
QJsonObject bashStatusProperty();
QJsonObject bashLostReasonProperty();
QJsonObject bashExitCodeProperty();
// The output schema of bash, bash_poll, bash_stop and bash_write.
QJsonObject bashSnapshotSchema();

// The session_id argument; otherwise answers the call with the reason and returns false.
bool readBashSessionId(const ToolCall &call, ToolArgs &args, QString &sessionId);
// Answers the call with the snapshot (or the error) BashSessions reports.
BashSessions::SnapshotDone answerWithSnapshot(const ToolResponder &responder);

} // namespace chat2sbx
