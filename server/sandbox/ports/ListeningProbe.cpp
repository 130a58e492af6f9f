#include "sandbox/ports/ListeningProbe.h"

#include "sandbox/channel/ChannelPool.h"

namespace chat2sbx {

void probeListening(ChannelPool &channels, const RunningSandbox &sandbox, int port,
                    std::function<void(std::optional<bool> listening)> done)
{
    channels.channelFor(sandbox).request(QStringLiteral("port_listening"), {QByteArray::number(port)}, 10000,
                                         [done = std::move(done)](const ChannelReply &reply) {
        if (!reply.ok)
            return done(std::nullopt);
        done(reply.meta.value(QStringLiteral("listening")) == QLatin1String("1"));
    });
}

} // namespace chat2sbx
