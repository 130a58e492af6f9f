#include "StatusSection.h"

#include "PopupStyle.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

StatusSection::StatusSection(StatusModel &model, QWidget *parent) : QGroupBox(QStringLiteral("Status"), parent), m_model(model)
{
    setObjectName(QStringLiteral("status"));
    auto *form = new QFormLayout(this);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);

    auto *endpointRow = new QHBoxLayout;
    m_endpoint = makeLabel(QString(), this);
    m_endpoint->setObjectName(QStringLiteral("endpoint"));
    m_endpoint->setWordWrap(false);
    m_endpoint->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_endpoint->setAccessibleName(QStringLiteral("MCP endpoint URL"));
    m_copy = new QPushButton(QStringLiteral("Copy &URL"), this);
    m_copy->setObjectName(QStringLiteral("copyUrl"));
    m_copy->setAccessibleName(QStringLiteral("Copy the MCP endpoint URL"));
    endpointRow->addWidget(m_endpoint, 1);
    endpointRow->addWidget(m_copy);
    form->addRow(QStringLiteral("Endpoint:"), endpointRow);

    m_server = makeLabel(QString(), this);
    m_server->setObjectName(QStringLiteral("server"));
    form->addRow(QStringLiteral("Server:"), m_server);
    auto *tunnel = new QVBoxLayout;
    tunnel->setContentsMargins(0, 0, 0, 0);
    m_tunnel = makeLabel(QString(), this);
    m_tunnel->setObjectName(QStringLiteral("tunnel"));
    m_tunnelError = makeLabel(QString(), this);
    m_tunnelError->setObjectName(QStringLiteral("tunnelError"));
    m_tunnelError->setStyleSheet(QStringLiteral("color: #b42318;"));
    m_chatGptNotice = makeLabel(QString(), this);
    m_chatGptNotice->setObjectName(QStringLiteral("chatGptNotice"));
    m_chatGptNotice->setStyleSheet(QStringLiteral("color: #b54708;"));
    m_chatGptNotice->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    tunnel->addWidget(m_tunnel);
    tunnel->addWidget(m_tunnelError);
    tunnel->addWidget(m_chatGptNotice);
    form->addRow(QStringLiteral("Tunnel:"), tunnel);
    m_sandboxes = makeLabel(QString(), this);
    m_sandboxes->setObjectName(QStringLiteral("active"));
    form->addRow(QStringLiteral("Sandboxes:"), m_sandboxes);
    auto *sbx = new QVBoxLayout;
    sbx->setContentsMargins(0, 0, 0, 0);
    m_sbx = makeLabel(QString(), this);
    m_sbx->setObjectName(QStringLiteral("sbx"));
    m_sbxProblem = makeLabel(QString(), this);
    m_sbxProblem->setObjectName(QStringLiteral("sbxProblem"));
    m_sbxProblem->setStyleSheet(QStringLiteral("color: #b42318;"));
    m_sbxProblem->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    sbx->addWidget(m_sbx);
    sbx->addWidget(m_sbxProblem);
    form->addRow(QStringLiteral("Docker Sandboxes:"), sbx);
    m_version = makeLabel(QString(), this);
    m_version->setObjectName(QStringLiteral("version"));
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
    const QString error = s.tunnelError.isEmpty() ? QString() : QStringLiteral("last error: ") + s.tunnelError;
    showError(m_tunnelError, error);
    showError(m_chatGptNotice, s.chatGptNotice);
    m_sandboxes->setText(QStringLiteral("%1 active / limit %2, %3 warm")
                             .arg(s.activeSandboxes)
                             .arg(s.sandboxLimit)
                             .arg(s.warmSandboxes));
    m_sbx->setText(s.sbx);
    showError(m_sbxProblem, s.sbxProblem);
    m_version->setText(s.version);
    emit refreshed();
}

} // namespace chat2sbx::ui
