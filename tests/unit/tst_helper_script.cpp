// The in-sandbox helper runs only programs that `setup` makes sure the template has: every external
// command the script invokes is in SandboxChannel::helperCommands(), and every listed one is used.
#include "sandbox/channel/SandboxChannel.h"

#include <QRegularExpression>
#include <QtTest>

using namespace chat2sbx;

namespace {

// The script without comment lines and trailing " # ..." comments.
QString code()
{
    QStringList lines;
    for (QString line : QString::fromUtf8(SandboxChannel::helperScript()).split(QLatin1Char('\n'))) {
        if (line.trimmed().startsWith(QLatin1Char('#')))
            continue;
        const qsizetype comment = line.indexOf(QLatin1String(" # "));
        if (comment >= 0)
            line.truncate(comment);
        lines << line;
    }
    return lines.join(QLatin1Char('\n'));
}

bool invokes(const QString &script, const QString &command)
{
    // At the start of a command: line start, after a space, |, ;, &, (, ! or $( .
    const QRegularExpression re(QStringLiteral("(^|[\\s|;&(!])%1(\\s|$)").arg(QRegularExpression::escape(command)),
                                QRegularExpression::MultilineOption);
    return re.match(script).hasMatch();
}

} // namespace

class TestHelperScript : public QObject {
    Q_OBJECT
private slots:
    void everyProgramItRunsIsRequired()
    {
        const QString script = code();
        QVERIFY(script.size() > 1000);
        // Programs of coreutils, util-linux, grep, findutils and friends that a shell script might run (not
        // "file": the word is in the helper's messages).
        const QStringList candidates = {
            "awk", "base64", "basename", "cat", "chmod", "chown", "cmp", "cp", "cut", "date", "dd", "diff", "dirname",
            "du", "env", "expr", "find", "flock", "grep", "gzip", "head", "id", "install", "ln", "ls",
            "md5sum", "mkdir", "mkfifo", "mktemp", "mv", "nohup", "od", "perl", "python3", "readlink", "realpath",
            "rm", "rmdir", "sed", "seq", "setsid", "sha256sum", "sleep", "sort", "split", "stat", "stdbuf", "tail",
            "tar", "tee", "timeout", "touch", "tr", "truncate", "uniq", "wc", "xargs", "xxd"};
        const QStringList required = SandboxChannel::helperCommands();
        for (const QString &c : candidates) {
            if (invokes(script, c))
                QVERIFY2(required.contains(c), qPrintable(c + " is run by the helper but setup does not check for it"));
        }
        for (const QString &c : required)
            QVERIFY2(invokes(script, c), qPrintable(c + " is required by setup but the helper never runs it"));
        QVERIFY2(invokes(script, "rg"), "ripgrep (optional) is no longer used: update the docs");
    }

    void theCheckWouldCatchAMissingOne()
    {
        QVERIFY(invokes("x=1\nfoo | flock 9\n", "flock"));
        QVERIFY(invokes("v=$(stat -c %s f)", "stat"));
        QVERIFY(!invokes("echo flocked\n", "flock"));
        QVERIFY(!invokes("my_stat_fn\n", "stat"));
    }
};

QTEST_GUILESS_MAIN(TestHelperScript)
#include "tst_helper_script.moc"
