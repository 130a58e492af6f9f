#include "workspace/WorkspaceRetention.h"

#include "core/Clock.h"
#include "workspace/WorkspaceService.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcRetention, "chat2sbx.retention")

WorkspaceRetention::WorkspaceRetention(WorkspaceService &workspaces, Clock &clock, QObject *parent)
    : QObject(parent), m_workspaces(workspaces), m_clock(clock)
{
    connect(&m_timer, &QTimer::timeout, this, [this] { sweep(); });
}

void WorkspaceRetention::start(int intervalMs)
{
    m_timer.start(intervalMs);
    QTimer::singleShot(0, this, [this] { sweep(); });
}

void WorkspaceRetention::stop()
{
    m_timer.stop();
}

WorkspaceRetention::Report WorkspaceRetention::sweep()
{
    Report report;
    const qint64 now = m_clock.nowMs();
    const QString trashDir = m_workspaces.config().trashDir();
    for (const WorkspaceOverview &o : m_workspaces.overview()) {
        const Workspace &w = o.workspace;
        if (!w.isManaged() || w.trashedAt != 0 || !o.activeSandboxId.isEmpty() || o.retentionDeadline > now)
            continue;
        QString error;
        const QByteArray source = QFile::encodeName(w.hostPath);
        struct stat st {};
        const bool folderExists = ::lstat(source.constData(), &st) == 0;
        QString target;
        if (folderExists) {
            if (!QDir().mkpath(trashDir)) {
                report.failed << QStringLiteral("%1: cannot create the trash folder").arg(w.id);
                continue;
            }
            ::chmod(QFile::encodeName(trashDir).constData(), 0700);
            const QString stamp = QDateTime::fromMSecsSinceEpoch(now, Qt::UTC).toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'"));
            target = QStringLiteral("%1/%2-%3").arg(trashDir, w.id, stamp);
            // Move first, then record: a crash in between leaves a live record whose folder is
            // gone, which the next sweep simply marks trashed.
            if (QFileInfo::exists(target) || std::rename(source.constData(), QFile::encodeName(target).constData()) != 0) {
                const QString why = QFileInfo::exists(target) ? QStringLiteral("the trash already holds %1").arg(QFileInfo(target).fileName())
                                                              : QString::fromLocal8Bit(std::strerror(errno));
                report.failed << QStringLiteral("%1: cannot move to the trash: %2").arg(w.id, why);
                qCWarning(lcRetention).noquote() << report.failed.last();
                continue;
            }
        }
        if (!m_workspaces.repository().moveToTrash(w.id, folderExists ? target : w.hostPath, now, error)) {
            report.failed << QStringLiteral("%1: %2").arg(w.id, error);
            qCWarning(lcRetention).noquote() << report.failed.last();
            continue;
        }
        qCInfo(lcRetention).noquote() << "moved managed workspace" << w.id << "to the trash";
        report.trashed << w.id;
    }
    if (!report.trashed.isEmpty())
        m_workspaces.notifyChanged();
    emit swept(static_cast<int>(report.trashed.size()));
    return report;
}

} // namespace chat2sbx
