#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace chat2sbx {

// The shared secret tunnel-client sends in Config::localTokenHeader (e.g. X-Local-Token) so that
// other local processes cannot drive the loopback MCP endpoint.
// Kept in the system keychain (QtKeychain, service "chat2sbx", key "mcp-local-token"); when no
// keychain answers (no D-Bus session, no backend, or no answer within the timeout) it lives in
// <stateDir>/mcp-local-token (0600). Created on first use: 32 random bytes, hex.
class LocalTokenStore : public QObject {
    Q_OBJECT
public:
    enum class Source { None, Keychain, File };

    explicit LocalTokenStore(const QString &stateDir, QObject *parent = nullptr);

    // Asynchronous; `done(error)` is called exactly once, on the event loop (error empty on success).
    void load(std::function<void(const QString &error)> done);

    QString token() const { return m_token; }
    Source source() const { return m_source; }

    void setKeychainTimeoutMs(int ms) { m_timeoutMs = ms; }

    QString filePath() const;
    static bool keychainPlausible();

private:
    void readKeychain();
    void writeKeychain(const QString &token);
    void useFile();
    void finish(const QString &error);

    QString m_stateDir;
    QString m_token;
    Source m_source = Source::None;
    int m_timeoutMs = 3000;
    bool m_done = false;
    std::function<void(const QString &)> m_callback;
};

} // namespace chat2sbx
