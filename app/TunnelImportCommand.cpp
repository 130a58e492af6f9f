// `chat2sbx tunnel import`: validates the tunnel id and key files in the secret directory and stores
// them in the OS keychain; once they read back unchanged the files are removed (a move). The key is
// never printed. A verb (app/OwnedVerb): a running server does it and connects its tunnel again with
// them at once; with no server, this process does and the next server reads them.
#include "Command.h"

#include "tunnel/TunnelCredentials.h"
#include "tunnel/TunnelKeychain.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

// Write, then read back: the files go only once the keychain demonstrably returns the same values.
void storeAndVerify(const TunnelCredentials &credentials, std::function<void(const QString &error)> done)
{
    TunnelKeychain::write(credentials.tunnelId, credentials.key, [credentials, done](const QString &writeError) {
        if (!writeError.isEmpty())
            return done(writeError);
        TunnelKeychain::read([credentials, done](const TunnelKeychain::ReadResult &r) {
            if (!r.error.isEmpty())
                return done(QStringLiteral("reading them back failed: %1").arg(r.error));
            if (r.tunnelId != credentials.tunnelId || r.key != credentials.key)
                return done(QStringLiteral("reading them back gave different values"));
            done(QString());
        });
    });
}

void tunnelImport(CommandContext &ctx, Services &, std::function<void(int)> done)
{
    if (!ctx.args.isEmpty())
        return done(ctx.usage(QStringLiteral("tunnel import takes no arguments (got '%1')").arg(ctx.args.join(QLatin1Char(' ')))));
    TunnelCredentials credentials;
    QString error;
    if (!TunnelCredentials::readFiles(ctx.config, credentials, error))
        return done(ctx.fail(QStringLiteral("cannot import the tunnel credentials: %1").arg(error)));
    storeAndVerify(credentials, [&ctx, credentials, done](const QString &keychainError) {
        const Config &c = ctx.config;
        if (!keychainError.isEmpty())
            return done(ctx.fail(QStringLiteral("cannot store the tunnel credentials in the OS keychain: %1 "
                                                "(the files in %2 are unchanged; keep using them)").arg(keychainError, c.secretDir)));
        const QString idFile = TunnelCredentials::idFilePath(c);
        const QString keyFile = TunnelCredentials::keyFilePath(c);
        QStringList kept;
        for (const QString &f : {keyFile, idFile})
            if (!QFile::remove(f))
                kept << f;
        const bool reconnecting = static_cast<bool>(ctx.reconnectTunnel) && c.enableTunnel;
        if (reconnecting)
            ctx.reconnectTunnel();
        if (ctx.json) {
            ctx.printJson(QJsonObject{
                {QStringLiteral("imported"), true},
                {QStringLiteral("tunnel_id"), credentials.tunnelId},
                {QStringLiteral("keychain_service"), TunnelKeychain::serviceName()},
                {QStringLiteral("removed_files"), kept.isEmpty()},
                {QStringLiteral("files"), QJsonArray{idFile, keyFile}},
                {QStringLiteral("server_reconnecting"), reconnecting},
            });
        } else {
            ctx.print(QStringLiteral("Moved tunnel id %1 and its key into the OS keychain (service \"%2\").\n%3")
                          .arg(credentials.tunnelId, TunnelKeychain::serviceName(),
                               reconnecting ? QStringLiteral("The running chat2sbx server connects its tunnel with them now (`chat2sbx status` shows it).")
                                            : QStringLiteral("chat2sbx serve reads them from there while %1 and %2 are absent.").arg(idFile, keyFile)));
        }
        if (!kept.isEmpty())
            return done(ctx.fail(QStringLiteral("stored in the keychain, but could not remove %1; delete it by hand")
                                     .arg(kept.join(QStringLiteral(" and ")))));
        done(0);
    });
}

const bool registered = registerCommand({QStringLiteral("tunnel import"), QStringLiteral("tunnel import"),
                                         QStringLiteral("Move the tunnel id and key into the OS keychain"), false, nullptr, {},
                                         tunnelImport});

} // namespace
} // namespace chat2sbx::app
