#pragma once

namespace chat2sbx {

class NetworkAccess;
class ToolRegistry;

// network_request: asks the local user to let a sandbox reach a few hosts. It never grants access
// itself: it creates (or finds) a pending request that the user decides in the tray or with
// `chat2sbx network allow|deny`; calling it again with the same arguments tells the decision.
// The family is this one tool: NetworkRequestTool.cpp.
void registerNetworkTools(ToolRegistry &registry, NetworkAccess &network);

} // namespace chat2sbx
