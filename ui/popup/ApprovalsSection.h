#pragma once

#include "widgets/CardList.h"
#include "models/TrayModels.h"

namespace chat2sbx::ui {

// "Approvals": one card per pending request: a host folder (Approve / Reject) or a file a sandbox
// wants to save on this computer (Save / Don't save).
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
