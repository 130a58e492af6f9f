// edit on arbitrary text: the input is split into file / old_string / new_string at the first two
// NUL bytes. The plan must respect its size cap and match a plain replacement, and the diff must
// stay within its line cap.
#include "tools/EditPlan.h"
#include "tools/UnifiedDiff.h"

#include <QStringList>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace chat2sbx;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const QList<QByteArray> parts = bytes.split('\0');
    if (parts.size() < 3 || parts.at(1).isEmpty())
        return 0;
    const QByteArray &before = parts.at(0), &oldText = parts.at(1), &newText = parts.at(2);
    constexpr qint64 kCap = 4096;
    const bool replaceAll = size % 2 == 0;
    const EditPlan plan = planEdit(before, oldText, newText, replaceAll, kCap);
    switch (plan.outcome) {
    case EditPlan::Outcome::Ok: {
        if (plan.after.size() != plan.resultBytes || plan.resultBytes > kCap)
            std::abort();
        QByteArray expected = before;
        if (expected.replace(oldText, newText) != plan.after)
            std::abort();
        const QString diff = replacementDiff(QStringLiteral("f"), before, oldText, newText, 20);
        if (diff.count(QLatin1Char('\n')) > 20 + 2 || !diff.startsWith(QStringLiteral("--- a/f\n+++ b/f\n")))
            std::abort();
        break;
    }
    case EditPlan::Outcome::TooLarge:
        if (plan.resultBytes <= kCap || !plan.after.isEmpty())
            std::abort();
        break;
    case EditPlan::Outcome::Ambiguous:
        if (replaceAll || plan.matches < 2)
            std::abort();
        break;
    case EditPlan::Outcome::NotFound:
        if (before.contains(oldText))
            std::abort();
        break;
    }
    return 0;
}
