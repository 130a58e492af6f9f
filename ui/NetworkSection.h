#pragma once

#include "TrayModels.h"

#include <QGroupBox>

class QLabel;
class QVBoxLayout;

namespace chat2sbx::ui {

// "Network": a card per agent request (Allow for this sandbox / Allow always / Deny), the hosts
// each sandbox's policy blocked lately (Allow), and the "always" rules chat2sbx added (Remove).
class NetworkSection : public QGroupBox {
    Q_OBJECT
public:
    explicit NetworkSection(NetworkModel &model, QWidget *parent = nullptr);
    QList<QWidget *> focusChain() const { return m_focus; }
    void rebuild();

signals:
    void rebuilt();

private:
    void addRequestCard(const NetworkRequestRow &row);
    void report(bool ok, const QString &error);

    NetworkModel &m_model;
    QVBoxLayout *m_rows = nullptr;
    QLabel *m_message = nullptr;
    QLabel *m_empty = nullptr;
    QList<QWidget *> m_focus;
};

} // namespace chat2sbx::ui
