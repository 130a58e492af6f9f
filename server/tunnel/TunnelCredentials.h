#pragma once

#include <QString>

#include <functional>

namespace chat2sbx {

struct Config;

// The Secure MCP Tunnel identity: the tunnel id (`tunnel_` + 32 lowercase hex) and the runtime API key.
// Sources, in order: the files `tunnel-id` and `key` in Config::secretDir, else the OS keychain (after
// `chat2sbx tunnel import`). The key is a secret: never print it, log it, put it on a command line or
// return it through MCP. Pass it to tunnel-client through the child's environment only.
struct TunnelCredentials {
    QString tunnelId;
    QString key;
    QString source;   // where they came from, for messages: a directory path or "OS keychain"
    // load() failed and neither file existed (the keychain had nothing either, or none was there):
    // never set up, rather than broken.
    bool noFiles = false;

    static QString idFilePath(const Config &config);
    static QString keyFilePath(const Config &config);

    // Checks the id format and that the key is non-empty. `idOrigin`/`keyOrigin` name the place the
    // values came from (a file path) so the error can point at it. Returns an empty string when valid.
    static QString validate(const QString &tunnelId, const QString &key, const QString &idOrigin,
                            const QString &keyOrigin);
    static bool isValidTunnelId(const QString &tunnelId);

    // Reads and validates the two files synchronously (small local files). On failure returns false
    // and sets `error` to one clear line naming the file. `missing` is set when a file does not exist
    // (so the caller may fall back to the keychain).
    static bool readFiles(const Config &config, TunnelCredentials &out, QString &error, bool *missing = nullptr);
    // The same for any two files (the ones a user picked): at most 4 KiB each, trimmed, validated.
    static bool readPair(const QString &idPath, const QString &keyPath, TunnelCredentials &out, QString &error,
                         bool *missing = nullptr);

    // Files first, then the OS keychain. Asynchronous (keychain jobs are), never blocks or hangs:
    // `done(credentials, error)` runs exactly once, later, from the event loop; `error` is empty on success.
    using Done = std::function<void(const TunnelCredentials &, const QString &error)>;
    static void load(const Config &config, Done done);
};

} // namespace chat2sbx
