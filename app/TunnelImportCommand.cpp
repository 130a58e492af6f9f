// `chat2sbx tunnel import`: validates the tunnel id and key files in the secret directory and stores
// them in the OS keychain; once they read back unchanged the files are removed (a move). The key is
// never printed.
#include "Command.h"

#include "tunnel/TunnelCredentials.h"
#include "tunnel/TunnelKeychain.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

int runTunnelImport(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("tunnel import takes no arguments (got '%1')").arg(ctx.args.join(QLatin1Char(' '))));
    const Config &c = ctx.config;
    TunnelCredentials credentials;
    QString error;
    if (!TunnelCredentials::readFiles(c, credentials, error))
        return ctx.fail(QStringLiteral("cannot import the tunnel credentials: %1").arg(error));

    // Write, then read back: the files go only once the keychain demonstrably returns the same values.
    QString keychainError;
    bool finished = false;
    TunnelKeychain::write(credentials.tunnelId, credentials.key, [&](const QString &writeError) {
        if (!writeError.isEmpty()) {
            keychainError = writeError;
            finished = true;
            QCoreApplication::exit(0);
            return;
        }
        TunnelKeychain::read([&](const TunnelKeychain::ReadResult &r) {
            if (!r.error.isEmpty())
                keychainError = QStringLiteral("reading them back failed: %1").arg(r.error);
            else if (r.tunnelId != credentials.tunnelId || r.key != credentials.key)
                keychainError = QStringLiteral("reading them back gave different values");
            finished = true;
            QCoreApplication::exit(0);
        });
    });
    if (!finished)
        QCoreApplication::exec();
    if (!keychainError.isEmpty())
        return ctx.fail(QStringLiteral("cannot store the tunnel credentials in the OS keychain: %1 "
                                       "(the files in %2 are unchanged; keep using them)").arg(keychainError, c.secretDir));

    const QString idFile = TunnelCredentials::idFilePath(c);
    const QString keyFile = TunnelCredentials::keyFilePath(c);
    QStringList kept;
    for (const QString &f : {keyFile, idFile})
        if (!QFile::remove(f))
            kept << f;
    if (ctx.json) {
        ctx.printJson(QJsonObject{
            {QStringLiteral("imported"), true},
            {QStringLiteral("tunnel_id"), credentials.tunnelId},
            {QStringLiteral("keychain_service"), TunnelKeychain::serviceName()},
            {QStringLiteral("removed_files"), kept.isEmpty()},
            {QStringLiteral("files"), QJsonArray{idFile, keyFile}},
        });
    } else {
        ctx.print(QStringLiteral("Moved tunnel id %1 and its key into the OS keychain (service \"%2\").\n"
                                 "chat2sbx serve reads them from there while %3 and %4 are absent.")
                      .arg(credentials.tunnelId, TunnelKeychain::serviceName(), idFile, keyFile));
    }
    if (!kept.isEmpty())
        return ctx.fail(QStringLiteral("stored in the keychain, but could not remove %1; delete it by hand").arg(kept.join(QStringLiteral(" and "))));
    return 0;
}

const bool registered = registerCommand({QStringLiteral("tunnel import"), QStringLiteral("tunnel import"),
                                         QStringLiteral("Move the tunnel id and key into the OS keychain"), false,
                                         runTunnelImport});

} // namespace
} // namespace chat2sbx::app
