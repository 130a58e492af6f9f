#include "tunnel/TunnelCredentialImport.h"

#include "config/Config.h"
#include "tunnel/TunnelCredentials.h"
#include "tunnel/TunnelKeychain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QTimer>

namespace chat2sbx {

namespace {

// `value` as the file `path`, readable by the user only, written whole. A symlink planted at `path`
// is removed first, never written through (QSaveFile would write to the link's target).
bool writeSecretFile(const QString &path, const QString &value, QString &error)
{
    if (QFileInfo(path).isSymLink() && !QFile::remove(path)) {
        error = QStringLiteral("cannot replace the link %1").arg(path);
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(value.toUtf8() + '\n');
    if (!file.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

// The credentials as the two files of the secret directory (0700), each 0600. Always written (the
// picked files were read whole, so picking the secret files themselves rewrites the same values),
// then read back as the server will read them: "stored" is said only of what is there.
TunnelImportOutcome storeAsFiles(const Config &config, const TunnelCredentials &c, const QString &note)
{
    TunnelImportOutcome out;
    out.tunnelId = c.tunnelId;
    if (!QDir().mkpath(config.secretDir)
        || !QFile::setPermissions(config.secretDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner)) {
        out.error = QStringLiteral("cannot make %1 (readable by you only)").arg(config.secretDir);
        return out;
    }
    QString error;
    if (!writeSecretFile(TunnelCredentials::keyFilePath(config), c.key, error)
        || !writeSecretFile(TunnelCredentials::idFilePath(config), c.tunnelId, error)) {
        out.error = error;
        return out;
    }
    TunnelCredentials stored;
    if (!TunnelCredentials::readFiles(config, stored, error) || stored.tunnelId != c.tunnelId || stored.key != c.key) {
        out.error = QStringLiteral("the tunnel files in %1 do not read back as written%2")
                        .arg(config.secretDir, error.isEmpty() ? QString() : QStringLiteral(": ") + error);
        return out;
    }
    out.ok = true;
    out.storedIn = config.secretDir;
    out.note = note;
    return out;
}

} // namespace

void importTunnelCredentials(const Config &config, const QString &fileA, const QString &fileB,
                             std::function<void(const TunnelImportOutcome &)> done)
{
    TunnelCredentials picked;
    QString error, swappedError;
    if (!TunnelCredentials::readPair(fileA, fileB, picked, error)
        && !TunnelCredentials::readPair(fileB, fileA, picked, swappedError)) {
        TunnelImportOutcome failed;
        failed.error = error;
        QTimer::singleShot(0, [done, failed] { done(failed); });
        return;
    }
    // Files in the secret directory come before the keychain when the server loads: keep them current.
    const bool filesThere = QFileInfo::exists(TunnelCredentials::idFilePath(config))
                            || QFileInfo::exists(TunnelCredentials::keyFilePath(config));
    const QString noKeychain = TunnelKeychain::unavailableReason();
    if (filesThere || !noKeychain.isEmpty()) {
        const QString note = filesThere ? QString()
                                        : QStringLiteral("no OS keychain here (%1): stored as files readable by you only")
                                              .arg(noKeychain);
        const TunnelImportOutcome out = storeAsFiles(config, picked, note);
        QTimer::singleShot(0, [done, out] { done(out); });
        return;
    }
    const Config copy = config;
    TunnelKeychain::write(picked.tunnelId, picked.key, [copy, picked, done](const QString &writeError) {
        if (!writeError.isEmpty())
            return done(storeAsFiles(copy, picked, QStringLiteral("the OS keychain refused them (%1): stored as files "
                                                                  "readable by you only").arg(writeError)));
        TunnelKeychain::read([copy, picked, done](const TunnelKeychain::ReadResult &r) {
            if (!r.error.isEmpty() || r.tunnelId != picked.tunnelId || r.key != picked.key)
                return done(storeAsFiles(copy, picked, QStringLiteral("the OS keychain did not give them back unchanged: "
                                                                      "stored as files readable by you only")));
            TunnelImportOutcome out;
            out.ok = true;
            out.tunnelId = picked.tunnelId;
            out.storedIn = QStringLiteral("the OS keychain");
            done(out);
        });
    });
}

} // namespace chat2sbx
