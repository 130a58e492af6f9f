#include "workspace/WorkspaceService.h"

#include "runtime/Clock.h"
#include "runtime/Ids.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace chat2sbx {

WorkspaceService::WorkspaceService(const Config &config, Database &db, Clock &clock, QObject *parent)
    : QObject(parent), m_config(config), m_db(db), m_clock(clock), m_repo(db)
{
}

std::optional<Workspace> WorkspaceService::createManaged(QString &error)
{
    if (!QDir().mkpath(m_config.workspaceRoot)) {
        error = QStringLiteral("cannot create the managed workspace root");
        return std::nullopt;
    }
    ::chmod(QFile::encodeName(m_config.workspaceRoot).constData(), 0700);
    Workspace w;
    w.id = newId("ws_");
    w.mode = WorkspaceMode::Managed;
    w.hostPath = m_config.workspaceRoot + QLatin1Char('/') + w.id;
    w.displayName = QStringLiteral("managed workspace %1").arg(w.id);
    w.createdAt = w.lastUsedAt = m_clock.nowMs();
    // Record first, then create the folder: a crash in between leaves a record whose folder the
    // next use recreates, never an unrecorded folder.
    if (!m_repo.insert(w, error))
        return std::nullopt;
    if (::mkdir(QFile::encodeName(w.hostPath).constData(), 0700) != 0 && errno != EEXIST) {
        error = QStringLiteral("cannot create managed workspace %1: %2").arg(w.id, QString::fromLocal8Bit(strerror(errno)));
        return std::nullopt;
    }
    emit workspacesChanged();
    return w;
}

std::optional<Workspace> WorkspaceService::find(const QString &id) const
{
    return m_repo.find(id);
}

QList<Workspace> WorkspaceService::list() const
{
    return m_repo.list();
}

void WorkspaceService::touch(const QString &id)
{
    QString ignored;
    m_repo.touch(id, m_clock.nowMs(), ignored);
}

} // namespace chat2sbx
