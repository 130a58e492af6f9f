#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace chat2sbx {

// One component of tunnel-client's `/health?details=true` (newer than v0.0.14; reference/
// tunnel-client.md): status ok | degraded | unknown | disabled, a state and an optional reason code.
struct TunnelComponentHealth {
    bool present = false;
    QString status;
    QString state;
    QString reasonCode;
    bool degraded() const { return status == QLatin1String("degraded"); }
};

// What chat2sbx reads of a detailed snapshot: whether the client says it is ready, and the two
// components that say whether ChatGPT's calls come in (control-plane polls) and whether the answers
// get back (response-delivery). Unknown fields and components are ignored, as the page asks.
struct TunnelHealthDetails {
    bool ready = false;
    TunnelComponentHealth controlPlane;
    TunnelComponentHealth responseDelivery;
};

// nullopt when the body is not a schema_version 1 snapshot (bounded: at most 64 KiB is read).
std::optional<TunnelHealthDetails> parseTunnelHealthDetails(const QByteArray &json);
// What a degraded control plane or response delivery means for the user; empty when neither is.
QString tunnelDetailsProblem(const TunnelHealthDetails &details);

} // namespace chat2sbx
