#include "Stats.h"

#include <algorithm>
#include <cmath>

namespace chat2sbx::bench {

static double pct(const std::vector<qint64> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    return static_cast<double>(sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1]) / 1e6;
}

LatencyStats LatencyStats::of(std::vector<qint64> s)
{
    LatencyStats st;
    std::sort(s.begin(), s.end());
    st.count = static_cast<qint64>(s.size());
    if (s.empty())
        return st;
    double sum = 0;
    for (qint64 v : s)
        sum += static_cast<double>(v);
    st.meanMs = sum / static_cast<double>(s.size()) / 1e6;
    st.p50Ms = pct(s, 50);
    st.p90Ms = pct(s, 90);
    st.p99Ms = pct(s, 99);
    st.maxMs = static_cast<double>(s.back()) / 1e6;
    st.minMs = static_cast<double>(s.front()) / 1e6;
    return st;
}

static double r3(double v) { return std::round(v * 1000.0) / 1000.0; }

QJsonObject LatencyStats::json() const
{
    return {{QStringLiteral("count"), count},     {QStringLiteral("mean_ms"), r3(meanMs)}, {QStringLiteral("min_ms"), r3(minMs)},
            {QStringLiteral("p50_ms"), r3(p50Ms)}, {QStringLiteral("p90_ms"), r3(p90Ms)},  {QStringLiteral("p99_ms"), r3(p99Ms)},
            {QStringLiteral("max_ms"), r3(maxMs)}};
}

} // namespace chat2sbx::bench
