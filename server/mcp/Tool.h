#pragma once

#include "core/CancellationToken.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace chat2sbx {

// What a tool does to its world, for the hints below.
enum class ToolEffect {
    ReadOnly,      // changes nothing
    Additive,      // adds or updates without discarding anything
    Destructive,   // may delete or overwrite (files, processes, the sandbox itself)
};
enum class ToolRepeat {
    Idempotent,     // the same call again changes nothing more
    EachCallActs,   // every call acts again (a command, an edit, a new sandbox)
};
enum class ToolReach {
    Sandbox,     // only the sandbox and chat2sbx's own state (and the user's host folder through chat2sbx)
    OpenWorld,   // may reach the internet or other outside systems
};

// The four hints ChatGPT acts on (its per-app permission modes ask before tools that change
// things); always emitted explicitly. Built from the named choices above.
struct ToolAnnotations {
    bool readOnly = false;
    bool destructive = false;
    bool idempotent = false;
    bool openWorld = false;

    static ToolAnnotations of(ToolEffect effect, ToolRepeat repeat, ToolReach reach)
    {
        return {effect == ToolEffect::ReadOnly, effect == ToolEffect::Destructive, repeat == ToolRepeat::Idempotent,
                reach == ToolReach::OpenWorld};
    }
};

// Which view of the tool card (ui://widget/chat2sbx-tool-card.html) draws a tool's results; None:
// the card does not draw them. A result's _meta names the view ("chat2sbx/view"), so the card keeps
// no list of tool names (docs/TOOL_CARDS.md).
enum class ToolCardView {
    None,
    Terminal,      // a command's output: bash, bash_poll, bash_write, bash_stop
    Diff,          // a change to files: show_changes, edit, apply_patch, write
    Sandbox,       // one sandbox: sandbox_create, sandbox_get
    SandboxList,   // sandbox_list
    Export,        // export_changes
    Image,         // view_image
    File,          // a file that crossed between the chat, the host and the sandbox: import_file
    Checkpoint,    // a checkpoint made, a restore, a sandbox's checkpoints: sandbox_checkpoint(s), sandbox_restore
};

// The view's name on the wire ("terminal", "diff", "sandbox", "sandbox-list", "export", "image");
// empty for None.
inline QString toolCardViewName(ToolCardView view)
{
    switch (view) {
    case ToolCardView::None: break;
    case ToolCardView::Terminal: return QStringLiteral("terminal");
    case ToolCardView::Diff: return QStringLiteral("diff");
    case ToolCardView::Sandbox: return QStringLiteral("sandbox");
    case ToolCardView::SandboxList: return QStringLiteral("sandbox-list");
    case ToolCardView::Export: return QStringLiteral("export");
    case ToolCardView::Image: return QStringLiteral("image");
    case ToolCardView::File: return QStringLiteral("file");
    case ToolCardView::Checkpoint: return QStringLiteral("checkpoint");
    }
    return QString();
}

// How hosts show a tool and its results (docs/TOOL_CARDS.md). Filled by name in each definition.
struct ToolPresentation {
    QString invoking;            // status text while the call runs (openai/toolInvocation/invoking), <= 64 characters
    QString invoked;             // status text after it (openai/toolInvocation/invoked), <= 64 characters
    ToolCardView cardView = ToolCardView::None;   // the card's view of its results
    QStringList payloadFields = {};   // big string fields of the structured result, written raw in the full text
};

struct ToolDefinition {
    QString name;          // snake_case, [a-z0-9_], <= 64 characters
    QString title;
    QString description;
    QJsonObject inputSchema;   // type object, additionalProperties false
    QJsonObject outputSchema;  // empty: none declared
    ToolAnnotations annotations;
    QJsonObject meta = {};     // tools/list "_meta" (e.g. openai/fileParams); empty: none
    ToolPresentation presentation = {};
};

// What a tool call produces. `structured` becomes structuredContent and, serialised, the text block.
// An error carries a readable message (shown to the model) and optional structured details.
struct ToolResult {
    bool isError = false;
    QJsonObject structured;
    QString message;           // for errors: the human-readable reason
    QJsonArray extraContent;   // content blocks after the text block (e.g. an image)
    // A success's structured result already serialized (one compact JSON object), for results built
    // faster as text than as a QJsonObject (sandbox_list of 1,000 sandboxes); `structured` is then empty.
    QByteArray structuredJson;
    // Members of the result's _meta for the tool card only (e.g. "chat2sbx/preview"): the widget
    // sees them, the model does not. Dropped for a tool without a card.
    QJsonObject cardMeta;

    static ToolResult ok(const QJsonObject &structured, const QJsonArray &extraContent = {}, const QJsonObject &cardMeta = {})
    {
        return {false, structured, {}, extraContent, {}, cardMeta};
    }
    static ToolResult okJson(const QByteArray &structuredJson)
    {
        return {false, {}, {}, {}, structuredJson, {}};
    }
    static ToolResult error(const QString &message, const QJsonObject &details = {})
    {
        return {true, details, message, {}, {}, {}};
    }
    // The structured result as an object, whichever form it was given in.
    QJsonObject structuredObject() const
    {
        return structuredJson.isEmpty() ? structured : QJsonDocument::fromJson(structuredJson).object();
    }
};

// Completes one tools/call exactly once. Copyable; copies share the same call. Handlers keep it
// in their pending work (timers, process callbacks) and call finish() when the result is ready.
// finish() after the first call, or after the MCP layer dropped the call, does nothing.
class ToolResponder {
public:
    using Sink = std::function<void(const ToolResult &)>;
    ToolResponder() = default;
    explicit ToolResponder(Sink sink) : m_state(std::make_shared<State>()) { m_state->sink = std::move(sink); }

    void finish(const ToolResult &result) const
    {
        if (!m_state || m_state->done)
            return;
        m_state->done = true;
        auto sink = std::move(m_state->sink);
        ToolResult annotated = result;
        if (!m_state->annotations.isEmpty() && !annotated.structuredJson.isEmpty()) {
            annotated.structured = annotated.structuredObject();
            annotated.structuredJson.clear();
        }
        for (auto it = m_state->annotations.begin(); it != m_state->annotations.end(); ++it)
            annotated.structured.insert(it.key(), it.value());
        if (sink)
            sink(annotated);
    }
    // Adds `key: value` to whatever structured result this call ends with (e.g. that resolving its
    // sandbox woke it), so the handler's own result code need not know.
    void annotate(const QString &key, const QJsonValue &value) const
    {
        if (m_state && !m_state->done)
            m_state->annotations.insert(key, value);
    }
    void ok(const QJsonObject &structured, const QJsonArray &extraContent = {}, const QJsonObject &cardMeta = {}) const
    {
        finish(ToolResult::ok(structured, extraContent, cardMeta));
    }
    void okJson(const QByteArray &structuredJson) const { finish(ToolResult::okJson(structuredJson)); }
    void error(const QString &message, const QJsonObject &details = {}) const
    {
        finish(ToolResult::error(message, details));
    }
    bool isFinished() const { return !m_state || m_state->done; }

private:
    struct State {
        bool done = false;
        Sink sink;
        QJsonObject annotations;
    };
    std::shared_ptr<State> m_state;
};

// Everything a handler gets besides its (already schema-validated) arguments.
struct ToolCall {
    QString toolName;
    QJsonObject arguments;
    QString mcpSessionId;      // the legacy session; empty for a modern (sessionless) request
    QString clientName;        // clientInfo.name of initialize or of the request's _meta (may be empty)
    QString conversation;      // the ChatGPT conversation (_meta "openai/session"); empty when not sent
    CancellationToken cancellation;
    ToolResponder responder;
};

using ToolHandler = std::function<void(const ToolCall &call)>;

} // namespace chat2sbx
