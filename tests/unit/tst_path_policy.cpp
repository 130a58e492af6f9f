// PathPolicy: every refusal (disabled, not absolute, '..', not UTF-8, control characters, too long,
// missing, not a directory, the root itself, outside the roots, symlink escape, credential folders
// anywhere in the path, home-like folders, chat2sbx's own data directory, clone without git) with
// its exact reason, and the swap detection of revalidate().
#include "workspace/PathPolicy.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace chat2sbx;

namespace {

bool mkdirs(const QString &path)
{
    return QDir().mkpath(path);
}

bool symlinkTo(const QString &target, const QString &link)
{
    return ::symlink(QFile::encodeName(target).constData(), QFile::encodeName(link).constData()) == 0;
}

} // namespace

class TestPathPolicy : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_base;      // canonical temp dir
    QString m_root;      // the allowed root
    QString m_outside;   // a folder outside every root
    QString m_data;      // stands for chat2sbx's data directory

    PathPolicy policy() const { return PathPolicy({m_root}, {m_data}); }

    void expectRefused(const QString &path, WorkspaceMode mode, const QString &reasonPart)
    {
        const PathCheck c = policy().check(path, mode);
        QVERIFY2(!c.ok, qPrintable(QStringLiteral("accepted: ") + path));
        QVERIFY2(c.reason.contains(reasonPart), qPrintable(QStringLiteral("reason was: ") + c.reason));
        QVERIFY(c.directory.canonicalPath.isEmpty());
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        char buf[PATH_MAX];
        QVERIFY(::realpath(QFile::encodeName(m_tmp.path()).constData(), buf));
        m_base = QString::fromUtf8(buf);
        m_root = m_base + "/roots/repos";
        m_outside = m_base + "/outside";
        m_data = m_root + "/.chat2sbx-data";   // a data root that happens to lie below the allowed root
        QVERIFY(mkdirs(m_root + "/project/.git"));
        QVERIFY(mkdirs(m_root + "/plain/sub"));
        QVERIFY(mkdirs(m_outside + "/secret"));
        QVERIFY(mkdirs(m_data + "/state"));
        QVERIFY(mkdirs(m_root + "/worktree"));
        QVERIFY(QFile(m_root + "/worktree/.git").open(QIODevice::WriteOnly));   // git worktree: .git is a file
        QVERIFY(QFile(m_root + "/afile").open(QIODevice::WriteOnly));
    }

    void cleanupTestCase()
    {
        // QDir cannot name the non-UTF-8 folder; remove it by its bytes.
        ::rmdir((QFile::encodeName(m_root) + "/bad-\xff\xfe").constData());
    }

    void disabledWithoutAllowedRoots()
    {
        const PathCheck c = PathPolicy({}).check(m_root + "/plain", WorkspaceMode::Direct);
        QVERIFY(!c.ok);
        QVERIFY2(c.reason.startsWith("host workspaces are disabled: set CHAT2SBX_ALLOWED_HOST_ROOTS"), qPrintable(c.reason));
        QVERIFY(!PathPolicy({}).hostAccessEnabled());
        QVERIFY(policy().hostAccessEnabled());
    }

    void acceptsDirectoriesBelowTheRoot()
    {
        const PathCheck direct = policy().check(m_root + "/plain/sub", WorkspaceMode::Direct);
        QVERIFY2(direct.ok, qPrintable(direct.reason));
        QCOMPARE(direct.directory.canonicalPath, m_root + "/plain/sub");
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(m_root + "/plain/sub").constData(), &st), 0);
        QCOMPARE(direct.directory.inode, static_cast<qint64>(st.st_ino));
        QCOMPARE(direct.directory.device, static_cast<qint64>(st.st_dev));

        const PathCheck clone = policy().check(m_root + "/project", WorkspaceMode::Clone);
        QVERIFY2(clone.ok, qPrintable(clone.reason));
        // a linked worktree in direct mode (clone mode refuses it: refusesLinkedWorktree)
        const PathCheck worktree = policy().check(m_root + "/worktree/", WorkspaceMode::Direct);
        QVERIFY2(worktree.ok, qPrintable(worktree.reason));
        QVERIFY(!policy().check(m_root + "/worktree/", WorkspaceMode::Clone).ok);
        QCOMPARE(worktree.directory.canonicalPath, m_root + "/worktree");
    }

    void rootsAreCanonicalised()
    {
        // The root is configured through a symlink; requests through either spelling resolve the same.
        const QString linkRoot = m_base + "/root-link";
        QVERIFY(symlinkTo(m_root, linkRoot));
        PathPolicy viaLink({linkRoot});
        const PathCheck c = viaLink.check(m_root + "/plain", WorkspaceMode::Direct);
        QVERIFY2(c.ok, qPrintable(c.reason));
        const PathCheck c2 = viaLink.check(linkRoot + "/plain", WorkspaceMode::Direct);
        QVERIFY2(c2.ok, qPrintable(c2.reason));
        QCOMPARE(c2.directory.canonicalPath, m_root + "/plain");
        const PathCheck rootItself = viaLink.check(m_root, WorkspaceMode::Direct);
        QVERIFY(!rootItself.ok);
        QVERIFY(rootItself.reason.contains("is an allowed root itself"));
    }

    void refusesTheRootItself() { expectRefused(m_root, WorkspaceMode::Direct, "is an allowed root itself; choose a folder below it"); }
    void refusesTheRootWithTrailingSlash() { expectRefused(m_root + "/", WorkspaceMode::Direct, "is an allowed root itself"); }
    void refusesPathsOutsideTheRoots() { expectRefused(m_outside + "/secret", WorkspaceMode::Direct, "is not below an allowed root (allowed: " + m_root + ")"); }
    void refusesAPrefixSibling() { QVERIFY(mkdirs(m_root + "-evil/x")); expectRefused(m_root + "-evil/x", WorkspaceMode::Direct, "is not below an allowed root"); }
    void refusesRelativePaths() { expectRefused("roots/repos/plain", WorkspaceMode::Direct, "is not an absolute path"); }
    void refusesEmpty() { expectRefused("", WorkspaceMode::Direct, "host_path is empty"); }
    void refusesDotDot() { expectRefused(m_root + "/plain/../plain", WorkspaceMode::Direct, "contains a '..' component"); }
    void refusesDotDotEscape() { expectRefused(m_root + "/../../outside/secret", WorkspaceMode::Direct, "contains a '..' component"); }
    void refusesDot() { expectRefused(m_root + "/./plain", WorkspaceMode::Direct, "contains a '.' component"); }
    void refusesMissing() { expectRefused(m_root + "/nope", WorkspaceMode::Direct, m_root + "/nope does not exist"); }
    void refusesAFile() { expectRefused(m_root + "/afile", WorkspaceMode::Direct, m_root + "/afile is not a directory"); }
    void refusesBelowAFile() { expectRefused(m_root + "/afile/x", WorkspaceMode::Direct, "is not a directory"); }
    void refusesManagedMode() { expectRefused(m_root + "/plain", WorkspaceMode::Managed, "managed workspaces are created by chat2sbx"); }
    void refusesCloneWithoutGit()
    {
        expectRefused(m_root + "/plain", WorkspaceMode::Clone, "clone mode needs a git repository, but " + m_root + "/plain has no .git at its top");
    }
    void refusesLinkedWorktree()
    {
        // A linked worktree's .git is a file ("gitdir: …"); sbx --clone refuses it.
        QVERIFY(mkdirs(m_root + "/linked"));
        QFile gitFile(m_root + "/linked/.git");
        QVERIFY(gitFile.open(QIODevice::WriteOnly));
        gitFile.write("gitdir: " + (m_root + "/project/.git/worktrees/linked").toUtf8() + "\n");
        gitFile.close();
        expectRefused(m_root + "/linked", WorkspaceMode::Clone, m_root + "/linked is a linked git worktree");
        expectRefused(m_root + "/linked", WorkspaceMode::Clone, "main checkout");
        expectRefused(m_root + "/linked", WorkspaceMode::Clone, "mode direct");
        QVERIFY(policy().check(m_root + "/linked", WorkspaceMode::Direct).ok);
    }
    void refusesGitSymlink()
    {
        QVERIFY(mkdirs(m_root + "/fakegit"));
        QVERIFY(symlinkTo(m_root + "/project/.git", m_root + "/fakegit/.git"));
        expectRefused(m_root + "/fakegit", WorkspaceMode::Clone, "clone mode needs a git repository");
    }

    void refusesSymlinkEscape()
    {
        QVERIFY(symlinkTo(m_outside + "/secret", m_root + "/escape"));
        expectRefused(m_root + "/escape", WorkspaceMode::Direct, m_root + "/escape leads outside the allowed roots through a symbolic link");
        // A parent symlink escaping works the same way.
        QVERIFY(symlinkTo(m_outside, m_root + "/escape-parent"));
        expectRefused(m_root + "/escape-parent/secret", WorkspaceMode::Direct, "leads outside the allowed roots through a symbolic link");
        // The reason names neither the target nor anything outside.
        const PathCheck c = policy().check(m_root + "/escape", WorkspaceMode::Direct);
        QVERIFY(!c.reason.contains(m_outside));
    }

    void followsSymlinksThatStayInside()
    {
        QVERIFY(symlinkTo(m_root + "/project", m_root + "/alias"));
        const PathCheck c = policy().check(m_root + "/alias", WorkspaceMode::Clone);
        QVERIFY2(c.ok, qPrintable(c.reason));
        QCOMPARE(c.directory.canonicalPath, m_root + "/project");
    }

    void refusesCredentialFolders_data()
    {
        QTest::addColumn<QString>("relative");
        QTest::addColumn<QString>("name");
        QTest::newRow("ssh deep") << "a/b/c/.ssh/d/e" << ".ssh";
        QTest::newRow("ssh last") << "team/.ssh" << ".ssh";
        QTest::newRow("gnupg") << "x/.gnupg/y" << ".gnupg";
        QTest::newRow("aws") << "x/.aws" << ".aws";
        QTest::newRow("azure") << "x/.azure/cli" << ".azure";
        QTest::newRow("kube") << "x/.kube" << ".kube";
        QTest::newRow("docker") << "x/.docker/contexts" << ".docker";
        QTest::newRow("gcloud") << "x/.config/gcloud/configurations" << ".config/gcloud";
        QTest::newRow("password-store") << "x/.password-store/web" << ".password-store";
        QTest::newRow("netrc component") << "x/.netrc" << ".netrc";
        QTest::newRow("pgpass component") << "x/.pgpass/y" << ".pgpass";
        QTest::newRow("git-credentials component") << "x/.git-credentials" << ".git-credentials";
    }
    void refusesCredentialFolders()
    {
        QFETCH(QString, relative);
        QFETCH(QString, name);
        const QString path = m_root + "/cred/" + relative;
        QVERIFY(mkdirs(path));
        expectRefused(path, WorkspaceMode::Direct, "it goes through the credential folder " + name);
        // The same folder reached through an innocent-looking symlink is refused on its canonical path.
        const QString link = m_root + "/innocent-" + QString::number(qHash(relative));
        QVERIFY(symlinkTo(path, link));
        expectRefused(link, WorkspaceMode::Direct, "it resolves into the credential folder " + name);
    }
    void configWithoutGcloudIsFine()
    {
        QVERIFY(mkdirs(m_root + "/dotconfig/.config/nvim"));
        const PathCheck c = policy().check(m_root + "/dotconfig/.config/nvim", WorkspaceMode::Direct);
        QVERIFY2(c.ok, qPrintable(c.reason));
    }

    void refusesHomeLikeFolders()
    {
        QVERIFY(mkdirs(m_root + "/someone/.ssh"));
        expectRefused(m_root + "/someone", WorkspaceMode::Direct, "looks like a home directory (it contains .ssh)");
        QVERIFY(mkdirs(m_root + "/other/.config/gcloud"));
        expectRefused(m_root + "/other", WorkspaceMode::Direct, "it contains .config/gcloud");
        QVERIFY(mkdirs(m_root + "/repo-with-docker/.docker"));
        QVERIFY(mkdirs(m_root + "/repo-with-docker/.git"));
        QVERIFY2(policy().check(m_root + "/repo-with-docker", WorkspaceMode::Clone).ok, "a repository's .docker/ build folder is fine");
    }

    void refusesTheDataDirectory()
    {
        expectRefused(m_data + "/state", WorkspaceMode::Direct, "the path is inside chat2sbx's own data directory");
        QVERIFY(!policy().check(m_data + "/state", WorkspaceMode::Direct).reason.contains(m_data));
        expectRefused(m_data, WorkspaceMode::Direct, "is inside chat2sbx's own data directory");
        PathPolicy dataBelow({m_base + "/roots"}, {m_data});
        const PathCheck contains = dataBelow.check(m_root, WorkspaceMode::Direct);
        QVERIFY(!contains.ok);
        QVERIFY2(contains.reason.contains("contains chat2sbx's own data directory"), qPrintable(contains.reason));
        // Reached through a symlink, and the reason never names the data directory.
        QVERIFY(symlinkTo(m_data + "/state", m_root + "/looks-harmless"));
        const PathCheck viaLink = policy().check(m_root + "/looks-harmless", WorkspaceMode::Direct);
        QVERIFY(!viaLink.ok);
        QVERIFY(viaLink.reason.contains("is inside chat2sbx's own data directory"));
        QVERIFY(!viaLink.reason.contains(m_data));
    }

    void refusesNonUtf8Names()
    {
        // A folder whose name is not UTF-8, reached through a UTF-8 symlink.
        const QByteArray bad = QFile::encodeName(m_root) + "/bad-\xff\xfe";
        QCOMPARE(::mkdir(bad.constData(), 0700), 0);
        QCOMPARE(::symlink(bad.constData(), QFile::encodeName(m_root + "/to-bad").constData()), 0);
        expectRefused(m_root + "/to-bad", WorkspaceMode::Direct, "resolves to a name that is not valid UTF-8");
        // Text that already lost bytes in decoding (U+FFFD) is refused too.
        expectRefused(m_root + "/bad-" + QChar(QChar::ReplacementCharacter), WorkspaceMode::Direct, "the path is not valid UTF-8");
        // A lone surrogate cannot be encoded.
        expectRefused(m_root + "/x" + QChar(0xD800), WorkspaceMode::Direct, "not valid UTF-8");
    }

    void refusesControlCharacters() { expectRefused(m_root + "/plain\nsub", WorkspaceMode::Direct, "contains control characters"); }

    void refusesVeryLongPaths()
    {
        QString longPath = m_root;
        while (longPath.toUtf8().size() <= PathPolicy::kMaxPathBytes)
            longPath += "/abcdefghij";
        expectRefused(longPath, WorkspaceMode::Direct, "the path is too long");
        expectRefused(m_root + "/" + QString(256, QLatin1Char('a')), WorkspaceMode::Direct, "a component of the path is longer than 255 bytes");
        // 255 bytes is still fine (it just does not exist here).
        expectRefused(m_root + "/" + QString(255, QLatin1Char('a')), WorkspaceMode::Direct, "does not exist");
    }

    void revalidateAcceptsTheSameDirectory()
    {
        const PathCheck first = policy().check(m_root + "/project", WorkspaceMode::Clone);
        QVERIFY(first.ok);
        const PathCheck again = policy().revalidate(first.directory, WorkspaceMode::Clone);
        QVERIFY2(again.ok, qPrintable(again.reason));
    }

    void revalidateDetectsASwappedDirectory()
    {
        const QString path = m_root + "/swap";
        QVERIFY(mkdirs(path));
        const PathCheck first = policy().check(path, WorkspaceMode::Direct);
        QVERIFY(first.ok);
        QVERIFY(QDir().rename(path, m_root + "/swap-old"));
        QVERIFY(mkdirs(path));   // a different directory at the same path
        const PathCheck again = policy().revalidate(first.directory, WorkspaceMode::Direct);
        QVERIFY(!again.ok);
        QVERIFY2(again.reason.contains("was replaced after it was checked"), qPrintable(again.reason));
    }

    void revalidateDetectsASwapForASymlink()
    {
        const QString path = m_root + "/swap-link";
        QVERIFY(mkdirs(path));
        const PathCheck first = policy().check(path, WorkspaceMode::Direct);
        QVERIFY(first.ok);
        QVERIFY(QDir(path).removeRecursively());
        QVERIFY(symlinkTo(m_outside + "/secret", path));
        const PathCheck outside = policy().revalidate(first.directory, WorkspaceMode::Direct);
        QVERIFY(!outside.ok);
        QVERIFY2(outside.reason.contains("leads outside the allowed roots"), qPrintable(outside.reason));
        QVERIFY(QFile::remove(path));
        QVERIFY(symlinkTo(m_root + "/plain", path));
        const PathCheck inside = policy().revalidate(first.directory, WorkspaceMode::Direct);
        QVERIFY(!inside.ok);
        QVERIFY2(inside.reason.contains("now resolves elsewhere"), qPrintable(inside.reason));
    }

    void revalidateRefusesWhatThePolicyNowRefuses()
    {
        const QString path = m_root + "/gone";
        QVERIFY(mkdirs(path));
        const PathCheck first = policy().check(path, WorkspaceMode::Direct);
        QVERIFY(first.ok);
        QVERIFY(QDir(path).removeRecursively());
        const PathCheck again = policy().revalidate(first.directory, WorkspaceMode::Direct);
        QVERIFY(!again.ok);
        QVERIFY(again.reason.contains("does not exist"));
        // The roots changed: the same directory is no longer allowed.
        const PathCheck project = policy().check(m_root + "/project", WorkspaceMode::Clone);
        QVERIFY(!PathPolicy({m_outside}).revalidate(project.directory, WorkspaceMode::Clone).ok);
    }
};

QTEST_GUILESS_MAIN(TestPathPolicy)
#include "tst_path_policy.moc"
