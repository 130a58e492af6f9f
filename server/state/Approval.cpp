#include "state/Approval.h"

namespace chat2sbx {

QString approvalStateName(ApprovalState state)
{
    switch (state) {
    case ApprovalState::Pending: return QStringLiteral("pending");
    case ApprovalState::Approved: return QStringLiteral("approved");
    case ApprovalState::Rejected: return QStringLiteral("rejected");
    }
    return {};
}

bool parseApprovalState(const QString &text, ApprovalState &out)
{
    for (ApprovalState s : {ApprovalState::Pending, ApprovalState::Approved, ApprovalState::Rejected}) {
        if (text == approvalStateName(s)) {
            out = s;
            return true;
        }
    }
    return false;
}

} // namespace chat2sbx
