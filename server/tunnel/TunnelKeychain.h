#pragma once

#include <QString>

#include <functional>

namespace chat2sbx {

// The tunnel id and key in the OS keychain (config/Keychain; service "chat2sbx", entries "tunnel-id" and
// "tunnel-key"). All calls are asynchronous and finish within a few seconds even when the keychain
// service never answers. On a headless machine without a D-Bus session bus (CI) they fail at once with
// a clear message. There is deliberately no plain-file fallback: the files in the secret directory are
// the non-keychain option.
class TunnelKeychain {
public:
    static QString serviceName();
    // Empty when a keychain backend can plausibly be reached, else why not (one line).
    static QString unavailableReason();

    struct ReadResult {
        QString tunnelId;
        QString key;
        QString error;          // empty on success
        bool notFound = false;  // the keychain answered but holds no tunnel entries
    };
    using ReadDone = std::function<void(const ReadResult &)>;
    using WriteDone = std::function<void(const QString &error)>;

    static void read(ReadDone done);
    static void write(const QString &tunnelId, const QString &key, WriteDone done);

    static constexpr int kJobTimeoutMs = 5000;
};

} // namespace chat2sbx
