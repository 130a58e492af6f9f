#include "tray/TrayIcons.h"

#include <QDir>
#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QStandardPaths>
#include <QSvgRenderer>

namespace chat2sbx::ui {

namespace {
const TrayState kStates[] = {TrayState::Stopped, TrayState::LocalOnly, TrayState::TunnelReady, TrayState::Error};

QString fileStem(TrayState state)
{
    switch (state) {
    case TrayState::Stopped: return QStringLiteral("stopped");
    case TrayState::LocalOnly: return QStringLiteral("local");
    case TrayState::TunnelReady: return QStringLiteral("ready");
    case TrayState::Error: return QStringLiteral("error");
    }
    return {};
}
} // namespace

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

QString trayIconName(TrayState state, bool attention)
{
    return QStringLiteral("chat2sbx-tray-") + fileStem(state) + (attention ? QStringLiteral("-attention") : QString());
}

QStringList trayIconNames()
{
    QStringList names;
    for (TrayState state : kStates)
        names << trayIconName(state, false) << trayIconName(state, true);
    return names;
}

QString trayIconPath(TrayState state, bool attention)
{
    return QStringLiteral(":/icons/tray-") + fileStem(state) + (attention ? QStringLiteral("-attention.svg") : QStringLiteral(".svg"));
}

QIcon trayIcon(TrayState state, int pendingApprovals)
{
    QSvgRenderer svg(trayIconPath(state, pendingApprovals > 0));
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter, QRectF(0, 0, size, size));
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

QString trayStatusLine(const StatusInfo &status, int waiting, int running)
{
    if (waiting > 0)
        return waiting == 1 ? QStringLiteral("1 waits for you") : QStringLiteral("%1 wait for you").arg(waiting);
    switch (status.server) {
    case StatusInfo::Server::Starting: return QStringLiteral("Starting…");
    case StatusInfo::Server::Stopping: return QStringLiteral("Stopping…");
    case StatusInfo::Server::Stopped: return QStringLiteral("Stopped");
    case StatusInfo::Server::Failed: return QStringLiteral("Not running: open chat2sbx for why");
    case StatusInfo::Server::Running: break;
    }
    if (!status.sbxProblem.isEmpty())
        return QStringLiteral("Needs setup");
    if (running == 0)
        return QStringLiteral("Ready · no sandbox running");
    return running == 1 ? QStringLiteral("Ready · 1 sandbox running") : QStringLiteral("Ready · %1 sandboxes running").arg(running);
}

QString writeThemeIcons(QString &error)
{
    QString base = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (base.isEmpty())
        base = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
    // A hicolor theme folder: themed icons win over a generic fallback ("chat2sbx", the app's own)
    // in the host's lookup, which unthemed files in the folder's root would not.
    const QString root = base + QStringLiteral("/chat2sbx-icons");
    const QString dir = root + QStringLiteral("/hicolor/scalable/status");
    if (!QDir().mkpath(dir)) {
        error = QStringLiteral("cannot create %1").arg(dir);
        return {};
    }
    for (TrayState state : kStates) {
        for (bool attention : {false, true}) {
            QFile source(trayIconPath(state, attention));
            if (!source.open(QIODevice::ReadOnly)) {
                error = QStringLiteral("the icon %1 is missing from the binary").arg(source.fileName());
                return {};
            }
            const QByteArray svg = source.readAll();
            const QString path = dir + QLatin1Char('/') + trayIconName(state, attention) + QStringLiteral(".svg");
            QFile existing(path);
            if (existing.open(QIODevice::ReadOnly) && existing.readAll() == svg)
                continue;
            QSaveFile out(path);
            if (!out.open(QIODevice::WriteOnly) || out.write(svg) != svg.size() || !out.commit()) {
                error = QStringLiteral("cannot write %1: %2").arg(path, out.errorString());
                return {};
            }
        }
    }
    return root;
}

} // namespace chat2sbx::ui
