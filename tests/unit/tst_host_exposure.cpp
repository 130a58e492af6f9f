// Item 9 (the parts that need no real mount): the mountinfo parser on data rows, the mount
// points PathPolicy refuses (from an injected mount table), and the identity check that finds a
// credential folder under another path (the home directory inside the requested folder). A real
// bind mount of ~/.ssh is in tests/integration/tst_bind_mounts.
#include "workspace/HostExposure.h"
#include "workspace/MountTable.h"
#include "workspace/PathPolicy.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <climits>
#include <cstdlib>

using namespace chat2sbx;

class TestHostExposure : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_base;
    QString m_root;
    QString m_home;

    PathPolicy policy(const QList<MountEntry> &mounts) const
    {
        PathPolicy p({m_root});
        p.useMountTable(mounts);
        p.useHome(m_home);
        return p;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        char buf[PATH_MAX];
        QVERIFY(::realpath(QFile::encodeName(m_tmp.path()).constData(), buf));
        m_base = QString::fromUtf8(buf);
        m_root = m_base + "/roots";
        m_home = m_base + "/home";
        QVERIFY(QDir().mkpath(m_root + "/proj/src/deep"));
        QVERIFY(QDir().mkpath(m_root + "/other"));
        QVERIFY(QDir().mkpath(m_home + "/.ssh"));
        QVERIFY(QDir().mkpath(m_home + "/.config/gcloud"));
    }

    void parsesMountInfoRows()
    {
        const QByteArray text =
            "22 1 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
            "88 68 254:0 /home/u/.ssh /srv/my\\040projects/keys rw,relatime - ext4 /dev/vda rw\n"
            "89 68 254:0 /a\\134b /x\\011y\\012z rw master:1 shared:2 - ext4 /dev/vda rw\n"
            "garbage line\n"
            "90 68 254:0 relative /not-absolute rw - ext4 /dev/vda rw\n"
            "\n"
            "91 68 0:5 / /mnt/\\777 rw - tmpfs none rw\n";
        const QList<MountEntry> m = parseMountInfo(text);
        QCOMPARE(m.size(), 4);
        QCOMPARE(m.at(0).mountPoint, QStringLiteral("/proc"));
        QCOMPARE(m.at(0).root, QStringLiteral("/"));
        QCOMPARE(m.at(1).root, QStringLiteral("/home/u/.ssh"));
        QCOMPARE(m.at(1).mountPoint, QStringLiteral("/srv/my projects/keys"));
        QCOMPARE(m.at(2).root, QStringLiteral("/a\\b"));
        QCOMPARE(m.at(2).mountPoint, QStringLiteral("/x\ty\nz"));
        QCOMPARE(m.at(3).mountPoint, QStringLiteral("/mnt/\\777"));   // not an octal escape the kernel writes
    }

    // The table of this process is read, whatever its shape: a chroot whose / is not a mount point
    // of its own (a debootstrap root entered with chroot, some containers) lists no "/" line.
    void readsThisProcessMountTable()
    {
        const auto own = readOwnMountTable();
        QVERIFY(own.has_value());
        QVERIFY(!own->isEmpty());
        for (const MountEntry &e : *own)
            QVERIFY2(e.mountPoint.startsWith(QLatin1Char('/')), qPrintable(e.mountPoint));
    }

    // The checks never rely on a "/" line: they look for mount points at, inside or on the way to
    // the folder (and walk the devices from the allowed root down), so both shapes refuse the same
    // inner mount and allow the same plain folder.
    void aTableWithoutRootChecksTheSame_data()
    {
        QTest::addColumn<QByteArray>("mountinfo");
        // Recorded shapes, with this test's folders put in: a whole system, and the same seen from a
        // chroot whose root is a plain directory (only the mounts made inside it are listed).
        const QByteArray inner = "/home/u/.ssh " + QFile::encodeName(m_root) + "/proj/src ";
        QTest::newRow("a whole system (/ listed)")
            << QByteArray("21 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
                          "22 21 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
                          "23 21 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw\n"
                          "88 21 254:1 ") + inner + "rw,relatime - ext4 /dev/vda1 rw\n";
        QTest::newRow("a chroot (no / line)")
            << QByteArray("310 209 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
                          "311 209 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw\n"
                          "312 209 254:1 ") + inner + "rw,relatime - ext4 /dev/vda1 rw\n";
    }
    void aTableWithoutRootChecksTheSame()
    {
        QFETCH(QByteArray, mountinfo);
        const QList<MountEntry> mounts = parseMountInfo(mountinfo);
        QVERIFY(mounts.size() >= 3);
        const PathCheck inner = policy(mounts).check(m_root + "/proj", WorkspaceMode::Direct);
        QVERIFY(!inner.ok);
        QVERIFY2(inner.reason.contains(m_root + "/proj/src is a mount point"), qPrintable(inner.reason));
        QVERIFY(policy(mounts).check(m_root + "/other", WorkspaceMode::Direct).ok);
    }

    void mountPointsOnTheWayOrInsideAreRefused()
    {
        const QString proj = m_root + "/proj";
        QVERIFY(policy({}).check(proj, WorkspaceMode::Direct).ok);
        // Mounts at or above the allowed root are the user's own layout.
        QVERIFY(policy({{"/", "/"}, {"/", m_base}, {"/", m_root}}).check(proj, WorkspaceMode::Direct).ok);
        // Beside the folder: not its business.
        QVERIFY(policy({{"/home/u/.ssh", m_root + "/other"}}).check(proj, WorkspaceMode::Direct).ok);
        // Inside the folder, deep inside, at the folder itself.
        for (const QString &mp : {proj + "/src", proj + "/src/deep", proj}) {
            const PathCheck c = policy({{"/home/u/.ssh", mp}}).check(proj, WorkspaceMode::Direct);
            QVERIFY2(!c.ok, qPrintable(mp));
            QVERIFY2(c.reason.contains(mp + " is a mount point"), qPrintable(c.reason));
        }
        // Between the root and the folder.
        const PathCheck between = policy({{"/", m_root + "/proj"}}).check(m_root + "/proj/src", WorkspaceMode::Direct);
        QVERIFY(!between.ok);
        QVERIFY2(between.reason.contains("make the mounted folder an allowed root"), qPrintable(between.reason));
        // A name that only starts like the folder is not inside it.
        QVERIFY(policy({{"/", m_root + "/project-two"}}).check(proj, WorkspaceMode::Direct).ok);
    }

    void aCredentialFolderFoundUnderAnotherPathIsRefused()
    {
        // The home directory sits inside the requested folder: its .ssh is found by identity.
        const QString proj = m_root + "/withhome";
        const QString home = proj + "/people/me";
        QVERIFY(QDir().mkpath(home + "/.ssh"));
        PathPolicy p({m_root});
        p.useMountTable({});
        p.useHome(home);
        const PathCheck c = p.check(proj, WorkspaceMode::Direct);
        QVERIFY(!c.ok);
        QVERIFY2(c.reason.contains("~/.ssh"), qPrintable(c.reason));
        QVERIFY2(c.reason.contains(home + "/.ssh"), qPrintable(c.reason));
        // Deeper than the walk goes: accepted (the mount table still covers real mounts).
        ExposureLimits shallow;
        shallow.maxDepth = 1;
        QVERIFY(exposureRefusal(proj, proj, m_root, QList<MountEntry>{}, guardedFolders(home, {".ssh"}, {}), shallow).isEmpty());
        // The chat2sbx data directory is guarded the same way.
        const QList<GuardedFolder> data = guardedFolders({}, {}, {home});
        const QString why = exposureRefusal(proj, proj, m_root, QList<MountEntry>{}, data);
        QVERIFY2(why.contains("chat2sbx's own data directory"), qPrintable(why));
    }

    void guardedFoldersAreTheExistingOnes()
    {
        const QList<GuardedFolder> g = guardedFolders(m_home, PathPolicy::credentialNames(), {m_root + "/missing"});
        QStringList labels;
        for (const GuardedFolder &f : g)
            labels << f.label;
        QCOMPARE(labels, (QStringList{"~/.ssh", "~/.config/gcloud"}));
    }
};

QTEST_GUILESS_MAIN(TestHostExposure)
#include "tst_host_exposure.moc"
