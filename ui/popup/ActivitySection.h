#pragma once

#include "models/ActivityModel.h"

#include <QGroupBox>
#include <QHash>
#include <QSet>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace chat2sbx::ui {

// "Activity": the commands running now in each sandbox, each with its last output lines (updated in
// place while the popup is open) and a Stop button; below, the most recent tool calls, one line each.
class ActivitySection : public QGroupBox {
    Q_OBJECT
public:
    explicit ActivitySection(ActivityModel &model, QWidget *parent = nullptr);
    QList<QWidget *> focusChain() const;
    int runningCount() const { return static_cast<int>(m_cards.size()); }
    int callCount() const { return m_callCount; }

    static constexpr int kRecentCalls = 8;

    void refreshRunning();
    void refreshCalls();

signals:
    void rebuilt();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    struct Card {
        QWidget *widget = nullptr;
        QLabel *title = nullptr;
        QLabel *output = nullptr;
        QPushButton *stop = nullptr;
    };
    Card makeCommandCard(const RunningCommandRow &row);
    void stopCommand(const QString &sandboxId, const QString &sessionId);

    // Outlives this: the models are owned by ServiceModels (TrayCommand), made before the tray and its popup.
    ActivityModel &m_model;
    QLabel *m_idle = nullptr;
    QLabel *m_message = nullptr;
    QVBoxLayout *m_running = nullptr;
    QVBoxLayout *m_calls = nullptr;
    QLabel *m_callsTitle = nullptr;
    QHash<QString, Card> m_cards;   // by session id, in insertion order of m_order
    QStringList m_order;
    QSet<QString> m_stopping;
    int m_callCount = 0;
};

} // namespace chat2sbx::ui
