#pragma once

#include <QJsonObject>
#include <QString>

#include <functional>

namespace chat2sbx {
struct PublicPortRequest;
struct Services;
}

namespace chat2sbx::app {

struct CommandContext;

// `chat2sbx approval approve|reject pub_…`: a cloud sandbox's port on the internet, or not.
// Approving publishes it and waits (at most kPublishWaitMs) for the cloud's URL to print it.
void decidePublicPort(CommandContext &ctx, Services &services, const QString &id, bool approve, std::function<void(int)> done);
QJsonObject publicPortToJson(const PublicPortRequest &r);
constexpr int kPublishWaitMs = 60000;

} // namespace chat2sbx::app
