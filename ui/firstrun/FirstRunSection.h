#pragma once

#include "models/TrayModels.h"

#include <QGroupBox>
#include <QStringList>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace chat2sbx::ui {

// The first-run guide at the top of the popup, shown while something the product needs is not
// ready (StatusInfo::setupNeeded) or Prepare runs: the steps in order (the server's SetupChecklist,
// the list `chat2sbx status` prints), each with its state and what to do, the command to copy,
// Prepare for the template with its lines live and Cancel, the tunnel files for ChatGPT (picked in a
// file dialog, stored in the keychain or the secret directory) with the steps in ChatGPT, and Check again.
class FirstRunSection : public QGroupBox {
    Q_OBJECT
public:
    explicit FirstRunSection(StatusModel &model, QWidget *parent = nullptr);
    QList<QWidget *> focusChain() const;
    bool preparing() const { return m_preparing; }
    QStringList prepareLines() const { return m_lines; }
    QString result() const;
    // The tunnel id file and key file (either order), as the file dialog hands them over.
    void importTunnelFiles(const QStringList &files);
    QString tunnelId() const { return m_tunnelId; }
    // The folder the folder dialog hands over.
    void addHostFolder(const QString &dir);
    // The program the "Choose sbx…" dialog hands over.
    void useSbxProgram(const QString &path);

signals:
    void rebuilt();

private:
    void refresh();
    void addRow(const ChecklistRow &row);
    void startPrepare();
    void chooseTunnelFiles();
    void chooseHostFolder();
    void chooseSbxProgram();
    void showResult(bool ok, const QString &message);
    void showLines();

    StatusModel &m_model;
    QVBoxLayout *m_rows = nullptr;
    QLabel *m_log = nullptr;
    QLabel *m_result = nullptr;
    QPushButton *m_cancel = nullptr;
    QPushButton *m_checkAgain = nullptr;
    QPushButton *m_copyTunnelId = nullptr;
    QString m_tunnelId;
    QList<QWidget *> m_focus;
    QStringList m_lines;
    bool m_preparing = false;
};

} // namespace chat2sbx::ui
