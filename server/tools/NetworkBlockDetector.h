#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace chat2sbx {

// What a command's output says about the sandbox's network policy blocking it (sbx-contract.md,
// "Network policy and approvals"): the proxy's 403 body (`Blocked by network policy: domain
// <host>:<port>`, `Blocked by local rule for <host>`), `Approval required for <host>.`, curl's
// `CONNECT tunnel failed, response 403`, and, as a weak hint only, `Could not resolve host: <host>`.
struct NetworkBlock {
    QStringList hosts;   // what to pass to network_request (at most 10), may be empty
    bool weak = false;   // only a name-resolution failure: maybe not the policy at all
    QString hint;        // one paragraph for the agent
};

std::optional<NetworkBlock> detectNetworkBlock(const QString &output);

// {hosts, hint} as the `network_blocked` member of a bash result.
QJsonObject networkBlockJson(const NetworkBlock &block);

} // namespace chat2sbx
