#include "mcp/McpPrompts.h"

#include <QJsonArray>

namespace chat2sbx::mcpprompts {

namespace {

const QString kWorkOnFolder = QStringLiteral("work_on_folder");
constexpr int kMaxArgumentChars = 4000;

QJsonObject argument(const QString &name, const QString &description, bool required)
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("description"), description}, {QStringLiteral("required"), required}};
}

QString workOnFolderText(const QString &path, const QString &task)
{
    QString text = QStringLiteral(
        "Use chat2sbx to work on the host folder %1 inside a sandbox, never on the host itself. "
        "1) Call workspace_request with that path and a short reason, and wait until I approve it. "
        "2) Create a sandbox with sandbox_create, passing the approved workspace. "
        "3) Do the work there with bash, read, write, edit and search. "
        "4) Review what changed with show_changes and tell me what you did; in clone mode, export_changes puts your "
        "commits on a chat2sbx/<sandbox_id> branch of my repository. "
        "5) Destroy the sandbox with sandbox_destroy when we are done.").arg(path);
    if (!task.isEmpty())
        text += QStringLiteral("\n\nThe task: ") + task;
    return text;
}

} // namespace

QJsonObject listResult()
{
    const QJsonObject workOnFolder{
        {QStringLiteral("name"), kWorkOnFolder},
        {QStringLiteral("title"), QStringLiteral("Work on a host folder in a sandbox")},
        {QStringLiteral("description"),
         QStringLiteral("Ask for a host folder, work on it inside a disposable sandbox, review the changes, then clean up")},
        {QStringLiteral("arguments"),
         QJsonArray{argument(QStringLiteral("path"), QStringLiteral("The host folder, e.g. ~/src/myproject"), true),
                    argument(QStringLiteral("task"), QStringLiteral("What to do there"), false)}},
    };
    return {{QStringLiteral("prompts"), QJsonArray{workOnFolder}}};
}

bool getResult(const QString &name, const QJsonObject &arguments, QJsonObject &result, QString &error)
{
    if (name != kWorkOnFolder) {
        error = QStringLiteral("Invalid params: unknown prompt '%1' (prompts/list names them)").arg(name.left(64));
        return false;
    }
    const QJsonValue path = arguments.value(QStringLiteral("path"));
    const QJsonValue task = arguments.value(QStringLiteral("task"));
    if (!path.isString() || path.toString().trimmed().isEmpty() || path.toString().size() > kMaxArgumentChars) {
        error = QStringLiteral("Invalid params: argument \"path\" is required: a host folder of at most %1 characters")
                    .arg(kMaxArgumentChars);
        return false;
    }
    if (!task.isUndefined() && (!task.isString() || task.toString().size() > kMaxArgumentChars)) {
        error = QStringLiteral("Invalid params: argument \"task\" must be a string of at most %1 characters").arg(kMaxArgumentChars);
        return false;
    }
    const QJsonObject message{
        {QStringLiteral("role"), QStringLiteral("user")},
        {QStringLiteral("content"), QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                                {QStringLiteral("text"), workOnFolderText(path.toString().trimmed(), task.toString().trimmed())}}},
    };
    result = {{QStringLiteral("description"), QStringLiteral("Work on a host folder in a sandbox")},
              {QStringLiteral("messages"), QJsonArray{message}}};
    return true;
}

} // namespace chat2sbx::mcpprompts
