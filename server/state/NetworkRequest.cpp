#include "state/NetworkRequest.h"

namespace chat2sbx {

QString networkRequestStateName(NetworkRequestState state)
{
    switch (state) {
    case NetworkRequestState::Pending: return QStringLiteral("pending");
    case NetworkRequestState::Allowed: return QStringLiteral("allowed");
    case NetworkRequestState::Denied: return QStringLiteral("denied");
    }
    return QStringLiteral("pending");
}

bool parseNetworkRequestState(const QString &text, NetworkRequestState &out)
{
    if (text == QLatin1String("pending"))
        out = NetworkRequestState::Pending;
    else if (text == QLatin1String("allowed"))
        out = NetworkRequestState::Allowed;
    else if (text == QLatin1String("denied"))
        out = NetworkRequestState::Denied;
    else
        return false;
    return true;
}

} // namespace chat2sbx
