#include "LoadRun.h"

#include "McpSession.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QTimer>

#include <memory>

namespace chat2sbx::bench {

QJsonObject LoadResult::json() const
{
    QJsonObject o = latency.json();
    o.insert(QStringLiteral("errors"), errors);
    o.insert(QStringLiteral("seconds"), std::round(seconds * 1000.0) / 1000.0);
    o.insert(QStringLiteral("rps"), std::round(rps * 10.0) / 10.0);
    if (!firstError.isEmpty())
        o.insert(QStringLiteral("first_error"), firstError);
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    return o;
}

namespace {
// Cheap success check in the hot path: a JSON-RPC result (an isError tool result is still a result).
bool isResult(const HttpResponse &r)
{
    return r.status == 200 && r.body.contains("\"result\"") && !r.body.startsWith("{\"jsonrpc\":\"2.0\",\"error\"")
           && !r.body.contains("\"error\":{\"code\"");
}
} // namespace

LoadResult runLoad(const LoadSpec &spec)
{
    LoadResult out;
    std::vector<std::unique_ptr<McpSession>> sessions;
    for (int i = 0; i < spec.clients; ++i) {
        sessions.push_back(std::make_unique<McpSession>(spec.url));
        const QString e = openSync(*sessions.back());
        if (!e.isEmpty()) {
            out.error = QStringLiteral("session %1: %2").arg(i).arg(e);
            return out;
        }
    }

    QEventLoop loop;
    // warm-up: each client sends warmupPerClient requests, not measured
    int warming = spec.clients;
    std::function<void(McpSession *, int)> warm = [&](McpSession *s, int left) {
        if (left == 0) {
            if (--warming == 0)
                loop.quit();
            return;
        }
        s->send(spec.method, spec.params, [&, s, left](const HttpResponse &) { warm(s, left - 1); });
    };
    for (auto &s : sessions)
        warm(s.get(), spec.warmupPerClient);
    if (warming > 0 && spec.warmupPerClient > 0)
        loop.exec();

    std::vector<qint64> samples;
    samples.reserve(static_cast<size_t>(std::min<qint64>(spec.maxRequests, 4'000'000)));
    qint64 sent = 0;
    int active = spec.clients;
    QElapsedTimer wall;
    const qint64 limitNs = static_cast<qint64>(spec.maxSeconds * 1e9);
    std::function<void(McpSession *)> next = [&](McpSession *s) {
        if (sent >= spec.maxRequests || wall.nsecsElapsed() >= limitNs) {
            if (--active == 0)
                loop.quit();
            return;
        }
        ++sent;
        const QByteArray body = s->requestBody(spec.method, spec.params);
        QElapsedTimer t;
        t.start();
        s->sendRaw(body, [&, s, t](const HttpResponse &r) {
            samples.push_back(t.nsecsElapsed());
            if (!isResult(r)) {
                if (out.errors++ == 0)
                    out.firstError = QStringLiteral("HTTP %1 %2 %3").arg(r.status).arg(r.error, QString::fromUtf8(r.body.left(300)));
            }
            next(s);
        });
    };
    wall.start();
    for (auto &s : sessions)
        next(s.get());
    loop.exec();
    out.seconds = static_cast<double>(wall.nsecsElapsed()) / 1e9;
    out.latency = LatencyStats::of(std::move(samples));
    out.rps = out.seconds > 0 ? static_cast<double>(out.latency.count) / out.seconds : 0;

    int closing = spec.clients;
    for (auto &s : sessions)
        s->close([&] {
            if (--closing == 0)
                loop.quit();
        });
    QTimer::singleShot(3000, &loop, &QEventLoop::quit);
    if (closing > 0)
        loop.exec();
    return out;
}

} // namespace chat2sbx::bench
