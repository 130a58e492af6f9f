#pragma once

#include "widgets/CardList.h"
#include "models/TrayModels.h"

#include <QHash>

class QTimer;

namespace chat2sbx::ui {

// "Approvals": one card per pending request: a host folder (Approve / Reject) or a file a sandbox
// wants to save on this computer (Save / Don't save). A decision made here is "Approved — Undo" in
// the card's place, at the card's height, for undoWindowMs(), and only then made: the next card's
// buttons do not slide under the pointer that just decided (a double click decides one request,
// not two), and a wrong click can be taken back.
class ApprovalsSection : public CardList {
    Q_OBJECT
public:
    explicit ApprovalsSection(ApprovalsModel &model, QWidget *parent = nullptr);
    // Decisions still in their undo window are made now: what the user chose is never dropped.
    ~ApprovalsSection() override;

    // The decisions still in their undo window, made now (the popup closed: nothing to undo from).
    void decideNow();

    static constexpr int kUndoWindowMs = 4000;
    // 0: decide at once (tests that are not about the undo window).
    static void setUndoWindowMs(int ms);
    static int undoWindowMs();

private:
    struct Undoable {
        bool approve = false;
        int height = 0;      // the card's, kept by its placeholder
        QTimer *timer = nullptr;
    };
    void addApprovalCard(const ApprovalRow &row);
    void addDecidedCard(const ApprovalRow &row, const Undoable &decision);
    void decide(const QString &id, bool approve, int cardHeight);
    void undo(const QString &id);
    void commit(const QString &id);
    // The model's decision, unless it was made elsewhere meanwhile.
    bool make(const QString &id, bool approve, QString &error);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    ApprovalsModel &m_model;
    QHash<QString, Undoable> m_undoable;
    QString m_focusAfterRebuild;   // the object name of the button that takes the focus next
};

} // namespace chat2sbx::ui
