#pragma once

#include <QString>

#include <functional>

class QObject;

namespace chat2sbx {

// The OS keychain (QtKeychain, service "chat2sbx"): the one place that runs keychain jobs, for the
// local token and the tunnel credentials. Every call is asynchronous on the event loop (QtKeychain's
// job API, never a nested loop) and ends within its deadline even when the keychain never answers.
namespace keychain {

QString serviceName();   // "chat2sbx"
// Empty when a keychain backend can plausibly be reached, else why not (one line). On Linux the
// backends (libsecret, KWallet) sit behind the D-Bus session bus; without one a job would only fail
// after trying to autolaunch a bus.
QString unavailableReason();

struct Result {
    QString text;            // what was read (read only)
    QString error;           // empty on success
    bool notFound = false;   // the keychain answered but holds no such entry
    bool timedOut = false;   // no answer within the deadline
    bool ok() const { return error.isEmpty(); }
};
using Done = std::function<void(const Result &)>;

constexpr int kDefaultTimeoutMs = 5000;

// `done` runs exactly once, later, from the event loop, unless `context` (may be null) was destroyed
// first. A job that misses its deadline is left to finish on its own and then deletes itself.
void read(const QString &key, Done done, QObject *context = nullptr, int timeoutMs = kDefaultTimeoutMs);
void write(const QString &key, const QString &value, Done done, QObject *context = nullptr,
           int timeoutMs = kDefaultTimeoutMs);

} // namespace keychain
} // namespace chat2sbx
