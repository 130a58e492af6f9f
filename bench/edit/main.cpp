// The event-loop part of `edit`: what FileTools runs between the helper's `get` answer and
// the `write` request: planEdit (count, cap, build) and replacementDiff. Prints one JSON object.
//   chat2sbx-bench-edit [matches=200000] [repeats=5]
#include "tools/EditPlan.h"
#include "tools/UnifiedDiff.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>

using namespace chat2sbx;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int matches = args.size() > 1 ? args.at(1).toInt() : 200000;
    const int repeats = args.size() > 2 ? args.at(2).toInt() : 5;
    QByteArray before;
    for (int i = 0; i < matches; ++i)
        before += "value = old;\n";   // one match per line: the case that was quadratic
    QList<double> ms;
    qsizetype replaced = 0;
    for (int r = 0; r < repeats; ++r) {
        QElapsedTimer t;
        t.start();
        const EditPlan plan = planEdit(before, "old", "new", true, 10 * 1024 * 1024);
        const QString diff = replacementDiff(QStringLiteral("big.txt"), before, "old", "new");
        ms << t.nsecsElapsed() / 1e6;
        replaced = plan.matches;
        if (diff.isEmpty())
            return 1;
    }
    // The allocation case: 100 kB of 'a', new_string 1 MiB: refused from the count.
    const QByteArray as(100 * 1000, 'a');
    QElapsedTimer t;
    t.start();
    const EditPlan refused = planEdit(as, "a", QByteArray(1024 * 1024, 'b'), true, 10 * 1024 * 1024);
    const double refusedMs = t.nsecsElapsed() / 1e6;
    std::sort(ms.begin(), ms.end());
    const QJsonObject out{{QStringLiteral("bench"), QStringLiteral("edit_replace_all")},
                          {QStringLiteral("file_bytes"), double(before.size())},
                          {QStringLiteral("matches"), double(replaced)},
                          {QStringLiteral("event_loop_ms_median"), ms.at(ms.size() / 2)},
                          {QStringLiteral("event_loop_ms_max"), ms.last()},
                          {QStringLiteral("goal_ms"), 200},
                          {QStringLiteral("oversized_refused"), refused.outcome == EditPlan::Outcome::TooLarge},
                          {QStringLiteral("oversized_refusal_ms"), refusedMs}};
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    return 0;
}
