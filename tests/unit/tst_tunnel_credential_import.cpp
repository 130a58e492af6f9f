// importTunnelCredentials with no OS keychain (the README's documented fallback): what it says it
// stored is what the secret folder holds afterwards, whatever the picked files are called and
// wherever they are (inside the secret folder too), and a symlink planted at <secret dir>/key is
// replaced, never written through.
#include "config/Config.h"
#include "tunnel/TunnelCredentialImport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;

namespace {

const QString kOldId = QStringLiteral("tunnel_00000000000000000000000000000000");
const QString kNewId = QStringLiteral("tunnel_0123456789abcdef0123456789abcdef");

bool put(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

QByteArray read(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestTunnelCredentialImport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    Config config() const
    {
        Config c;
        c.secretDir = m_dir.path() + QStringLiteral("/secrets");
        return c;
    }
    TunnelImportOutcome import(const QString &a, const QString &b)
    {
        TunnelImportOutcome out;
        bool done = false;
        importTunnelCredentials(config(), a, b, [&](const TunnelImportOutcome &o) {
            out = o;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, 5000))
            out.error = QStringLiteral("no answer");
        return out;
    }
    QString secrets() const { return config().secretDir; }

private slots:
    void initTestCase()
    {
        // No session bus: no keychain, the files it is.
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        qputenv("XDG_RUNTIME_DIR", (m_dir.path() + QStringLiteral("/no-runtime")).toUtf8());
    }

    void init()
    {
        QDir(m_dir.path()).removeRecursively();
        QDir().mkpath(m_dir.path());
    }

    // The id file is not called `tunnel-id`, the secret folder is empty: "stored" and stored.
    void filesOfAnyNameAreStored()
    {
        QVERIFY(put(m_dir.path() + QStringLiteral("/picked/my-id.txt"), kNewId.toUtf8() + "\n"));
        QVERIFY(put(m_dir.path() + QStringLiteral("/picked/key.txt"), "sk-new-key\n"));
        const TunnelImportOutcome o = import(m_dir.path() + QStringLiteral("/picked/key.txt"), m_dir.path() + QStringLiteral("/picked/my-id.txt"));
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.storedIn, secrets());
        QVERIFY2(o.note.contains(QStringLiteral("no OS keychain")), qPrintable(o.note));
        QCOMPARE(read(secrets() + QStringLiteral("/tunnel-id")).trimmed(), kNewId.toUtf8());
        QCOMPARE(read(secrets() + QStringLiteral("/key")).trimmed(), QByteArray("sk-new-key"));
        QCOMPARE(QFile::permissions(secrets() + QStringLiteral("/key")) & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
    }

    // New files picked from inside the secret folder replace the old id and key.
    void filesPickedInsideTheSecretFolderReplaceTheOldOnes()
    {
        QVERIFY(put(secrets() + QStringLiteral("/tunnel-id"), kOldId.toUtf8() + "\n"));
        QVERIFY(put(secrets() + QStringLiteral("/key"), "sk-old-key\n"));
        QVERIFY(put(secrets() + QStringLiteral("/new-id"), kNewId.toUtf8() + "\n"));
        QVERIFY(put(secrets() + QStringLiteral("/new-key"), "sk-new-key\n"));
        const TunnelImportOutcome o = import(secrets() + QStringLiteral("/new-id"), secrets() + QStringLiteral("/new-key"));
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.tunnelId, kNewId);
        QCOMPARE(read(secrets() + QStringLiteral("/tunnel-id")).trimmed(), kNewId.toUtf8());
        QCOMPARE(read(secrets() + QStringLiteral("/key")).trimmed(), QByteArray("sk-new-key"));
    }

    // The secret files themselves picked: nothing changes, and it says stored.
    void theSecretFilesThemselvesStayAsTheyAre()
    {
        QVERIFY(put(secrets() + QStringLiteral("/tunnel-id"), kOldId.toUtf8() + "\n"));
        QVERIFY(put(secrets() + QStringLiteral("/key"), "sk-old-key\n"));
        const TunnelImportOutcome o = import(secrets() + QStringLiteral("/tunnel-id"), secrets() + QStringLiteral("/key"));
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(read(secrets() + QStringLiteral("/tunnel-id")).trimmed(), kOldId.toUtf8());
        QCOMPARE(read(secrets() + QStringLiteral("/key")).trimmed(), QByteArray("sk-old-key"));
    }

    void aPlantedSymlinkIsReplacedNotWrittenThrough()
    {
        const QString victim = m_dir.path() + QStringLiteral("/elsewhere/bashrc");
        QVERIFY(put(victim, "untouched\n"));
        QVERIFY(QDir().mkpath(secrets()));
        QVERIFY(QFile::link(victim, secrets() + QStringLiteral("/key")));
        QVERIFY(put(m_dir.path() + QStringLiteral("/picked/id"), kNewId.toUtf8()));
        QVERIFY(put(m_dir.path() + QStringLiteral("/picked/key"), "sk-new-key"));
        const TunnelImportOutcome o = import(m_dir.path() + QStringLiteral("/picked/id"), m_dir.path() + QStringLiteral("/picked/key"));
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(read(victim), QByteArray("untouched\n"));
        QVERIFY(!QFileInfo(secrets() + QStringLiteral("/key")).isSymLink());
        QCOMPARE(read(secrets() + QStringLiteral("/key")).trimmed(), QByteArray("sk-new-key"));
    }
};

QTEST_GUILESS_MAIN(TestTunnelCredentialImport)
#include "tst_tunnel_credential_import.moc"
