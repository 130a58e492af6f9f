#pragma once
#include <QJsonObject>
#include <QString>

#include <vector>

namespace chat2sbx::bench {

// Latency samples in nanoseconds -> count, mean, p50/p90/p99/max in ms (nearest-rank percentiles).
struct LatencyStats {
    qint64 count = 0;
    double meanMs = 0, p50Ms = 0, p90Ms = 0, p99Ms = 0, maxMs = 0, minMs = 0;
    static LatencyStats of(std::vector<qint64> samplesNs);
    QJsonObject json() const;
};

} // namespace chat2sbx::bench
