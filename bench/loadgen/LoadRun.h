#pragma once
// Closed-loop load: N sessions, each sends its next request as soon as the previous answer arrived,
// until maxRequests have been sent in total or maxSeconds have passed.
#include "Stats.h"

#include <QJsonObject>
#include <QUrl>

namespace chat2sbx::bench {

struct LoadSpec {
    QUrl url;
    QByteArray method;        // tools/list or tools/call
    QJsonObject params;
    int clients = 1;
    qint64 maxRequests = 10000;
    double maxSeconds = 10;
    int warmupPerClient = 20;
};

struct LoadResult {
    QString error;            // set when sessions could not be opened
    qint64 errors = 0;        // responses that were not a JSON-RPC result
    QString firstError;
    double seconds = 0;
    double rps = 0;
    LatencyStats latency;
    QJsonObject json() const;
};

LoadResult runLoad(const LoadSpec &spec);

} // namespace chat2sbx::bench
