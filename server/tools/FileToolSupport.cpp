#include "tools/FileToolSupport.h"

#include "sandbox/channel/SandboxChannel.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QCryptographicHash>

namespace chat2sbx {

QJsonObject expectedShaProperty()
{
    return {{QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("description"), QStringLiteral("Only change the file if its sha256 (from read) is still this")},
            {QStringLiteral("pattern"), QStringLiteral("^[0-9a-fA-F]{64}$")}};
}

bool readExpectedSha(const ToolCall &call, ToolArgs &args, QString &sha)
{
    if (!args.string(QStringLiteral("expected_sha256"), sha, 64, ToolArgs::Presence::Optional)) {
        call.responder.error(args.error());
        return false;
    }
    sha = sha.toLower();
    return true;
}

QString sha256Hex(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

void writeSandboxFile(SandboxChannel &channel, const QString &path, const QByteArray &expectedSha, const QByteArray &content,
                      std::function<void(const ChannelReply &)> done)
{
    channel.request(QStringLiteral("write"), {path.toUtf8(), expectedSha, content}, kFileRequestTimeoutMs, std::move(done));
}

} // namespace chat2sbx
