#include "mcp/McpInstructions.h"

namespace chat2sbx {

QString mcpInstructions()
{
    return QStringLiteral(
        "chat2sbx gives you a disposable Linux computer (a sandbox microVM). Workflow: 1) sandbox_create "
        "(or sandbox_get/sandbox_list to reopen an existing one) and keep its sandbox_id. 2) Work with "
        "bash, read, write, edit, search and list, always passing that sandbox_id; files live in ~/workspace. "
        "3) If bash returns status \"running\", call bash_poll until it is no longer running. "
        "4) Call sandbox_destroy when done. Host folders: workspace_request, which waits for the user's approval. "
        "In a git workspace, show_changes reviews your work; in clone mode your commits live only in the VM until "
        "export_changes puts them on the branch chat2sbx/<sandbox_id> of the user's repository (sandbox_destroy and "
        "idle expiry do that first, too).\n"
        "\n"
        "Details: a tool result's text starts with its JSON; a command's output, a file's text or a diff follows "
        "raw after a \"--- output ---\" style line (structuredContent holds the whole result). A failed call returns isError "
        "with a readable message: fix the arguments it names and retry. Long commands do not block other "
        "calls. Sandboxes that stay idle are removed automatically: a managed workspace folder is kept, direct mode "
        "already wrote to the host folder, a clone's work is saved as a host branch first. Never put secrets "
        "in commands you would not want logged.");
}

} // namespace chat2sbx
