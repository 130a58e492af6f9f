// LocalTokenStore: without a usable keychain the secret lives in a 0600 state file, is reused,
// replaced when malformed, and a keychain that does not answer cannot hold start-up up.
#include "config/LocalTokenStore.h"

#include "TestSupport.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {
struct Loaded {
    bool done = false;
    QString error;
};
Loaded load(LocalTokenStore &store, int timeoutMs = 10000)
{
    auto result = std::make_shared<Loaded>();
    store.load([result](const QString &error) {
        result->done = true;
        result->error = error;
    });
    waitFor([result] { return result->done; }, timeoutMs);
    return *result;
}
} // namespace

class TestLocalTokenStore : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // No session bus at its default place either: the keychain is unavailable unless a test says otherwise.
        qputenv("XDG_RUNTIME_DIR", m_noBus.path().toUtf8());
    }

    void fileFallbackWithoutSessionBus()
    {
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        QTemporaryDir dir;
        const QString state = dir.path() + "/state";
        LocalTokenStore store(state);
        const Loaded r = load(store);
        QVERIFY(r.done);
        QCOMPARE(r.error, QString());
        QCOMPARE(store.source(), LocalTokenStore::Source::File);
        QCOMPARE(store.token().size(), 64);
        QCOMPARE(readFile(store.filePath()).trimmed(), store.token().toLatin1());
        QCOMPARE(int(QFileInfo(store.filePath()).permissions() & 0x0777), int(QFileDevice::ReadUser | QFileDevice::WriteUser));

        LocalTokenStore again(state);
        QVERIFY(load(again).done);
        QCOMPARE(again.token(), store.token());

        writeFile(store.filePath(), "short\n");
        LocalTokenStore replaced(state);
        QVERIFY(load(replaced).done);
        QCOMPARE(replaced.token().size(), 64);
        QVERIFY(replaced.token() != store.token());
    }

    void unreachableKeychainFallsBackQuickly()
    {
        // A session bus address that leads nowhere: the keychain fails or times out; either way
        // the file is used within the timeout.
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/chat2sbx-test-bus");
        QTemporaryDir dir;
        LocalTokenStore store(dir.path() + "/state");
        store.setKeychainTimeoutMs(1500);
        QElapsedTimer t;
        t.start();
        const Loaded r = load(store, 10000);
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        qInfo("unreachable keychain: token from %s after %lld ms",
              store.source() == LocalTokenStore::Source::File ? "file" : "keychain", t.elapsed());
        QVERIFY(r.done);
        QCOMPARE(r.error, QString());
        QCOMPARE(store.source(), LocalTokenStore::Source::File);
        QVERIFY(t.elapsed() < 5000);
        QCOMPARE(store.token().size(), 64);
    }

    void unwritableStateDirIsAnError()
    {
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        QTemporaryDir dir;
        writeFile(dir.path() + "/file", "x");
        LocalTokenStore store(dir.path() + "/file/state");
        const Loaded r = load(store);
        QVERIFY(r.done);
        QVERIFY(!r.error.isEmpty());
        QVERIFY(store.token().isEmpty());
    }

private:
    QTemporaryDir m_noBus;
};

QTEST_GUILESS_MAIN(TestLocalTokenStore)
#include "tst_local_token_store.moc"
