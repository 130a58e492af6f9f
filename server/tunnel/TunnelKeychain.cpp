#include "tunnel/TunnelKeychain.h"

#include "config/Keychain.h"

namespace chat2sbx {
namespace {

const QString kIdEntry = QStringLiteral("tunnel-id");
const QString kKeyEntry = QStringLiteral("tunnel-key");

} // namespace

QString TunnelKeychain::serviceName()
{
    return keychain::serviceName();
}

QString TunnelKeychain::unavailableReason()
{
    return keychain::unavailableReason();
}

void TunnelKeychain::read(ReadDone done)
{
    keychain::read(kIdEntry, [done](const keychain::Result &id) {
        if (!id.ok())
            return done(ReadResult{{}, {}, id.error, id.notFound});
        const QString tunnelId = id.text.trimmed();
        keychain::read(kKeyEntry, [done, tunnelId](const keychain::Result &key) {
            if (!key.ok())
                return done(ReadResult{{}, {}, key.error, key.notFound});
            done(ReadResult{tunnelId, key.text.trimmed(), {}, false});
        }, nullptr, kJobTimeoutMs);
    }, nullptr, kJobTimeoutMs);
}

void TunnelKeychain::write(const QString &tunnelId, const QString &key, WriteDone done)
{
    keychain::write(kIdEntry, tunnelId, [done, key](const keychain::Result &id) {
        if (!id.ok())
            return done(id.error);
        keychain::write(kKeyEntry, key, [done](const keychain::Result &k) { done(k.error); }, nullptr, kJobTimeoutMs);
    }, nullptr, kJobTimeoutMs);
}

} // namespace chat2sbx
