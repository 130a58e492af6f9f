#pragma once

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

// The prompts chat2sbx offers (prompts/list, prompts/get): templates a client shows as commands,
// each a user message that starts a common piece of work the safe way.
namespace mcpprompts {

QJsonObject listResult();
// The prompts/get result for `name` with `arguments`; false with `error` set (an InvalidParams
// message) for an unknown prompt or a missing or malformed argument.
bool getResult(const QString &name, const QJsonObject &arguments, QJsonObject &result, QString &error);

} // namespace mcpprompts
} // namespace chat2sbx
