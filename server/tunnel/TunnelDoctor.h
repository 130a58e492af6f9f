#pragma once

#include <QString>
#include <QStringList>

#include <functional>

namespace chat2sbx {

struct Config;

// `chat2sbx setup`'s tunnel check: tunnel-client exists, the credentials are readable (files or
// keychain), and `tunnel-client doctor --explain` (where the client has it) accepts the configuration
// chat2sbx would run it with. Doctor never contacts the tunnel service: a refused key shows only once
// the tunnel runs (the `unauthorized` state). Asynchronous; the doctor run is bounded by a timeout.
class TunnelDoctor {
public:
    struct Result {
        bool ok = false;            // every check passed (or doctor is not available and the rest passed)
        QString problem;            // one line when not ok: what is wrong and what to do
        QStringList steps;          // what was checked, one line each, for the user
        bool doctorRan = false;
        QString doctorOutput;       // doctor's CHECK / RESULT / explanation lines (secrets masked)
        QStringList failedChecks;   // doctor's FAILED_CHECKS
    };
    using Done = std::function<void(const Result &)>;

    // mcpUrl: the endpoint the client would be pointed at (Config::mcpUrl()).
    static void run(const Config &config, const QString &mcpUrl, Done done, int timeoutMs = 30000);
};

} // namespace chat2sbx
