#include "popup/StatusSection.h"

#include "widgets/PopupStyle.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

namespace {

QLabel *statusLabel(const QString &name, QWidget *parent)
{
    QLabel *label = makeLabel(QString(), parent);
    label->setObjectName(name);
    return label;
}

// A line under a value that says what is wrong (hidden while empty); `selectable`: the user may
// copy it with the keyboard too (it holds a command to run).
QLabel *problemLabel(const QString &name, Tone tone, bool selectable, QWidget *parent)
{
    QLabel *label = statusLabel(name, parent);
    setTone(label, tone);
    if (selectable)
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    return label;
}

// A value with the lines below it, as one row of the form.
QVBoxLayout *stacked(const QList<QLabel *> &labels)
{
    auto *column = new QVBoxLayout;
    column->setContentsMargins(0, 0, 0, 0);
    for (QLabel *label : labels)
        column->addWidget(label);
    return column;
}

} // namespace

StatusSection::StatusSection(StatusModel &model, QWidget *parent) : QGroupBox(QStringLiteral("Status"), parent), m_model(model)
{
    setObjectName(QStringLiteral("status"));
    auto *form = new QFormLayout(this);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);

    auto *endpointRow = new QHBoxLayout;
    m_endpoint = statusLabel(QStringLiteral("endpoint"), this);
    m_endpoint->setWordWrap(false);
    m_endpoint->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_endpoint->setAccessibleName(QStringLiteral("MCP endpoint URL"));
    m_copy = new QPushButton(QStringLiteral("Copy &URL"), this);
    m_copy->setObjectName(QStringLiteral("copyUrl"));
    m_copy->setAccessibleName(QStringLiteral("Copy the MCP endpoint URL"));
    endpointRow->addWidget(m_endpoint, 1);
    endpointRow->addWidget(m_copy);
    form->addRow(QStringLiteral("Endpoint:"), endpointRow);

    m_server = statusLabel(QStringLiteral("server"), this);
    form->addRow(QStringLiteral("Server:"), m_server);
    m_tunnel = statusLabel(QStringLiteral("tunnel"), this);
    m_tunnelError = problemLabel(QStringLiteral("tunnelError"), Tone::Error, false, this);
    m_chatGptNotice = problemLabel(QStringLiteral("chatGptNotice"), Tone::Warning, true, this);
    form->addRow(QStringLiteral("Tunnel:"), stacked({m_tunnel, m_tunnelError, m_chatGptNotice}));
    m_sandboxes = statusLabel(QStringLiteral("active"), this);
    form->addRow(QStringLiteral("Sandboxes:"), m_sandboxes);
    m_sbx = statusLabel(QStringLiteral("sbx"), this);
    m_sbxProblem = problemLabel(QStringLiteral("sbxProblem"), Tone::Error, true, this);
    form->addRow(QStringLiteral("Docker Sandboxes:"), stacked({m_sbx, m_sbxProblem}));
    m_version = statusLabel(QStringLiteral("version"), this);
    form->addRow(QStringLiteral("Version:"), m_version);

    connect(m_copy, &QPushButton::clicked, this, &StatusSection::copyUrlRequested);
    connect(&m_model, &StatusModel::changed, this, &StatusSection::refresh);
    refresh();
}

QList<QWidget *> StatusSection::focusChain() const
{
    return {m_endpoint, m_copy};
}

void StatusSection::refresh()
{
    const StatusInfo s = m_model.status();
    m_endpoint->setText(s.endpointUrl);
    QString server = serverStateText(s.server);
    if (!s.serverError.isEmpty())
        server += QStringLiteral(": ") + s.serverError;
    m_server->setText(server);
    m_tunnel->setText(tunnelStateText(s.tunnel));
    // Never set up is no error: the guide's ChatGPT step says what to do.
    const QString error = s.tunnelError.isEmpty() || s.tunnel == StatusInfo::Tunnel::NotSetUp
                              ? QString()
                              : QStringLiteral("last error: ") + s.tunnelError;
    showError(m_tunnelError, error);
    showError(m_chatGptNotice, s.chatGptNotice);
    // Local and cloud apart, once there are cloud ones: "3 active (1 in the cloud) / limit 5, 1 warm".
    m_sandboxes->setText(QStringLiteral("%1 active%2 / limit %3, %4 warm%5")
                             .arg(s.activeSandboxes)
                             .arg(s.cloudActiveSandboxes > 0 ? QStringLiteral(" (%1 in the cloud)").arg(s.cloudActiveSandboxes) : QString())
                             .arg(s.sandboxLimit)
                             .arg(s.warmSandboxes)
                             .arg(s.cloudWarmSandboxes > 0 ? QStringLiteral(" + %1 in the cloud").arg(s.cloudWarmSandboxes) : QString()));
    m_sbx->setText(s.sbx);
    showError(m_sbxProblem, s.sbxProblem);
    m_version->setText(s.version);
    emit refreshed();
}

} // namespace chat2sbx::ui
