#pragma once

#include "models/TrayModels.h"

#include <QGroupBox>

class QLabel;
class QPushButton;

namespace chat2sbx::ui {

// "Status": endpoint URL, server and tunnel state (with the last error), active/limit, sbx (and what
// to fix), version.
class StatusSection : public QGroupBox {
    Q_OBJECT
public:
    explicit StatusSection(StatusModel &model, QWidget *parent = nullptr);
    QList<QWidget *> focusChain() const;

signals:
    void copyUrlRequested();
    void refreshed();

private:
    void refresh();

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    StatusModel &m_model;
    QLabel *m_endpoint = nullptr;
    QLabel *m_server = nullptr;
    QLabel *m_tunnel = nullptr;
    QLabel *m_tunnelError = nullptr;
    QLabel *m_sandboxes = nullptr;
    QLabel *m_sbx = nullptr;
    QLabel *m_sbxProblem = nullptr;
    QLabel *m_chatGptNotice = nullptr;
    QLabel *m_version = nullptr;
    QPushButton *m_copy = nullptr;
};

} // namespace chat2sbx::ui
