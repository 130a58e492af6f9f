#pragma once

#include "sandbox/channel/SandboxResolver.h"

#include <functional>
#include <optional>

namespace chat2sbx {

class ChannelPool;

// Asks the sandbox's helper whether something listens on a TCP port inside the VM right now
// (op port_listening). `done` gets nullopt when the helper could not answer.
void probeListening(ChannelPool &channels, const RunningSandbox &sandbox, int port,
                    std::function<void(std::optional<bool> listening)> done);

} // namespace chat2sbx
