#include "tools/FileTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/ImagePreparer.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QThreadPool>

namespace chat2sbx {
namespace {

constexpr int kMaxImageFileBytes = 20 * 1024 * 1024;   // its base64 stays well under the channel's line limit
constexpr int kImageRequestTimeoutMs = 60000;

ToolDefinition viewImageDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("view_image");
    d.title = QStringLiteral("View an image");
    d.description = QStringLiteral(
        "Use to look at an image file in the sandbox (a screenshot, a plot, a rendered page). PNG, JPEG, GIF or WebP; "
        "returns the image with its width, height and size. Images over 2,000 px or 4 MiB are scaled down.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()}, {QStringLiteral("path"), sandboxPathProperty()}},
        {QStringLiteral("sandbox_id"), QStringLiteral("path")});
    d.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("mime_type"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("width"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("height"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("bytes"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("scaled"), schema::typed(QStringLiteral("boolean"))},
                                     {QStringLiteral("shown_width"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("shown_height"), schema::typed(QStringLiteral("integer"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Opening the image…");
    d.presentation.invoked = QStringLiteral("Opened the image");
    d.presentation.cardView = ToolCardView::Image;
    return d;
}

void runViewImage(SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path;
    if (!args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes))
        return call.responder.error(args.error());
    RunningSandbox sandbox;
    if (!resolveSandbox(resolver, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    channels.channelFor(sandbox).request(
        QStringLiteral("get"), {path.toUtf8(), QByteArray::number(kMaxImageFileBytes)}, kImageRequestTimeoutMs,
        [responder = call.responder, shown](const ChannelReply &r) {
            if (!r.ok && r.code == QLatin1String("efbig"))
                return responder.error(QStringLiteral("%1 is larger than %2 MiB; view_image takes smaller images")
                                           .arg(shown).arg(kMaxImageFileBytes >> 20));
            if (!r.ok)
                return responder.error(replyFailure(r));
            if (ImagePreparer::sniffMimeType(r.data).isEmpty())
                return responder.error(QStringLiteral("%1 is not a PNG, JPEG, GIF or WebP image").arg(shown));
            // Decoding and scaling a large image takes a while: off the event loop, answered back on it.
            const QByteArray bytes = r.data;
            QThreadPool::globalInstance()->start([responder, shown, bytes] {
                auto result = std::make_shared<ImagePreparer::Result>();
                auto error = std::make_shared<QString>();
                const bool ok = ImagePreparer::prepare(bytes, *result, *error);
                const qint64 fileBytes = bytes.size();
                QMetaObject::invokeMethod(QCoreApplication::instance(), [responder, shown, ok, result, error, fileBytes] {
                    if (!ok)
                        return responder.error(QStringLiteral("%1: %2").arg(shown, *error));
                    QJsonObject info{{QStringLiteral("path"), shown},
                                     {QStringLiteral("mime_type"), result->mimeType},
                                     {QStringLiteral("width"), result->width},
                                     {QStringLiteral("height"), result->height},
                                     {QStringLiteral("bytes"), static_cast<double>(fileBytes)},
                                     {QStringLiteral("scaled"), result->scaled}};
                    if (result->scaled) {
                        info.insert(QStringLiteral("shown_width"), result->shownWidth);
                        info.insert(QStringLiteral("shown_height"), result->shownHeight);
                    }
                    responder.ok(info, QJsonArray{QJsonObject{
                                           {QStringLiteral("type"), QStringLiteral("image")},
                                           {QStringLiteral("data"), QString::fromLatin1(result->data.toBase64())},
                                           {QStringLiteral("mimeType"), result->mimeType}}});
                }, Qt::QueuedConnection);
            });
        });
}

} // namespace

void addViewImageTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    registry.add(viewImageDefinition(), [&resolver, &channels](const ToolCall &call) { runViewImage(resolver, channels, call); });
}

} // namespace chat2sbx
