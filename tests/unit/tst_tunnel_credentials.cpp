// Tunnel credential validation (id format, key presence, errors naming the file) and the restart
// backoff arithmetic of TunnelSupervisor.
#include "TestSupport.h"

#include "config/Config.h"
#include "tunnel/RestartBackoff.h"
#include "tunnel/TunnelCredentials.h"
#include "tunnel/TunnelKeychain.h"

#include <QtTest>

using namespace chat2sbx;

namespace {
const QString kGoodId = QStringLiteral("tunnel_0123456789abcdef0123456789abcdef");
}

class TestTunnelCredentials : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    Config config() const
    {
        Config c;
        c.secretDir = m_dir.path() + QStringLiteral("/secrets");
        return c;
    }
    void writeSecrets(const QByteArray *id, const QByteArray *key)
    {
        QFile::remove(TunnelCredentials::idFilePath(config()));
        QFile::remove(TunnelCredentials::keyFilePath(config()));
        if (id)
            QVERIFY(test::writeFile(TunnelCredentials::idFilePath(config()), *id));
        if (key)
            QVERIFY(test::writeFile(TunnelCredentials::keyFilePath(config()), *key));
    }

private slots:
    void tunnelIdFormat_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("valid");
        QTest::newRow("good") << kGoodId << true;
        QTest::newRow("uppercase hex") << QStringLiteral("tunnel_0123456789ABCDEF0123456789abcdef") << false;
        QTest::newRow("31 hex") << QStringLiteral("tunnel_0123456789abcdef0123456789abcde") << false;
        QTest::newRow("33 hex") << QStringLiteral("tunnel_0123456789abcdef0123456789abcdef0") << false;
        QTest::newRow("no prefix") << QStringLiteral("0123456789abcdef0123456789abcdef") << false;
        QTest::newRow("wrong prefix") << QStringLiteral("tunnl_0123456789abcdef0123456789abcdef") << false;
        QTest::newRow("non hex") << QStringLiteral("tunnel_0123456789abcdef0123456789abcdeg") << false;
        QTest::newRow("trailing newline") << kGoodId + QLatin1Char('\n') << false;
        QTest::newRow("empty") << QString() << false;
    }
    void tunnelIdFormat()
    {
        QFETCH(QString, id);
        QFETCH(bool, valid);
        QCOMPARE(TunnelCredentials::isValidTunnelId(id), valid);
    }

    void validateNamesTheOrigin()
    {
        QVERIFY(TunnelCredentials::validate(kGoodId, QStringLiteral("sk-x"), "/a/id", "/a/key").isEmpty());
        const QString badId = TunnelCredentials::validate(QStringLiteral("tunnel_xyz"), QStringLiteral("sk-x"), "/a/id", "/a/key");
        QVERIFY2(badId.contains("/a/id") && badId.contains("malformed") && badId.contains("32"), qPrintable(badId));
        const QString noKey = TunnelCredentials::validate(kGoodId, QString(), "/a/id", "/a/key");
        QVERIFY2(noKey.contains("/a/key") && noKey.contains("empty"), qPrintable(noKey));
        const QString twoLines = TunnelCredentials::validate(kGoodId, QStringLiteral("a\nb"), "/a/id", "/a/key");
        QVERIFY2(twoLines.contains("/a/key") && !twoLines.contains("a\nb"), qPrintable(twoLines));
    }

    void readFilesTrimsAndValidates()
    {
        const QByteArray id = kGoodId.toUtf8() + "\n";
        const QByteArray key = "  sk-proj-secret-value\n";
        writeSecrets(&id, &key);
        TunnelCredentials c;
        QString error;
        QVERIFY2(TunnelCredentials::readFiles(config(), c, error), qPrintable(error));
        QCOMPARE(c.tunnelId, kGoodId);
        QCOMPARE(c.key, QStringLiteral("sk-proj-secret-value"));
    }

    void readFilesErrors()
    {
        const QByteArray id = kGoodId.toUtf8();
        const QByteArray badId = "tunnel_nothex";
        const QByteArray key = "sk-proj-secret-value";
        const QByteArray emptyKey = " \n";
        TunnelCredentials c;
        QString error;
        bool missing = false;

        writeSecrets(&id, nullptr);
        QVERIFY(!TunnelCredentials::readFiles(config(), c, error, &missing));
        QCOMPARE(error, QStringLiteral("tunnel key file %1 not found").arg(TunnelCredentials::keyFilePath(config())));
        QVERIFY(!missing);   // only one of the two: not a keychain fallback case

        writeSecrets(nullptr, &key);
        QVERIFY(!TunnelCredentials::readFiles(config(), c, error, &missing));
        QCOMPARE(error, QStringLiteral("tunnel id file %1 not found").arg(TunnelCredentials::idFilePath(config())));
        QVERIFY(!error.contains(QString::fromUtf8(key)));

        writeSecrets(nullptr, nullptr);
        QVERIFY(!TunnelCredentials::readFiles(config(), c, error, &missing));
        QVERIFY(missing);

        writeSecrets(&badId, &key);
        QVERIFY(!TunnelCredentials::readFiles(config(), c, error));
        QVERIFY2(error.contains(TunnelCredentials::idFilePath(config())) && error.contains("malformed"), qPrintable(error));
        QVERIFY(!error.contains(QString::fromUtf8(key)));

        writeSecrets(&id, &emptyKey);
        QVERIFY(!TunnelCredentials::readFiles(config(), c, error));
        QVERIFY2(error.contains(TunnelCredentials::keyFilePath(config())) && error.contains("empty"), qPrintable(error));

        const QByteArray huge(10000, 'k');
        writeSecrets(&id, &huge);
        QVERIFY(!TunnelCredentials::readFiles(config(), c, error));
        QVERIFY2(error.contains("too large"), qPrintable(error));
    }

    void loadIsAsynchronousAndNeverHangs()
    {
        // No files: falls back to the keychain, which on a headless machine fails fast; either way the
        // callback runs exactly once, later, and the error names the missing file.
        writeSecrets(nullptr, nullptr);
        int calls = 0;
        QString error;
        TunnelCredentials::load(config(), [&](const TunnelCredentials &, const QString &e) {
            ++calls;
            error = e;
        });
        QCOMPARE(calls, 0);
        QVERIFY(test::waitFor([&] { return calls > 0; }, TunnelKeychain::kJobTimeoutMs * 2 + 2000));
        QTest::qWait(50);
        QCOMPARE(calls, 1);
        QVERIFY2(error.contains(TunnelCredentials::idFilePath(config())), qPrintable(error));
        QVERIFY2(error.contains("tunnel import"), qPrintable(error));

        const QByteArray id = kGoodId.toUtf8();
        const QByteArray key = "sk-proj-secret-value";
        writeSecrets(&id, &key);
        TunnelCredentials got;
        calls = 0;
        TunnelCredentials::load(config(), [&](const TunnelCredentials &c, const QString &e) {
            ++calls;
            got = c;
            error = e;
        });
        QVERIFY(test::waitFor([&] { return calls > 0; }, 2000));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(got.tunnelId, kGoodId);
        QCOMPARE(got.source, config().secretDir);
    }

    void backoffDoublesToTheCap()
    {
        RestartBackoff b(1000, 60000, 60000);
        QList<qint64> delays;
        for (int i = 0; i < 9; ++i)
            delays << b.nextDelayMs(0);
        QCOMPARE(delays, (QList<qint64>{1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000}));
        QCOMPARE(b.consecutiveFailures(), 9);
        QCOMPARE(b.delayForAttempt(1), qint64(1000));
        QCOMPARE(b.delayForAttempt(1000), qint64(60000));   // no overflow
    }

    void backoffResetsAfterAStableRun()
    {
        RestartBackoff b(1000, 60000, 60000);
        QCOMPARE(b.nextDelayMs(0), qint64(1000));
        QCOMPARE(b.nextDelayMs(5000), qint64(2000));      // ready only briefly: keeps growing
        QCOMPARE(b.nextDelayMs(59999), qint64(4000));
        QCOMPARE(b.nextDelayMs(60000), qint64(1000));     // ready for a minute: starts over
        QCOMPARE(b.nextDelayMs(0), qint64(2000));
        b.reset();
        QCOMPARE(b.nextDelayMs(0), qint64(1000));
    }

    void backoffWithATestBase()
    {
        RestartBackoff b(200, 60000, 60000);
        QCOMPARE(b.nextDelayMs(0), qint64(200));
        QCOMPARE(b.nextDelayMs(0), qint64(400));
        QCOMPARE(b.nextDelayMs(0), qint64(800));
        RestartBackoff odd(0, -5, 0);   // nonsense input is clamped, never a zero delay
        QCOMPARE(odd.nextDelayMs(0), qint64(1));
    }
};

QTEST_GUILESS_MAIN(TestTunnelCredentials)
#include "tst_tunnel_credentials.moc"
