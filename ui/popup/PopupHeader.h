#pragma once

#include "widgets/PopupStyle.h"
#include "models/TrayModels.h"

#include <QWidget>

class QLabel;
class QToolButton;

namespace chat2sbx::ui {

// The product's state in a few words, for the popup's header line: "Connected to ChatGPT", "Local
// only", "Needs setup" or what is wrong, with the tone it is drawn in and one sentence of detail.
struct OverallState {
    QString text;
    Tone tone = Tone::Muted;
    QString detail;
};
OverallState overallState(const StatusInfo &status);

// The popup's first line: the overall state, how many things wait for the user, and Details (the
// Status part: endpoint, tunnel, sbx, version), shown by itself when something is wrong.
class PopupHeader : public QWidget {
    Q_OBJECT
public:
    explicit PopupHeader(QWidget *parent = nullptr);
    void present(const StatusInfo &status, int waiting);
    QString stateText() const;
    QString waitingText() const;
    bool detailsShown() const;
    void setDetailsShown(bool shown);
    QToolButton *detailsButton() const { return m_details; }

signals:
    void detailsToggled(bool shown);

private:
    QLabel *m_state = nullptr;
    QLabel *m_waiting = nullptr;
    QToolButton *m_details = nullptr;
};

} // namespace chat2sbx::ui
