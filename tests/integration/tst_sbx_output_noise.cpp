// sbx-contract.md, behaviour 3 and the exec row: the daemon may print start-up lines on stdout before
// any output, and whether exec merges stderr into stdout is unknown. The fake does both on every
// command here (FAKE_SBX_DAEMON_NOTICE=always, FAKE_SBX_EXEC_MERGE_STDERR=1): the control channel
// must ignore the non-frame lines and the JSON parsers must skip the text before the JSON.
#include "InSandboxFixture.h"

#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestSbxOutputNoise : public QObject {
    Q_OBJECT
private:
    InSandboxFixture f;

private slots:
    void initTestCase()
    {
        qputenv("FAKE_SBX_DAEMON_NOTICE", "always");
        qputenv("FAKE_SBX_EXEC_MERGE_STDERR", "1");
        QString error;
        QVERIFY2(f.setUp(error), qPrintable(error));   // the channel attached through the noise
    }
    void cleanupTestCase()
    {
        qunsetenv("FAKE_SBX_DAEMON_NOTICE");
        qunsetenv("FAKE_SBX_EXEC_MERGE_STDERR");
    }

    void bashThroughTheNoisyChannel()
    {
        const ToolResult r = f.call(QStringLiteral("bash"),
                                    {{"command", "echo to-stdout; echo to-stderr >&2; echo 'not a frame' >&2; exit 3"},
                                     {"yield_time_ms", 10000}},
                                    30000);
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("status")).toString(), QStringLiteral("exited"));
        QCOMPARE(r.structured.value(QStringLiteral("exit_code")).toInt(), 3);
        const QString out = r.structured.value(QStringLiteral("output")).toString();
        QVERIFY2(out.contains(QStringLiteral("to-stdout")) && out.contains(QStringLiteral("to-stderr")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("sandboxd")), qPrintable(out));
    }

    void fileToolsThroughTheNoisyChannel()
    {
        const ToolResult w = f.call(QStringLiteral("write"), {{"path", "noise.txt"}, {"content", "hello\n"}}, 20000);
        QVERIFY2(!w.isError, qPrintable(InSandboxFixture::describe(w)));
        const ToolResult r = f.call(QStringLiteral("read"), {{"path", "noise.txt"}}, 20000);
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QVERIFY2(QJsonDocument(r.structured).toJson().contains("hello"), qPrintable(InSandboxFixture::describe(r)));
    }

    void jsonCommandsSkipTheDaemonText()
    {
        std::optional<QList<SbxRuntimeInfo>> listed;
        f.driver->list([&](const SbxResult &r, const QList<SbxRuntimeInfo> &items) {
            QVERIFY2(r.ok, qPrintable(r.error));
            QVERIFY2(r.out.startsWith("Starting sandboxd daemon..."), r.out.constData());
            listed = items;
        });
        QVERIFY(waitFor([&] { return listed.has_value(); }, 20000));
        QCOMPARE(listed->size(), 1);
        QCOMPARE(listed->at(0).name, f.sandbox().runtimeName);
        std::optional<QStringList> templates;
        f.driver->templateList([&](const SbxResult &r, const QStringList &refs) {
            QVERIFY2(r.ok, qPrintable(r.error));
            templates = refs;
        });
        QVERIFY(waitFor([&] { return templates.has_value(); }, 20000));
        QVERIFY(templates->contains(Config().templateRef()));
    }
};

QTEST_GUILESS_MAIN(TestSbxOutputNoise)
#include "tst_sbx_output_noise.moc"
