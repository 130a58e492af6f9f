#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace chat2sbx {

// What one line of tunnel-client output means to the supervisor. The client runs with
// --log.format=json ({"level","msg","error","status_code",...}); anything else (a configuration error
// printed by main.go before logging starts, Go's default text format) is read as plain text.
struct TunnelClientLine {
    enum class Kind { Info, PollFailed, PollRecovered, Error };
    Kind kind = Kind::Info;
    int statusCode = 0;       // PollFailed: the control plane's HTTP status, 0 if none (network error)
    QString text;             // readable: "WARN poll failed; backing off: <error> (HTTP 401)"

    static TunnelClientLine parse(const QString &line);
    bool isAuthFailure() const { return kind == Kind::PollFailed && (statusCode == 401 || statusCode == 403); }
};

// The value of the first sample of gauge `name` in Prometheus text (any labels), e.g.
// commands_poll_last_successful_timestamp_seconds{otel_scope_name="controlplane"} 1.79e+09.
std::optional<double> prometheusSample(const QByteArray &text, const QByteArray &name);

} // namespace chat2sbx
