#include "tray/TrayIcons.h"

#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

namespace chat2sbx::ui {

TrayState trayStateOf(const StatusInfo &s)
{
    if (s.server == StatusInfo::Server::Failed)
        return TrayState::Error;
    if (s.server != StatusInfo::Server::Running)
        return TrayState::Stopped;
    if (s.tunnel == StatusInfo::Tunnel::Failed || s.tunnel == StatusInfo::Tunnel::Unauthorized || !s.sbxProblem.isEmpty())
        return TrayState::Error;
    if (s.tunnel == StatusInfo::Tunnel::Connected)
        return TrayState::TunnelReady;
    return TrayState::LocalOnly;
}

QString trayStateName(TrayState state)
{
    switch (state) {
    case TrayState::Stopped: return QStringLiteral("stopped");
    case TrayState::LocalOnly: return QStringLiteral("local-only");
    case TrayState::TunnelReady: return QStringLiteral("tunnel connected");
    case TrayState::Error: return QStringLiteral("error");
    }
    return {};
}

QString trayIconPath(TrayState state)
{
    switch (state) {
    case TrayState::Stopped: return QStringLiteral(":/icons/tray-stopped.svg");
    case TrayState::LocalOnly: return QStringLiteral(":/icons/tray-local.svg");
    case TrayState::TunnelReady: return QStringLiteral(":/icons/tray-ready.svg");
    case TrayState::Error: return QStringLiteral(":/icons/tray-error.svg");
    }
    return {};
}

QIcon trayIcon(TrayState state, int pendingApprovals)
{
    QSvgRenderer base(trayIconPath(state));
    QSvgRenderer badge(QStringLiteral(":/icons/tray-badge.svg"));
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        base.render(&painter, QRectF(0, 0, size, size));
        if (pendingApprovals > 0)
            badge.render(&painter, QRectF(0, 0, size, size));
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

QString trayToolTip(const StatusInfo &status, int pendingApprovals)
{
    QString text = QStringLiteral("chat2sbx — %1").arg(trayStateName(trayStateOf(status)));
    if ((status.tunnel == StatusInfo::Tunnel::Failed || status.tunnel == StatusInfo::Tunnel::Unauthorized)
        && !status.tunnelError.isEmpty())
        text += QStringLiteral("\ntunnel: ") + status.tunnelError;
    if (status.server == StatusInfo::Server::Failed && !status.serverError.isEmpty())
        text += QStringLiteral("\n") + status.serverError;
    if (!status.sbxProblem.isEmpty())
        text += QStringLiteral("\n") + status.sbxProblem;
    if (pendingApprovals == 1)
        text += QStringLiteral("\n1 approval pending");
    else if (pendingApprovals > 1)
        text += QStringLiteral("\n%1 approvals pending").arg(pendingApprovals);
    return text;
}

} // namespace chat2sbx::ui
