// A hung `sbx`: sandbox_create and sandbox_destroy answer within
// Config::sandboxAnswerWithinMs (45 s in production, 2 s here) saying the work goes on, instead of
// after sbx's own timeouts and the clean-up (330 s and 150 s); the record shows the state meanwhile.
#include "SandboxHarness.h"

#include <QElapsedTimer>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestHungSbx : public QObject {
    Q_OBJECT
private slots:
    void createAndDestroyAnswerWhileSbxHangs()
    {
        TestEnvironment env;
        SandboxHarness h(env);
        QVERIFY(h.opened);
        QVERIFY(h.reconcile());
        h.config.sandboxAnswerWithinMs = 2000;   // the tools read the harness's config when called

        env.setSbxFaults({QStringLiteral("FAKE_SBX_HANG_CREATE=1")});
        QElapsedTimer t;
        t.start();
        const CallResult create = h.call(QStringLiteral("sandbox_create"), {}, 30000);
        QVERIFY(create.finished);
        QVERIFY2(t.elapsed() < 10000, qPrintable(QStringLiteral("sandbox_create answered after %1 ms").arg(t.elapsed())));
        QVERIFY(create.result.isError);
        QVERIFY2(create.text().contains(QStringLiteral("goes on in the background")), qPrintable(create.text()));
        const CallResult listed = h.call(QStringLiteral("sandbox_list"));
        const QJsonArray items = listed.json().value(QStringLiteral("sandboxes")).toArray();
        QCOMPARE(items.size(), 1);
        QCOMPARE(items.at(0).toObject().value(QStringLiteral("state")).toString(), QStringLiteral("creating"));

        // A sandbox that did get created, then sbx rm hangs.
        env.setSbxFaults({});
        const CallResult made = h.call(QStringLiteral("sandbox_create"));
        QVERIFY2(!made.result.isError, qPrintable(made.text()));
        const QString id = made.json().value(QStringLiteral("sandbox_id")).toString();
        env.setSbxFaults({QStringLiteral("FAKE_SBX_HANG_RM=1")});
        t.restart();
        const CallResult destroy = h.call(QStringLiteral("sandbox_destroy"), {{QStringLiteral("sandbox_id"), id}}, 30000);
        QVERIFY(destroy.finished);
        QVERIFY2(t.elapsed() < 10000, qPrintable(QStringLiteral("sandbox_destroy answered after %1 ms").arg(t.elapsed())));
        QVERIFY(destroy.result.isError);
        QVERIFY2(destroy.text().contains(QStringLiteral("goes on in the background")), qPrintable(destroy.text()));
        const CallResult got = h.call(QStringLiteral("sandbox_get"), {{QStringLiteral("sandbox_id"), id}});
        QCOMPARE(got.json().value(QStringLiteral("state")).toString(), QStringLiteral("destroying"));
        QVERIFY(h.leaks.isEmpty());
        env.setSbxFaults({});
    }
};

QTEST_GUILESS_MAIN(TestHungSbx)
#include "tst_hung_sbx.moc"
