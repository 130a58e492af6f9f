// Item 9 with real bind mounts: `chat2sbx workspace add` runs inside bubblewrap (its own
// mount namespace, the rest of the host shared) where ~/.ssh is bound below an allowed root. The
// folder holding the bind, and the bound folder itself, are refused; the same folders without the
// bind are accepted. Skipped, saying so, when this machine does not let bubblewrap mount.
#include "TestSupport.h"

#include <QDir>
#include <QStandardPaths>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestBindMounts : public QObject {
    Q_OBJECT

    QString m_bwrap;

    // `chat2sbx workspace add --mode direct <path>` with `source` bound at `target` (none: no bind).
    CliResult addUnderBind(const TestEnvironment &env, const QString &path, const QString &source = {}, const QString &target = {})
    {
        QStringList args = {"--dev-bind", "/", "/"};
        if (!source.isEmpty())
            args << "--bind" << source << target;
        args << "--" << chat2sbxBinary() << "workspace" << "add" << "--mode" << "direct" << path;
        return runProcess(m_bwrap, args, env.processEnvironment());
    }

private slots:
    void initTestCase()
    {
        m_bwrap = QStandardPaths::findExecutable(QStringLiteral("bwrap"));
        if (m_bwrap.isEmpty())
            QSKIP("bubblewrap (bwrap) is not installed: no real bind mount can be made here");
        TestEnvironment env;
        QDir().mkpath(env.root() + "/a");
        QDir().mkpath(env.root() + "/b");
        QProcess probe;
        probe.start(m_bwrap, {"--dev-bind", "/", "/", "--bind", env.root() + "/a", env.root() + "/b", "--", "true"});
        if (!probe.waitForFinished(10000) || probe.exitCode() != 0)
            QSKIP("bubblewrap cannot make a bind mount on this machine (no user namespaces?)");
    }

    void bindMountOfSshBelowARootIsRefused()
    {
        TestEnvironment env;
        const QString allowed = env.root() + "/projects";
        const QString ssh = env.home() + "/.ssh";
        QVERIFY(QDir().mkpath(ssh));
        QVERIFY(writeFile(ssh + "/id_ed25519", "PRIVATE KEY\n"));
        QVERIFY(QDir().mkpath(allowed + "/proj/keys"));
        QVERIFY(QDir().mkpath(allowed + "/innocent"));
        env.set("CHAT2SBX_ALLOWED_HOST_ROOTS", allowed);

        // ~/.ssh bound inside the requested folder.
        CliResult r = addUnderBind(env, allowed + "/proj", ssh, allowed + "/proj/keys");
        QVERIFY2(r.exitCode != 0, r.out.constData());
        QVERIFY2(r.err.contains((allowed + "/proj/keys is a mount point").toUtf8()), r.err.constData());

        // ~/.ssh bound as the requested folder itself.
        r = addUnderBind(env, allowed + "/innocent", ssh, allowed + "/innocent");
        QVERIFY2(r.exitCode != 0, r.out.constData());
        QVERIFY2(r.err.contains("is a mount point") || r.err.contains("~/.ssh"), r.err.constData());

        // A folder between the root and the requested one is the bind (of the home directory).
        QVERIFY(QDir().mkpath(allowed + "/outer"));
        QVERIFY(QDir().mkpath(env.home() + "/inner"));
        r = addUnderBind(env, allowed + "/outer/inner", env.home(), allowed + "/outer");
        QVERIFY2(r.exitCode != 0, r.out.constData());
        QVERIFY2(r.err.contains((allowed + "/outer is a mount point").toUtf8()), r.err.constData());

        // Without the binds the same folders are fine.
        r = addUnderBind(env, allowed + "/proj");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = addUnderBind(env, allowed + "/innocent");
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestBindMounts)
#include "tst_bind_mounts.moc"
