// File tools through the real control channel into a fake-sbx sandbox: read,
// write, edit, search and list on text, binary, empty, missing, directory-instead-of-file and
// permission-denied paths; workspace-relative, absolute and ~/ paths; caps. Also prints the time of
// a `read` and of `bash true` through the channel against one bare `sbx exec <runtime> cat FILE`.
#include "InSandboxFixture.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QtTest>

#include <linux/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

using namespace chat2sbx;
using namespace chat2sbx::test;

class TestFileTools : public QObject {
    Q_OBJECT

private:
    InSandboxFixture f;
    bool m_permissionsEnforced = false;
    bool m_readOnlyOutsideEnforced = false;   // the sandbox refuses writes outside workspace, HOME and /tmp

    QString ws(const QString &rel) const { return f.workspaceDir + QLatin1Char('/') + rel; }
    static QString text(const ToolResult &r, const char *key) { return r.structured.value(QLatin1String(key)).toString(); }
    void expectError(const ToolResult &r, const QString &fragment)
    {
        QVERIFY2(r.isError, qPrintable(InSandboxFixture::describe(r)));
        QVERIFY2(r.message.contains(fragment, Qt::CaseInsensitive), qPrintable(r.message));
        QVERIFY2(!r.message.contains(f.env.dataRoot()), qPrintable(r.message));
    }

private slots:
    void initTestCase()
    {
        // As root, mode bits mean nothing to the sandbox's commands. Dropping the DAC capabilities
        // from this process's bounding set makes every child (fake sbx, bwrap, the helper) honour
        // them, so the permission-denied cases are real.
        if (::geteuid() == 0)
            for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})
                if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
                    qWarning("cannot drop capability %d from the bounding set", cap);
        QString error;
        QVERIFY2(f.setUp(error), qPrintable(error));
        QVERIFY(writeFile(ws("text.txt"), "alpha\nbeta\ngamma\n"));
        QVERIFY(writeFile(ws("bin.dat"), QByteArray("\x7f" "ELF\0\0\x01\x02 beta", 14)));
        QVERIFY(writeFile(ws("empty.txt"), ""));
        QDir().mkpath(ws("dir/sub/deeper"));
        QVERIFY(writeFile(ws("dir/a.cpp"), "int beta = 1;\n"));
        QVERIFY(writeFile(ws("dir/sub/b.h"), "// beta here\n"));
        QVERIFY(writeFile(ws("dir/sub/deeper/c.txt"), "beta deep\n"));
        QVERIFY(writeFile(ws(".git/config"), "beta in git\n"));
        QVERIFY(writeFile(ws("locked.txt"), "beta locked\n"));
        QFile::setPermissions(ws("locked.txt"), QFileDevice::Permissions());
        QDir().mkpath(ws("lockeddir"));
        QVERIFY(writeFile(ws("lockeddir/x.txt"), "beta\n"));
        QFile::setPermissions(ws("lockeddir"), QFileDevice::Permissions());
        // Root inside the sandbox ignores mode bits; then a read-only location stands in for "denied".
        const SbxResult probe = f.exec({QStringLiteral("cat"), ws("locked.txt")});
        m_permissionsEnforced = !probe.ok;
        m_readOnlyOutsideEnforced = !f.exec({QStringLiteral("bash"), QStringLiteral("-c"),
                                              QStringLiteral("mkdir /usr/.chat2sbx-rw-probe && rmdir /usr/.chat2sbx-rw-probe")}).ok;
        QVERIFY2(m_permissionsEnforced || m_readOnlyOutsideEnforced, "the sandbox can write anywhere: refusing to test denial");
        if (!m_permissionsEnforced)
            qWarning("mode bits are not enforced in this sandbox (root); permission cases use a read-only path");
    }

    void readText()
    {
        ToolResult r = f.call(QStringLiteral("read"), {{"path", "text.txt"}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(text(r, "content"), QStringLiteral("     1\talpha\n     2\tbeta\n     3\tgamma\n"));
        QCOMPARE(r.structured.value(QStringLiteral("total_lines")).toInt(), 3);
        QCOMPARE(text(r, "path"), QStringLiteral("~/workspace/text.txt"));
        QCOMPARE(r.structured.value(QStringLiteral("binary")).toBool(), false);
        r = f.call(QStringLiteral("read"), {{"path", "text.txt"}, {"offset", 2}, {"limit", 1}});
        QVERIFY(text(r, "content").startsWith(QStringLiteral("     2\tbeta\n[showing lines 2-2 of 3")));
        // Absolute path inside the VM and ~/ paths.
        r = f.call(QStringLiteral("read"), {{"path", ws("text.txt")}});
        QVERIFY(!r.isError);
        r = f.call(QStringLiteral("read"), {{"path", "~/workspace/text.txt"}});
        QVERIFY2(!r.isError && text(r, "content").contains(QStringLiteral("gamma")), qPrintable(InSandboxFixture::describe(r)));
    }

    void readOtherKinds()
    {
        ToolResult r = f.call(QStringLiteral("read"), {{"path", "bin.dat"}});
        QVERIFY(!r.isError);
        QCOMPARE(r.structured.value(QStringLiteral("binary")).toBool(), true);
        QCOMPARE(r.structured.value(QStringLiteral("size")).toInt(), 14);
        r = f.call(QStringLiteral("read"), {{"path", "empty.txt"}});
        QVERIFY(!r.isError);
        QCOMPARE(text(r, "content"), QString());
        QCOMPARE(r.structured.value(QStringLiteral("total_lines")).toInt(), 0);
        expectError(f.call(QStringLiteral("read"), {{"path", "missing.txt"}}), QStringLiteral("no such file"));
        expectError(f.call(QStringLiteral("read"), {{"path", "dir"}}), QStringLiteral("is a directory"));
        if (m_permissionsEnforced)
            expectError(f.call(QStringLiteral("read"), {{"path", "locked.txt"}}), QStringLiteral("permission denied"));
    }

    void readCaps()
    {
        QByteArray big;
        for (int i = 0; i < 5000; ++i)
            big += QByteArray(199, 'x') + '\n';
        QVERIFY(writeFile(ws("big.txt"), big));
        ToolResult r = f.call(QStringLiteral("read"), {{"path", "big.txt"}});
        QVERIFY(!r.isError);
        QVERIFY(r.structured.value(QStringLiteral("truncated")).toBool());
        QVERIFY(text(r, "content").toUtf8().size() <= 256 * 1024 + 200);
        QVERIFY(text(r, "content").contains(QStringLiteral("[truncated at 256 KiB")));
        QByteArray many;
        for (int i = 1; i <= 2500; ++i)
            many += QByteArray::number(i) + '\n';
        QVERIFY(writeFile(ws("many.txt"), many));
        r = f.call(QStringLiteral("read"), {{"path", "many.txt"}});
        QCOMPARE(r.structured.value(QStringLiteral("end_line")).toInt(), 2000);
        QVERIFY(text(r, "content").contains(QStringLiteral("offset=2001")));
    }

    void writeKinds()
    {
        ToolResult r = f.call(QStringLiteral("write"), {{"path", "new/nested/file.txt"}, {"content", "héllo\n"}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("bytes_written")).toInt(), 7);
        QCOMPARE(readFile(ws("new/nested/file.txt")), QByteArray("héllo\n"));
        QCOMPARE(QDir(ws("new/nested")).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("file.txt")});
        // Overwrite a binary file, write an empty file.
        QVERIFY(writeFile(ws("bin2.dat"), QByteArray("\0\1\2", 3)));
        r = f.call(QStringLiteral("write"), {{"path", "bin2.dat"}, {"content", "text now"}});
        QVERIFY(!r.isError);
        QCOMPARE(readFile(ws("bin2.dat")), QByteArray("text now"));
        r = f.call(QStringLiteral("write"), {{"path", "empty2.txt"}, {"content", ""}});
        QVERIFY(!r.isError);
        QCOMPARE(r.structured.value(QStringLiteral("bytes_written")).toInt(), 0);
        QVERIFY(QFileInfo::exists(ws("empty2.txt")));
        expectError(f.call(QStringLiteral("write"), {{"path", "dir"}, {"content", "x"}}), QStringLiteral("is a directory"));
        if (m_permissionsEnforced)
            expectError(f.call(QStringLiteral("write"), {{"path", "lockeddir/y.txt"}, {"content", "x"}}),
                        QStringLiteral("permission denied"));
        else if (m_readOnlyOutsideEnforced)
            expectError(f.call(QStringLiteral("write"), {{"path", "/usr/chat2sbx-test.txt"}, {"content", "x"}}),
                        QStringLiteral("cannot write"));
        // ~/ paths land in the sandbox HOME.
        r = f.call(QStringLiteral("write"), {{"path", "~/notes/n.txt"}, {"content", "note"}});
        QVERIFY(!r.isError);
        QCOMPARE(text(f.call(QStringLiteral("read"), {{"path", "~/notes/n.txt"}}), "content"), QStringLiteral("     1\tnote\n"));
    }

    void editKinds()
    {
        QVERIFY(writeFile(ws("e.txt"), "one\ntwo\nthree\nfour\ntwo\n"));
        ToolResult r = f.call(QStringLiteral("edit"), {{"path", "e.txt"}, {"old_string", "three"}, {"new_string", "3"}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(r.structured.value(QStringLiteral("replacements")).toInt(), 1);
        QCOMPARE(readFile(ws("e.txt")), QByteArray("one\ntwo\n3\nfour\ntwo\n"));
        const QString diff = text(r, "diff");
        QVERIFY2(diff.contains(QStringLiteral("@@ -1,5 +1,5 @@\n one\n two\n-three\n+3\n four\n two\n")), qPrintable(diff));
        expectError(f.call(QStringLiteral("edit"), {{"path", "e.txt"}, {"old_string", "two"}, {"new_string", "2"}}),
                    QStringLiteral("matches 2 times"));
        expectError(f.call(QStringLiteral("edit"), {{"path", "e.txt"}, {"old_string", "seven"}, {"new_string", "7"}}),
                    QStringLiteral("0 matches"));
        QCOMPARE(readFile(ws("e.txt")), QByteArray("one\ntwo\n3\nfour\ntwo\n"));
        r = f.call(QStringLiteral("edit"), {{"path", "e.txt"}, {"old_string", "two\n"}, {"new_string", ""}, {"replace_all", true}});
        QVERIFY(!r.isError);
        QCOMPARE(r.structured.value(QStringLiteral("replacements")).toInt(), 2);
        QCOMPARE(readFile(ws("e.txt")), QByteArray("one\n3\nfour\n"));
        QVERIFY2(text(r, "diff").contains(QStringLiteral("-two")), qPrintable(text(r, "diff")));
        expectError(f.call(QStringLiteral("edit"), {{"path", "bin.dat"}, {"old_string", "ELF"}, {"new_string", "x"}}),
                    QStringLiteral("binary"));
        expectError(f.call(QStringLiteral("edit"), {{"path", "empty.txt"}, {"old_string", "a"}, {"new_string", "b"}}),
                    QStringLiteral("0 matches"));
        expectError(f.call(QStringLiteral("edit"), {{"path", "missing.txt"}, {"old_string", "a"}, {"new_string", "b"}}),
                    QStringLiteral("no such file"));
        expectError(f.call(QStringLiteral("edit"), {{"path", "dir"}, {"old_string", "a"}, {"new_string", "b"}}),
                    QStringLiteral("is a directory"));
        if (m_permissionsEnforced)
            expectError(f.call(QStringLiteral("edit"), {{"path", "locked.txt"}, {"old_string", "beta"}, {"new_string", "b"}}),
                        QStringLiteral("permission denied"));
        else if (m_readOnlyOutsideEnforced)
            expectError(f.call(QStringLiteral("edit"), {{"path", "/etc/hostname"}, {"old_string", "\n"}, {"new_string", "x\n"}}),
                        QStringLiteral("cannot write"));
        expectError(f.call(QStringLiteral("edit"), {{"path", "e.txt"}, {"old_string", ""}, {"new_string", "b"}}),
                    QStringLiteral("old_string"));
    }

    void searchKinds()
    {
        ToolResult r = f.call(QStringLiteral("search"), {{"pattern", "beta"}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QStringList files;
        for (const QJsonValue &m : r.structured.value(QStringLiteral("matches")).toArray())
            files << m.toObject().value(QStringLiteral("file")).toString() + QLatin1Char(':')
                         + QString::number(m.toObject().value(QStringLiteral("line")).toInt());
        files.sort();
        QVERIFY2(files.contains(QStringLiteral("text.txt:2")), qPrintable(files.join(' ')));
        QVERIFY(files.contains(QStringLiteral("dir/sub/deeper/c.txt:1")));
        QVERIFY(!files.join(' ').contains(QStringLiteral(".git")));
        QVERIFY(!files.join(' ').contains(QStringLiteral("bin.dat")));   // binary skipped
        r = f.call(QStringLiteral("search"), {{"pattern", "be+ta"}, {"regex", true}, {"path", "dir"}, {"glob", "*.h"}});
        QCOMPARE(r.structured.value(QStringLiteral("count")).toInt(), 1);
        QCOMPARE(r.structured.value(QStringLiteral("matches")).toArray().at(0).toObject().value(QStringLiteral("text")).toString(),
                 QStringLiteral("// beta here"));
        r = f.call(QStringLiteral("search"), {{"pattern", "gamma"}, {"path", "text.txt"}});
        QCOMPARE(r.structured.value(QStringLiteral("count")).toInt(), 1);
        r = f.call(QStringLiteral("search"), {{"pattern", "x"}, {"path", "empty.txt"}});
        QVERIFY(!r.isError);
        QCOMPARE(r.structured.value(QStringLiteral("count")).toInt(), 0);
        r = f.call(QStringLiteral("search"), {{"pattern", "ELF"}, {"path", "bin.dat"}});
        QCOMPARE(r.structured.value(QStringLiteral("count")).toInt(), 0);
        r = f.call(QStringLiteral("search"), {{"pattern", "beta"}, {"max_results", 2}});
        QCOMPARE(r.structured.value(QStringLiteral("count")).toInt(), 2);
        QVERIFY(r.structured.value(QStringLiteral("truncated")).toBool());
        expectError(f.call(QStringLiteral("search"), {{"pattern", "beta"}, {"path", "missing"}}), QStringLiteral("no such file"));
        expectError(f.call(QStringLiteral("search"), {{"pattern", "(unclosed"}, {"regex", true}}), QStringLiteral("search failed"));
        if (m_permissionsEnforced)
            expectError(f.call(QStringLiteral("search"), {{"pattern", "beta"}, {"path", "locked.txt"}}),
                        QStringLiteral("permission denied"));
    }

    void listKinds()
    {
        ToolResult r = f.call(QStringLiteral("list"), {});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        QCOMPARE(text(r, "path"), QStringLiteral("~/workspace"));
        QMap<QString, QString> types;
        for (const QJsonValue &e : r.structured.value(QStringLiteral("entries")).toArray())
            types.insert(e.toObject().value(QStringLiteral("path")).toString(), e.toObject().value(QStringLiteral("type")).toString());
        QCOMPARE(types.value(QStringLiteral("text.txt")), QStringLiteral("file"));
        QCOMPARE(types.value(QStringLiteral("dir/sub")), QStringLiteral("directory"));
        QVERIFY(!types.contains(QStringLiteral("dir/sub/b.h")));   // depth 2
        QVERIFY(!types.contains(QStringLiteral(".git")));
        r = f.call(QStringLiteral("list"), {{"path", "dir"}, {"depth", 3}});
        QVERIFY(r.structured.value(QStringLiteral("entries")).toArray().size() == 5);
        QDir().mkpath(ws("emptydir"));
        r = f.call(QStringLiteral("list"), {{"path", "emptydir"}});
        QVERIFY(!r.isError);
        QCOMPARE(r.structured.value(QStringLiteral("entries")).toArray().size(), 0);
        expectError(f.call(QStringLiteral("list"), {{"path", "text.txt"}}), QStringLiteral("not a directory"));
        expectError(f.call(QStringLiteral("list"), {{"path", "bin.dat"}}), QStringLiteral("not a directory"));
        expectError(f.call(QStringLiteral("list"), {{"path", "missing"}}), QStringLiteral("no such directory"));
        if (m_permissionsEnforced)
            expectError(f.call(QStringLiteral("list"), {{"path", "lockeddir"}}), QStringLiteral("permission denied"));
        QDir().mkpath(ws("huge"));
        for (int i = 0; i < 1100; ++i)
            QVERIFY(writeFile(ws(QStringLiteral("huge/f%1").arg(i)), ""));
        r = f.call(QStringLiteral("list"), {{"path", "huge"}});
        QCOMPARE(r.structured.value(QStringLiteral("entries")).toArray().size(), 1000);
        QVERIFY(r.structured.value(QStringLiteral("truncated")).toBool());
        QVERIFY(text(r, "note").contains(QStringLiteral("1,000")));
    }

    void everyCallResolvesTheSandbox()
    {
        const int before = f.resolver.calls;
        f.call(QStringLiteral("read"), {{"path", "text.txt"}});
        f.call(QStringLiteral("list"), {});
        QCOMPARE(f.resolver.calls, before + 2);
        PendingCall p = f.start(QStringLiteral("read"), {{"sandbox_id", newId("sbx_")}, {"path", "x"}}, false);
        QVERIFY(p.done() && p.get().isError);
        p = f.start(QStringLiteral("read"), {{"sandbox_id", "nope"}, {"path", "x"}}, false);
        QVERIFY(p.done() && p.get().isError);
    }

    void definitionsAreStrict()
    {
        for (const auto &e : f.tools.entries()) {
            QCOMPARE(e.definition.inputSchema.value(QStringLiteral("additionalProperties")).toBool(true), false);
            QVERIFY(!e.definition.outputSchema.isEmpty());
            QVERIFY(e.definition.inputSchema.value(QStringLiteral("required")).toArray().contains(QStringLiteral("sandbox_id")));
        }
        auto ann = [&](const char *name) { return f.tools.find(QLatin1String(name))->definition.annotations; };
        for (const char *ro : {"read", "search", "list", "bash_poll", "bash_list"})
            QVERIFY(ann(ro).readOnly && !ann(ro).destructive);
        // edit replaces text (unit.tool_hints holds every tool's hints against one table).
        for (const char *d : {"edit", "write", "apply_patch"})
            QVERIFY(!ann(d).readOnly && ann(d).destructive);
        for (const char *d : {"bash", "bash_write"})
            QVERIFY(!ann(d).readOnly && ann(d).destructive && ann(d).openWorld);
        QVERIFY(!ann("bash_stop").readOnly && ann("bash_stop").destructive && !ann("bash_stop").openWorld);
    }

    void stalledHelperIsRestarted()
    {
        SandboxChannel *channel = f.pool->find(f.id());
        QVERIFY(channel);
        const int startsBefore = channel->starts();
        const SbxResult pid = f.exec({QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("cat ~/.chat2sbx/helper.pid")});
        QVERIFY(pid.ok);
        const QString stalled = QString::fromUtf8(pid.out).trimmed();
        QVERIFY(f.exec({QStringLiteral("kill"), QStringLiteral("-STOP"), stalled}).ok);
        std::optional<ChannelReply> reply;
        channel->request(QStringLiteral("ping"), {}, 1000, [&](const ChannelReply &r) { reply = r; });
        QVERIFY(waitFor([&] { return reply.has_value(); }, 5000));
        QVERIFY(!reply->ok && reply->channelFailure);
        // The stuck ping kills the child; the channel comes back with a new helper.
        QVERIFY(waitFor([&] { return channel->starts() > startsBefore && channel->isHealthy(); }, 15000));
        const ToolResult r = f.call(QStringLiteral("read"), {{"path", "text.txt"}});
        QVERIFY2(!r.isError, qPrintable(InSandboxFixture::describe(r)));
        // The new helper removes the stopped one (tst_stuck_handlers checks that it is gone).
    }

    void channelWithoutSbxFailsCleanly()
    {
        SbxDriver missing(QStringLiteral("/nonexistent/sbx"), {});
        SandboxChannel channel(missing, f.sandbox(), {});
        std::optional<ChannelReply> reply;
        channel.request(QStringLiteral("ping"), {}, 10000, [&](const ChannelReply &r) { reply = r; });
        QVERIFY(waitFor([&] { return reply.has_value(); }, 5000));
        QVERIFY(!reply->ok && reply->channelFailure);
        QVERIFY2(!reply->error.contains(f.sandbox().runtimeName), qPrintable(reply->error));
        QVERIFY(waitFor([&] { return !channel.isRunning(); }, 5000));
    }

    void timings()
    {
        QVERIFY(writeFile(ws("four.txt"), QByteArray(4095, 'q') + '\n'));
        const int n = 10;
        f.call(QStringLiteral("read"), {{"path", "four.txt"}});   // warm
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < n; ++i)
            QVERIFY(!f.call(QStringLiteral("read"), {{"path", "four.txt"}}).isError);
        const double readMs = t.elapsed() / double(n);
        t.restart();
        for (int i = 0; i < n; ++i)
            QVERIFY(!f.call(QStringLiteral("bash"), {{"command", "true"}}).isError);
        const double bashMs = t.elapsed() / double(n);
        t.restart();
        for (int i = 0; i < n; ++i)
            QVERIFY(f.exec({QStringLiteral("cat"), ws("four.txt")}).ok);
        const double execMs = t.elapsed() / double(n);
        qInfo("TIMING read 4 KiB via channel: %.1f ms; bash true via channel: %.1f ms; bare sbx exec cat: %.1f ms (mean of %d)",
              readMs, bashMs, execMs, n);
    }

    void cleanupTestCase()
    {
        QFile::setPermissions(ws("lockeddir"), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        if (f.pool)
            f.pool->detach(f.id());
    }
};

QTEST_GUILESS_MAIN(TestFileTools)
#include "tst_file_tools.moc"
