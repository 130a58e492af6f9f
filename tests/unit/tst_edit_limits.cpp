// edit's pure parts: the size cap is decided before the result is built,
// the cost is linear in the file, and a change at byte 0 is shown where it is.
#include "tools/EditPlan.h"
#include "tools/UnifiedDiff.h"

#include <QElapsedTimer>
#include <QTest>

using namespace chat2sbx;

class TestEditLimits : public QObject {
    Q_OBJECT
private slots:
    void replaceAllOverTheCapIsRefusedBeforeBuilding()
    {
        // 100 kB of 'a', each replaced by 1 MiB: ~100 GB if built. Refused from the count alone.
        const QByteArray before(100 * 1000, 'a');
        const QByteArray huge(1024 * 1024, 'b');
        const EditPlan plan = planEdit(before, "a", huge, true, 10 * 1024 * 1024);
        QCOMPARE(plan.outcome, EditPlan::Outcome::TooLarge);
        QCOMPARE(plan.matches, qsizetype(100 * 1000));
        QCOMPARE(plan.resultBytes, qint64(100 * 1000) * 1024 * 1024);
        QVERIFY(plan.after.isEmpty());
        QVERIFY(plan.after.capacity() == 0);
    }

    void resultExactlyAtTheCapIsAllowed()
    {
        const QByteArray before(1000, 'a');
        const EditPlan ok = planEdit(before, "a", "bb", true, 2000);
        QCOMPARE(ok.outcome, EditPlan::Outcome::Ok);
        QCOMPARE(ok.after, QByteArray(2000, 'b'));
        QCOMPARE(planEdit(before, "a", "bb", true, 1999).outcome, EditPlan::Outcome::TooLarge);
    }

    void uniquenessAndNotFound()
    {
        QCOMPARE(planEdit("x y x", "x", "z", false, 100).outcome, EditPlan::Outcome::Ambiguous);
        QCOMPARE(planEdit("x y x", "x", "z", false, 100).matches, qsizetype(2));
        QCOMPARE(planEdit("x y x", "q", "z", true, 100).outcome, EditPlan::Outcome::NotFound);
        const EditPlan one = planEdit("x y x", "y", "", false, 100);
        QCOMPARE(one.outcome, EditPlan::Outcome::Ok);
        QCOMPARE(one.after, QByteArray("x  x"));
        QCOMPARE(planEdit("aaaa", "aa", "b", true, 100).after, QByteArray("bb"));   // not overlapping
    }

    // Was quadratic: 200k one-line matches took 23 s (every match counted the newlines before it).
    // The bound here is loose on purpose (sanitizer builds, a shared machine); bench/ has the figure.
    void replaceAllOn200kLinesIsLinear()
    {
        QByteArray before;
        for (int i = 0; i < 200000; ++i)
            before += "value = old;\n";
        QElapsedTimer timer;
        timer.start();
        const EditPlan plan = planEdit(before, "old", "new", true, 10 * 1024 * 1024);
        QCOMPARE(plan.outcome, EditPlan::Outcome::Ok);
        QCOMPARE(plan.matches, qsizetype(200000));
        const QString diff = replacementDiff(QStringLiteral("big.txt"), before, "old", "new");
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QStringLiteral("took %1 ms").arg(timer.elapsed())));
        QVERIFY(diff.endsWith(QStringLiteral("… (diff truncated)\n")));
        QVERIFY(diff.split(QLatin1Char('\n')).size() <= 202);
        QVERIFY(diff.contains(QStringLiteral("-value = old;\n+value = new;\n")));
    }

    void changeAtByteZeroIsShownAtTheTop()
    {
        const QString diff = replacementDiff(QStringLiteral("f.txt"), "first\nsecond\nthird\n", "first", "1st");
        QCOMPARE(diff, QStringLiteral("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-first\n+1st\n second\n third\n"));
    }

    void changeInTheMiddleKeepsContextAndLineNumbers()
    {
        QByteArray before;
        for (int i = 1; i <= 20; ++i)
            before += "line " + QByteArray::number(i) + '\n';
        const QString diff = replacementDiff(QStringLiteral("f"), before, "line 10\n", "ten\nTEN\n");
        QCOMPARE(diff, QStringLiteral("--- a/f\n+++ b/f\n@@ -7,7 +7,8 @@\n line 7\n line 8\n line 9\n-line 10\n+ten\n+TEN\n"
                                      " line 11\n line 12\n line 13\n"));
    }

    void manyMatchesOnOneLineMakeOneChange()
    {
        const QString diff = replacementDiff(QStringLiteral("f"), "a a a\nb\n", "a", "x");
        QCOMPARE(diff, QStringLiteral("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a a a\n+x x x\n b\n"));
    }

    void lastLineWithoutNewline()
    {
        const QString diff = replacementDiff(QStringLiteral("f"), "a\nb", "b", "c");
        QCOMPARE(diff, QStringLiteral("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"));
    }
};

QTEST_GUILESS_MAIN(TestEditLimits)
#include "tst_edit_limits.moc"
