#include "tools/ImportFileTool.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "config/FileHostPatterns.h"
#include "tools/ImportStream.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslConfiguration>

#include <memory>

namespace chat2sbx {
namespace {

constexpr int kMaxImportUrlBytes = 8192;
constexpr int kImportTransferTimeoutMs = 120000;
constexpr int kMaxImportRedirects = 5;

// The downloader: one network access manager for every call, owned by the registered handler.
struct Importer {
    ImportFileOptions options;
    QNetworkAccessManager network;
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
};

ToolDefinition importFileDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("import_file");
    d.title = QStringLiteral("Import an attached file");
    d.description = QStringLiteral(
        "Use when the user attached a file in the chat and it is needed in the sandbox: copies the attachment into the "
        "workspace (never overwriting a file) and returns its path, size and sha256.");
    const QJsonObject file = schema::object(
        {{QStringLiteral("download_url"), schema::str(QStringLiteral("The attachment's download URL"), kMaxImportUrlBytes)},
         {QStringLiteral("file_id"), schema::str(QStringLiteral("The attachment's file id"), 256)},
         {QStringLiteral("mime_type"), schema::str(QStringLiteral("Its MIME type"), 256)},
         {QStringLiteral("file_name"), schema::str(QStringLiteral("Its file name"), 1024)}},
        {QStringLiteral("download_url"), QStringLiteral("file_id")});
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("file"), file},
         {QStringLiteral("destination"),
          schema::str(QStringLiteral("Where to put it (default: its file name in the workspace; a path ending in / is a directory)"),
                      kMaxSandboxPathBytes)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("file")});
    d.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("size"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("file_name"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("mime_type"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::EachCallActs, ToolReach::OpenWorld);
    d.presentation.invoking = QStringLiteral("Copying the file into the sandbox…");
    d.presentation.invoked = QStringLiteral("Copied the file into the sandbox");
    d.presentation.cardView = ToolCardView::File;
    d.meta = {{QStringLiteral("openai/fileParams"), QJsonArray{QStringLiteral("file")}}};
    return d;
}

// A file name as ChatGPT gives it, reduced to one safe path component. Without a name, the file id's
// last part ("sediment://file_0000..." -> "file_0000...").
QString importFileName(const QString &name, const QString &fileId)
{
    auto component = [](const QString &s) {
        QString base = s.section(QLatin1Char('/'), -1).section(QLatin1Char('\\'), -1).trimmed();
        base.remove(QRegularExpression(QStringLiteral("[\\x00-\\x1f\\x7f]")));
        return base == QLatin1String(".") || base == QLatin1String("..") ? QString() : base.left(200);
    };
    QString base = component(name);
    if (base.isEmpty())
        base = component(fileId);
    return base.isEmpty() ? QStringLiteral("imported-file") : base;
}

void runImportFile(const std::shared_ptr<Importer> &importer, SandboxResolver &resolver, ChannelPool &channels,
                  const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString destination;
    if (!args.string(QStringLiteral("destination"), destination, kMaxSandboxPathBytes, ToolArgs::Presence::Optional))
        return call.responder.error(args.error());
    const QJsonObject fileObject = call.arguments.value(QStringLiteral("file")).toObject();
    ToolArgs fileArgs(fileObject);
    QString downloadUrl, fileId, mimeType, fileName;
    if (!fileArgs.string(QStringLiteral("download_url"), downloadUrl, kMaxImportUrlBytes)
        || !fileArgs.string(QStringLiteral("file_id"), fileId, 256)
        || !fileArgs.string(QStringLiteral("mime_type"), mimeType, 256, ToolArgs::Presence::Optional)
        || !fileArgs.string(QStringLiteral("file_name"), fileName, 1024, ToolArgs::Presence::Optional))
        return call.responder.error(QStringLiteral("file.") + fileArgs.error());
    const QUrl url(downloadUrl, QUrl::StrictMode);
    QString why;
    if (!importUrlAllowed(importer->options.allowedHosts, url, why))
        return call.responder.error(QStringLiteral("refused to download %1: %2").arg(url.host().left(200), why));
    const QString name = importFileName(fileName, fileId);
    if (destination.isEmpty())
        destination = name;
    else if (destination.endsWith(QLatin1Char('/')))
        destination += name;
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, channels, call, args, sandbox))
        return;

    // The signed link lives minutes: the download starts now, before the channel is even up, and
    // waits for it with the rest of the file held back by TCP.
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::UserVerifiedRedirectPolicy);
    // HTTP/1.1: its flow control is TCP's, which the reply's read buffer limit drives.
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setMaximumRedirectsAllowed(kMaxImportRedirects);
    request.setTransferTimeout(kImportTransferTimeoutMs);
    request.setSslConfiguration(importer->tls);
    ImportStream::Target target;
    target.channel = &channels.channelFor(sandbox);
    target.destination = destination;
    target.shown = displayPath(sandbox, destination);
    target.fileName = name;
    target.mimeType = mimeType;
    ImportStream::start(importer->network.get(request), std::move(target),
                        {importer->options.allowedHosts, importer->options.maxBytes}, call.responder, call.cancellation);
}

} // namespace

bool importUrlAllowed(const QStringList &allowedHosts, const QUrl &url, QString &why)
{
    if (!url.isValid() || url.host().isEmpty()) {
        why = QStringLiteral("not a valid URL");
        return false;
    }
    if (url.scheme() != QLatin1String("https")) {
        why = QStringLiteral("only https downloads are allowed");
        return false;
    }
    if (!url.userInfo().isEmpty()) {
        why = QStringLiteral("URLs with credentials are not allowed");
        return false;
    }
    if (FileHostPatterns::allows(allowedHosts, url.host(QUrl::FullyEncoded), url.port(443)))
        return true;
    why = QStringLiteral("the host is not one of the allowed file hosts");
    return false;
}

void registerImportFileTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels,
                            const ImportFileOptions &options)
{
    auto importer = std::make_shared<Importer>();
    importer->options = options;
    if (!options.extraCaFile.isEmpty()) {
        const QList<QSslCertificate> extra = QSslCertificate::fromPath(options.extraCaFile);
        if (extra.isEmpty())
            qWarning("import_file: no CA certificate in %s", qPrintable(options.extraCaFile));
        importer->tls.addCaCertificates(extra);
    }

    registry.add(importFileDefinition(),
                 [importer, &resolver, &channels](const ToolCall &call) { runImportFile(importer, resolver, channels, call); });
}

} // namespace chat2sbx
