#include "popup/PopupHeader.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace chat2sbx::ui {

OverallState overallState(const StatusInfo &s)
{
    using Server = StatusInfo::Server;
    using Tunnel = StatusInfo::Tunnel;
    if (s.server == Server::Failed)
        return {QStringLiteral("Server stopped"), Tone::Error, s.serverError};
    if (s.server == Server::Starting || s.server == Server::Stopped)
        return {QStringLiteral("Starting…"), Tone::Muted, QString()};
    if (s.server == Server::Stopping)
        return {QStringLiteral("Stopping…"), Tone::Muted, QString()};
    if (!s.sbxProblem.isEmpty())
        return {QStringLiteral("Needs setup"), Tone::Warning, s.sbxProblem};
    switch (s.tunnel) {
    case Tunnel::Connected: return {QStringLiteral("Connected to ChatGPT"), Tone::Success, s.endpointUrl};
    case Tunnel::Disabled: return {QStringLiteral("Local only"), Tone::Muted, s.endpointUrl};
    case Tunnel::NotSetUp: return {QStringLiteral("Ready · ChatGPT not connected yet"), Tone::Muted, s.tunnelError};
    case Tunnel::Starting:
    case Tunnel::Stopped: return {QStringLiteral("Connecting to ChatGPT…"), Tone::Muted, QString()};
    case Tunnel::Unauthorized: return {QStringLiteral("ChatGPT tunnel not authorized"), Tone::Error, s.tunnelError};
    case Tunnel::Failed: return {QStringLiteral("ChatGPT tunnel failed"), Tone::Error, s.tunnelError};
    }
    return {};
}

PopupHeader::PopupHeader(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("header"));
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    m_state = new QLabel(this);
    m_state->setObjectName(QStringLiteral("overallState"));
    QFont bold = m_state->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.1);
    m_state->setFont(bold);
    m_state->setTextFormat(Qt::PlainText);
    m_waiting = new QLabel(this);
    m_waiting->setObjectName(QStringLiteral("waitingCount"));
    m_waiting->setTextFormat(Qt::PlainText);
    m_details = new QToolButton(this);
    m_details->setObjectName(QStringLiteral("details"));
    m_details->setText(QStringLiteral("Details"));
    m_details->setCheckable(true);
    m_details->setAutoRaise(true);
    m_details->setAccessibleName(QStringLiteral("Show the status details"));
    m_details->setToolTip(QStringLiteral("Endpoint, tunnel, Docker Sandboxes and version"));
    connect(m_details, &QToolButton::toggled, this, &PopupHeader::detailsToggled);
    row->addWidget(m_state, 1);
    row->addWidget(m_waiting, 0, Qt::AlignRight);
    row->addWidget(m_details, 0, Qt::AlignRight);
}

bool PopupHeader::detailsShown() const
{
    return m_details->isChecked();
}

void PopupHeader::setDetailsShown(bool shown)
{
    m_details->setChecked(shown);
}

void PopupHeader::present(const StatusInfo &status, int waiting)
{
    const OverallState state = overallState(status);
    m_state->setText(state.text);
    m_state->setToolTip(state.detail);
    m_state->setAccessibleName(state.detail.isEmpty() ? state.text : state.text + QStringLiteral(": ") + state.detail);
    setTone(m_state, state.tone);
    m_waiting->setText(waiting == 0 ? QString() : waiting == 1 ? QStringLiteral("1 waits for you") : QStringLiteral("%1 wait for you").arg(waiting));
    m_waiting->setAccessibleName(m_waiting->text());
    if (waiting > 0)
        setTone(m_waiting, Tone::Warning);
}

QString PopupHeader::stateText() const
{
    return m_state->text();
}

QString PopupHeader::waitingText() const
{
    return m_waiting->text();
}

} // namespace chat2sbx::ui
