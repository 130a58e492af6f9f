#pragma once

#include "CardList.h"
#include "TrayModels.h"

namespace chat2sbx::ui {

// "Approvals": one card per pending host-path request, with Approve / Reject.
class ApprovalsSection : public CardList {
    Q_OBJECT
public:
    explicit ApprovalsSection(ApprovalsModel &model, QWidget *parent = nullptr);

private:
    void addApprovalCard(const ApprovalRow &row);
    void decide(const QString &id, bool approve);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    ApprovalsModel &m_model;
};

} // namespace chat2sbx::ui
