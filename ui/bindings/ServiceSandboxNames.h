#pragma once

#include <QHash>
#include <QString>

namespace chat2sbx {
class SandboxService;
}

namespace chat2sbx::ui {

// Sandbox id -> the short name people read (sandboxShortName), for the rows of one re-read: the
// sandboxes are listed once, at the first lookup. An id it does not know stays the id.
class ServiceSandboxNames {
public:
    explicit ServiceSandboxNames(const SandboxService &sandboxes) : m_sandboxes(sandboxes) {}
    QString operator()(const QString &sandboxId);

private:
    const SandboxService &m_sandboxes;
    QHash<QString, QString> m_names;
    bool m_loaded = false;
};

} // namespace chat2sbx::ui
