#pragma once

#include <QHash>
#include <QString>

namespace chat2sbx {

struct SandboxView;

// The short name a person reads for a sandbox, where the full id (sbx_ + 24 hex digits) is too long
// to scan: its workspace's folder name ("scratch" for a managed workspace) and the first four hex
// digits of its id, "myrepo-3f9c". Shown by the tray, `chat2sbx sandbox list`, the activity log and
// notifications; tools and --json keep the full id beside it. Not unique by construction: two
// sandboxes of one folder differ in the suffix, and the full id is always on hover and in --json.
QString sandboxShortName(const QString &sandboxId, const QString &workspaceFolderName, bool managedWorkspace);
QString sandboxShortName(const SandboxView &view);

class Database;

// Short names for ids read from the database, destroyed sandboxes included (the activity log names
// sandboxes long gone): looked up once per id. An id the database does not know is its own name.
class SandboxNameLookup {
public:
    explicit SandboxNameLookup(Database &db) : m_db(db) {}
    QString operator()(const QString &sandboxId);

private:
    Database &m_db;
    QHash<QString, QString> m_names;
};

} // namespace chat2sbx
