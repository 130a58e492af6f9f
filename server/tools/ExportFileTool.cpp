#include "tools/ExportFileTool.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/changes/FileExport.h"
#include "tools/ExportPreview.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QCoreApplication>
#include <QThreadPool>

namespace chat2sbx {
namespace {

ToolDefinition exportFileDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("export_file");
    d.title = QStringLiteral("Give a file to the user");
    d.description = QStringLiteral(
        "Use to hand the user a file made in the sandbox (a report, an image, a build): copies it (a folder as a .tar.gz) "
        "into the user's export folder on their computer, never over another file, and returns where it landed. ChatGPT "
        "cannot offer sandbox files for download: this is how they reach the user. When the user's settings make an export "
        "wait for their approval, the result's status is approval_required: ask the user to approve it, then call again "
        "with the same arguments.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()}, {QStringLiteral("path"), sandboxPathProperty()}},
        {QStringLiteral("sandbox_id"), QStringLiteral("path")});
    d.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("host_path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("file_name"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("size"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("packed"), schema::typed(QStringLiteral("boolean"))},
                                     {QStringLiteral("status"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("export_id"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("why"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("how_to_approve"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::EachCallActs, ToolReach::OpenWorld);
    d.presentation.invoking = QStringLiteral("Copying the file to the user's computer…");
    d.presentation.invoked = QStringLiteral("Copied the file to the user's computer");
    d.presentation.cardView = ToolCardView::File;
    return d;
}

void runExportFile(FileExport &exports, SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path;
    if (!args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes))
        return call.responder.error(args.error());
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, channels, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    const QString dir = exports.options().dir;
    const auto stop = exports.start(sandbox, path, shown, [responder = call.responder, shown, dir](const FileExport::Outcome &o) {
        if (o.waiting)
            return responder.ok({{QStringLiteral("path"), shown},
                                 {QStringLiteral("status"), QStringLiteral("approval_required")},
                                 {QStringLiteral("export_id"), o.request.id},
                                 {QStringLiteral("file_name"), o.request.fileName()},
                                 {QStringLiteral("size"), static_cast<double>(o.size)},
                                 {QStringLiteral("packed"), o.packed},
                                 {QStringLiteral("why"), o.request.why},
                                 {QStringLiteral("how_to_approve"),
                                  QStringLiteral("ask the user to approve it in the chat2sbx tray or with `chat2sbx approval "
                                                 "approve %1`").arg(o.request.id)},
                                 {QStringLiteral("message"), QStringLiteral("nothing was copied yet; call export_file again "
                                                                            "with the same arguments once the user approved")}});
        if (!o.ok)
            return responder.error(o.error + QStringLiteral("; nothing was written on this computer"));
        const QString name = o.hostPath.section(QLatin1Char('/'), -1);
        const QJsonObject result{
            {QStringLiteral("path"), shown},
            {QStringLiteral("host_path"), o.hostPath},
            {QStringLiteral("file_name"), name},
            {QStringLiteral("size"), static_cast<double>(o.size)},
            {QStringLiteral("sha256"), o.sha256},
            {QStringLiteral("packed"), o.packed},
            {QStringLiteral("status"), QStringLiteral("exported")},
            {QStringLiteral("message"), QStringLiteral("The user finds %1 in %2 on their computer.").arg(name, dir)}};
        if (o.packed)
            return responder.ok(result);
        // The card's preview is read back from the host copy: off the event loop, answered on it.
        QThreadPool::globalInstance()->start([responder, result, hostPath = o.hostPath] {
            auto preview = std::make_shared<QJsonObject>(ExportPreview::of(hostPath));
            QMetaObject::invokeMethod(QCoreApplication::instance(), [responder, result, preview] {
                QJsonObject cardMeta;
                if (!preview->isEmpty())
                    cardMeta.insert(QStringLiteral("chat2sbx/preview"), *preview);
                responder.ok(result, {}, cardMeta);
            }, Qt::QueuedConnection);
        });
    }, call.clientName.left(100));
    call.cancellation.onCancel(stop);
}

} // namespace

void registerExportFileTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels, FileExport &exports)
{
    registry.add(exportFileDefinition(),
                 [&exports, &resolver, &channels](const ToolCall &call) { runExportFile(exports, resolver, channels, call); });
}

} // namespace chat2sbx
