#include "config/LocalTokenStore.h"

#include "config/Keychain.h"
#include "core/Ids.h"

#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QTimer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcLocalToken, "chat2sbx.localtoken")

namespace {
const QString kKey = QStringLiteral("mcp-local-token");

bool wellFormed(const QString &token)
{
    if (token.size() < 32 || token.size() > 256)
        return false;
    for (const QChar c : token)
        if (c.unicode() < 0x21 || c.unicode() > 0x7e)
            return false;
    return true;
}
} // namespace

LocalTokenStore::LocalTokenStore(const QString &stateDir, QObject *parent) : QObject(parent), m_stateDir(stateDir) {}

QString LocalTokenStore::filePath() const
{
    return m_stateDir + QStringLiteral("/mcp-local-token");
}

bool LocalTokenStore::keychainPlausible()
{
    // Without a session bus neither libsecret nor KWallet can answer; asking would only wait.
    return keychain::unavailableReason().isEmpty();
}

void LocalTokenStore::load(std::function<void(const QString &error)> done)
{
    m_callback = std::move(done);
    m_done = false;
    QTimer::singleShot(0, this, [this] {
        if (keychainPlausible())
            readKeychain();
        else
            useFile();
    });
}

void LocalTokenStore::readKeychain()
{
    keychain::read(kKey, [this](const keychain::Result &r) {
        if (m_done)
            return;
        if (r.ok() && wellFormed(r.text)) {
            m_token = r.text;
            m_source = Source::Keychain;
            return finish({});
        }
        if (r.notFound)
            return writeKeychain(randomHex(32));
        qCInfo(lcLocalToken).noquote() << (r.timedOut ? r.error : QStringLiteral("keychain unavailable (%1)").arg(r.error))
                                              + QStringLiteral("; using the state file");
        useFile();
    }, this, m_timeoutMs);
}

void LocalTokenStore::writeKeychain(const QString &token)
{
    keychain::write(kKey, token, [this, token](const keychain::Result &r) {
        if (m_done)
            return;
        if (r.ok()) {
            m_token = token;
            m_source = Source::Keychain;
            return finish({});
        }
        qCInfo(lcLocalToken).noquote() << QStringLiteral("cannot store in the keychain (%1); using the state file").arg(r.error);
        useFile();
    }, this, m_timeoutMs);
}

void LocalTokenStore::useFile()
{
    if (m_done)
        return;
    const QString path = filePath();
    if (!QDir().mkpath(m_stateDir))
        return finish(QStringLiteral("cannot create %1").arg(m_stateDir));
    QFile existing(path);
    if (existing.open(QIODevice::ReadOnly)) {
        const QString token = QString::fromLatin1(existing.readAll()).trimmed();
        if (wellFormed(token)) {
            existing.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
            m_token = token;
            m_source = Source::File;
            return finish({});
        }
    }
    const QString token = randomHex(32);
    // Restrict the (empty) file before the secret goes in; the state directory is 0700 as well.
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || !out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        || out.write(token.toLatin1() + '\n') < 0 || !out.flush())
        return finish(QStringLiteral("cannot write the local token file: %1").arg(out.errorString()));
    out.close();
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    m_token = token;
    m_source = Source::File;
    finish({});
}

void LocalTokenStore::finish(const QString &error)
{
    if (m_done)
        return;
    m_done = true;
    auto cb = std::move(m_callback);
    if (cb)
        cb(error);
}

} // namespace chat2sbx
