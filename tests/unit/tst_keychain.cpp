// config/Keychain: every call answers later (never inside the call), within its deadline even when the
// keychain never answers, and not at all once its context object is gone.
#include "config/Keychain.h"

#include "TestSupport.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;
using chat2sbx::test::waitFor;

class TestKeychain : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        qputenv("XDG_RUNTIME_DIR", m_noBus.path().toUtf8());
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    }
    void cleanup() { qunsetenv("DBUS_SESSION_BUS_ADDRESS"); }

    void withoutSessionBusFailsLaterWithTheReason()
    {
        QVERIFY(keychain::unavailableReason().contains("D-Bus"));
        int calls = 0;
        keychain::Result got;
        keychain::read(QStringLiteral("test-entry"), [&](const keychain::Result &r) {
            ++calls;
            got = r;
        });
        QCOMPARE(calls, 0);
        QVERIFY(waitFor([&] { return calls > 0; }, 2000));
        QVERIFY(!got.ok());
        QVERIFY2(got.error.contains("D-Bus"), qPrintable(got.error));
        QVERIFY(!got.notFound);
        QVERIFY(!got.timedOut);
    }

    void silentKeychainEndsWithinTheDeadline()
    {
        // A bus address that leads nowhere: the job fails or hangs; either way the answer comes in time.
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/chat2sbx-test-bus");
        int calls = 0;
        keychain::Result got;
        QElapsedTimer t;
        t.start();
        keychain::write(QStringLiteral("test-entry"), QStringLiteral("v"), [&](const keychain::Result &r) {
            ++calls;
            got = r;
        }, nullptr, 800);
        QCOMPARE(calls, 0);
        QVERIFY(waitFor([&] { return calls > 0; }, 5000));
        QVERIFY(t.elapsed() < 3000);
        QVERIFY(!got.ok());
        QTest::qWait(1000);
        QCOMPARE(calls, 1);
    }

    void goneContextIsNotCalled()
    {
        int calls = 0;
        auto *context = new QObject;
        keychain::read(QStringLiteral("test-entry"), [&](const keychain::Result &) { ++calls; }, context);
        delete context;
        QTest::qWait(300);
        QCOMPARE(calls, 0);
    }

private:
    QTemporaryDir m_noBus;
};

QTEST_GUILESS_MAIN(TestKeychain)
#include "tst_keychain.moc"
