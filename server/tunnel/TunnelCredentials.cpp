#include "tunnel/TunnelCredentials.h"

#include "config/Config.h"
#include "tunnel/TunnelKeychain.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTimer>

namespace chat2sbx {
namespace {

constexpr qint64 kMaxFileBytes = 4096;

// Reads a small secret file; `missing` when it does not exist. The content is never part of an error.
bool readSmallFile(const QString &path, QString &out, QString &error, bool &missing)
{
    QFileInfo info(path);
    if (!info.exists()) {
        missing = true;
        error = QStringLiteral("%1 does not exist").arg(path);
        return false;
    }
    if (!info.isFile()) {
        error = QStringLiteral("%1 is not a regular file").arg(path);
        return false;
    }
    if (info.size() > kMaxFileBytes) {
        error = QStringLiteral("%1 is too large (%2 bytes) to be a tunnel credential").arg(path).arg(info.size());
        return false;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
        return false;
    }
    out = QString::fromUtf8(f.readAll()).trimmed();
    return true;
}

} // namespace

QString TunnelCredentials::idFilePath(const Config &config)
{
    return config.secretDir + QStringLiteral("/tunnel-id");
}

QString TunnelCredentials::keyFilePath(const Config &config)
{
    return config.secretDir + QStringLiteral("/key");
}

bool TunnelCredentials::isValidTunnelId(const QString &tunnelId)
{
    static const QRegularExpression re(QRegularExpression::anchoredPattern(QStringLiteral("tunnel_[0-9a-f]{32}")));
    return re.match(tunnelId).hasMatch();
}

QString TunnelCredentials::validate(const QString &tunnelId, const QString &key, const QString &idOrigin,
                                    const QString &keyOrigin)
{
    if (tunnelId.isEmpty())
        return QStringLiteral("the tunnel id in %1 is empty").arg(idOrigin);
    if (!isValidTunnelId(tunnelId))
        return QStringLiteral("the tunnel id in %1 is malformed: it must be \"tunnel_\" followed by 32 lowercase "
                              "hex characters")
            .arg(idOrigin);
    if (key.isEmpty())
        return QStringLiteral("the tunnel key in %1 is empty").arg(keyOrigin);
    if (key.contains(QLatin1Char('\n')) || key.contains(QLatin1Char('\r')) || key.contains(QLatin1Char('\0')))
        return QStringLiteral("the tunnel key in %1 must be a single line").arg(keyOrigin);
    return {};
}

bool TunnelCredentials::readFiles(const Config &config, TunnelCredentials &out, QString &error, bool *missing)
{
    if (!readPair(idFilePath(config), keyFilePath(config), out, error, missing))
        return false;
    out.source = config.secretDir;
    return true;
}

bool TunnelCredentials::readPair(const QString &idPath, const QString &keyPath, TunnelCredentials &out, QString &error,
                                 bool *missing)
{
    bool idMissing = false;
    bool keyMissing = false;
    QString tunnelId;
    QString key;
    QString idError;
    QString keyError;
    const bool idOk = readSmallFile(idPath, tunnelId, idError, idMissing);
    const bool keyOk = readSmallFile(keyPath, key, keyError, keyMissing);
    if (missing)
        *missing = idMissing && keyMissing;
    if (!idOk) {
        error = idMissing ? QStringLiteral("tunnel id file %1 not found").arg(idPath) : idError;
        return false;
    }
    if (!keyOk) {
        error = keyMissing ? QStringLiteral("tunnel key file %1 not found").arg(keyPath) : keyError;
        return false;
    }
    error = validate(tunnelId, key, idPath, keyPath);
    if (!error.isEmpty())
        return false;
    out = TunnelCredentials{tunnelId, key, QFileInfo(idPath).path(), false};
    return true;
}

void TunnelCredentials::load(const Config &config, Done done)
{
    TunnelCredentials fromFiles;
    QString fileError;
    bool bothMissing = false;
    if (readFiles(config, fromFiles, fileError, &bothMissing)) {
        QTimer::singleShot(0, [done, fromFiles] { done(fromFiles, QString()); });
        return;
    }
    if (!bothMissing) {
        // A file is present but wrong (or only one of the two exists): that is the user's intent, report it.
        QTimer::singleShot(0, [done, fileError] { done(TunnelCredentials{}, fileError); });
        return;
    }
    TunnelKeychain::read([done, fileError](const TunnelKeychain::ReadResult &r) {
        if (!r.error.isEmpty()) {
            const QString why = r.notFound ? QStringLiteral("no tunnel credentials in the OS keychain either")
                                           : r.error;
            TunnelCredentials none;
            none.noFiles = true;
            done(none, QStringLiteral("%1; %2. Put the tunnel id and key files there, or run "
                                      "`chat2sbx tunnel import` on a desktop with a keychain")
                           .arg(fileError, why));
            return;
        }
        const QString origin = QStringLiteral("the OS keychain");
        const QString invalid = validate(r.tunnelId, r.key, origin, origin);
        if (!invalid.isEmpty())
            return done(TunnelCredentials{}, invalid + QStringLiteral(" (run `chat2sbx tunnel import` again)"));
        done(TunnelCredentials{r.tunnelId, r.key, origin, false}, QString());
    });
}

} // namespace chat2sbx
