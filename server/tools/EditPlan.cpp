#include "tools/EditPlan.h"

namespace chat2sbx {

EditPlan planEdit(const QByteArray &before, const QByteArray &oldText, const QByteArray &newText, bool replaceAll,
                  qint64 maxResultBytes)
{
    EditPlan plan;
    if (oldText.isEmpty())
        return plan;
    for (qsizetype at = before.indexOf(oldText); at >= 0; at = before.indexOf(oldText, at + oldText.size()))
        ++plan.matches;
    if (plan.matches == 0)
        return plan;
    if (plan.matches > 1 && !replaceAll) {
        plan.outcome = EditPlan::Outcome::Ambiguous;
        return plan;
    }
    // matches <= before.size() and each size is a few MiB at most: no overflow in 64 bits.
    plan.resultBytes = qint64(before.size()) + qint64(plan.matches) * (qint64(newText.size()) - qint64(oldText.size()));
    if (plan.resultBytes > maxResultBytes) {
        plan.outcome = EditPlan::Outcome::TooLarge;
        return plan;
    }
    plan.after.reserve(plan.resultBytes);
    qsizetype cursor = 0;
    for (qsizetype at = before.indexOf(oldText); at >= 0; at = before.indexOf(oldText, at + oldText.size())) {
        plan.after.append(before.constData() + cursor, at - cursor);
        plan.after.append(newText);
        cursor = at + oldText.size();
    }
    plan.after.append(before.constData() + cursor, before.size() - cursor);
    plan.outcome = EditPlan::Outcome::Ok;
    return plan;
}

} // namespace chat2sbx
