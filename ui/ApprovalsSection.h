#pragma once

#include "TrayModels.h"

#include <QGroupBox>

class QLabel;
class QVBoxLayout;

namespace chat2sbx::ui {

// "Approvals": one card per pending host-path request, with Approve / Reject.
class ApprovalsSection : public QGroupBox {
    Q_OBJECT
public:
    explicit ApprovalsSection(ApprovalsModel &model, QWidget *parent = nullptr);
    // Focusable widgets in visual order (the popup chains them for Tab).
    QList<QWidget *> focusChain() const;
    int rowCount() const { return m_rowCount; }

    // Re-reads the rows from the model (also on every change signal).
    void rebuild();

signals:
    void rebuilt();

private:
    void decide(const QString &id, bool approve);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    ApprovalsModel &m_model;
    QVBoxLayout *m_rows = nullptr;
    QLabel *m_message = nullptr;
    QLabel *m_empty = nullptr;
    QList<QWidget *> m_focus;
    int m_rowCount = 0;
};

} // namespace chat2sbx::ui
