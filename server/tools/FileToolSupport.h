#pragma once

#include "mcp/Tool.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <functional>

namespace chat2sbx {

class SandboxChannel;
class ToolArgs;
struct ChannelReply;

// What write and edit (FileTools.h) share: the sizes they take, the expected_sha256 guard and the
// helper's write request.

constexpr int kMaxFileWriteBytes = 10 * 1024 * 1024;   // the content a write or an edit leaves
constexpr int kMaxFileEditBytes = 8 * 1024 * 1024;     // the previous content read for the diff or the edit

// The expected_sha256 argument's schema.
QJsonObject expectedShaProperty();
// expected_sha256, lower-cased (empty when not given); otherwise answers the call and returns false.
bool readExpectedSha(const ToolCall &call, ToolArgs &args, QString &sha);

QString sha256Hex(const QByteArray &bytes);

// expectedSha: empty for any content, otherwise the sha256 the file must still have (checked in the
// sandbox right before the rename).
void writeSandboxFile(SandboxChannel &channel, const QString &path, const QByteArray &expectedSha, const QByteArray &content,
                      std::function<void(const ChannelReply &)> done);

} // namespace chat2sbx
