// `chat2sbx tunnel import`: validates the tunnel id and key files in the secret directory and stores
// them in the OS keychain, after which the files are no longer needed. The key is never printed.
#include "Command.h"

#include "tunnel/TunnelCredentials.h"
#include "tunnel/TunnelKeychain.h"

#include <QCoreApplication>
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

    QString writeError;
    bool finished = false;
    TunnelKeychain::write(credentials.tunnelId, credentials.key, [&](const QString &e) {
        writeError = e;
        finished = true;
        QCoreApplication::exit(0);
    });
    if (!finished)
        QCoreApplication::exec();
    if (!writeError.isEmpty())
        return ctx.fail(QStringLiteral("cannot store the tunnel credentials in the OS keychain: %1 "
                                       "(keep using the files in %2)").arg(writeError, c.secretDir));

    const QString idFile = TunnelCredentials::idFilePath(c);
    const QString keyFile = TunnelCredentials::keyFilePath(c);
    if (ctx.json) {
        ctx.printJson(QJsonObject{
            {QStringLiteral("imported"), true},
            {QStringLiteral("tunnelId"), credentials.tunnelId},
            {QStringLiteral("keychainService"), TunnelKeychain::serviceName()},
            {QStringLiteral("files"), QJsonArray{idFile, keyFile}},
        });
    } else {
        ctx.print(QStringLiteral("Stored tunnel id %1 and its key in the OS keychain (service \"%2\").\n"
                                 "chat2sbx serve now reads them from there when %3 and %4 are absent;\n"
                                 "you may delete those files.\n")
                      .arg(credentials.tunnelId, TunnelKeychain::serviceName(), idFile, keyFile));
    }
    return 0;
}

const bool registered = registerCommand({QStringLiteral("tunnel import"), QStringLiteral("tunnel import"),
                                         QStringLiteral("Move the tunnel id and key into the OS keychain"), false,
                                         runTunnelImport});

} // namespace
} // namespace chat2sbx::app
