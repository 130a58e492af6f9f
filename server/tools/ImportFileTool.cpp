#include "tools/ImportFileTool.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslConfiguration>

#include <memory>

namespace chat2sbx {
namespace {

constexpr int kMaxImportUrlBytes = 8192;
constexpr int kImportTransferTimeoutMs = 120000;
constexpr int kMaxImportRedirects = 5;
constexpr int kImportWriteTimeoutMs = 120000;

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
                                     {QStringLiteral("mime_type"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::EachCallActs, ToolReach::OpenWorld);
    d.presentation.invoking = QStringLiteral("Copying the file into the sandbox…");
    d.presentation.invoked = QStringLiteral("Copied the file into the sandbox");
    d.meta = {{QStringLiteral("openai/fileParams"), QJsonArray{QStringLiteral("file")}}};
    return d;
}

// A file name as ChatGPT gives it, reduced to one safe path component.
QString importFileName(const QString &name, const QString &fileId)
{
    QString base = name.section(QLatin1Char('/'), -1).section(QLatin1Char('\\'), -1).trimmed();
    base.remove(QRegularExpression(QStringLiteral("[\\x00-\\x1f]")));
    if (base.isEmpty() || base == QLatin1String(".") || base == QLatin1String(".."))
        base = fileId.isEmpty() ? QStringLiteral("imported-file") : fileId;
    return base.left(200);
}

void writeImportedFile(const QPointer<SandboxChannel> &channel, const ToolResponder &responder, const QString &destination,
                      const QString &shown, const QByteArray &data, const QString &mimeType)
{
    if (!channel)
        return responder.error(QStringLiteral("the sandbox was detached during the import"));
    const QString sha = QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
    // One new file, refused when something already has that name (nothing is overwritten).
    channel->request(
        QStringLiteral("apply"),
        {"1", "w", destination.toUtf8(), "none", QByteArray::number(data.size()), data}, kImportWriteTimeoutMs,
        [responder, shown, sha, size = data.size(), mimeType](const ChannelReply &r) {
            if (!r.ok && r.code == QLatin1String("eexist"))
                return responder.error(QStringLiteral("%1 already exists; give another destination").arg(shown));
            if (!r.ok)
                return responder.error(replyFailure(r));
            QJsonObject out{{QStringLiteral("path"), shown},
                            {QStringLiteral("size"), static_cast<double>(size)},
                            {QStringLiteral("sha256"), sha}};
            if (!mimeType.isEmpty())
                out.insert(QStringLiteral("mime_type"), mimeType);
            responder.ok(out);
        });
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
    if (destination.isEmpty())
        destination = importFileName(fileName, fileId);
    else if (destination.endsWith(QLatin1Char('/')))
        destination += importFileName(fileName, fileId);
    RunningSandbox sandbox;
    if (!resolveSandbox(resolver, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, destination);
    QPointer<SandboxChannel> channel = &channels.channelFor(sandbox);

    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::UserVerifiedRedirectPolicy);
    request.setMaximumRedirectsAllowed(kMaxImportRedirects);
    request.setTransferTimeout(kImportTransferTimeoutMs);
    request.setSslConfiguration(importer->tls);
    QNetworkReply *reply = importer->network.get(request);
    const qint64 cap = importer->options.maxBytes;
    auto body = std::make_shared<QByteArray>();
    auto refusal = std::make_shared<QString>();
    const ToolResponder responder = call.responder;
    QObject::connect(reply, &QNetworkReply::redirected, reply, [reply, importer, refusal](const QUrl &target) {
        QString reason;
        if (importUrlAllowed(importer->options.allowedHosts, target, reason))
            return emit reply->redirectAllowed();
        *refusal = QStringLiteral("the download redirected to %1, which is not allowed: %2").arg(target.host().left(200), reason);
        reply->abort();
    });
    auto tooLarge = [cap] {
        return QStringLiteral("the file is larger than the import limit of %1 MiB").arg(cap >> 20);
    };
    QObject::connect(reply, &QNetworkReply::metaDataChanged, reply, [reply, cap, refusal, tooLarge] {
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        if (length.isValid() && length.toLongLong() > cap && refusal->isEmpty()) {
            *refusal = tooLarge();
            reply->abort();
        }
    });
    QObject::connect(reply, &QNetworkReply::readyRead, reply, [reply, body, cap, refusal, tooLarge] {
        if (!refusal->isEmpty())
            return;
        const QByteArray chunk = reply->read(cap + 1 - body->size());
        *body += chunk;
        if (body->size() > cap) {
            *refusal = tooLarge();
            body->clear();
            reply->abort();
        }
    });
    call.cancellation.onCancel([reply = QPointer<QNetworkReply>(reply), refusal] {
        if (reply) {
            *refusal = QStringLiteral("cancelled");
            reply->abort();
        }
    });
    QObject::connect(reply, &QNetworkReply::finished, reply, [reply, body, refusal, responder, channel, destination, shown,
                                                              mimeType] {
        reply->deleteLater();
        if (!refusal->isEmpty())
            return responder.error(*refusal + QStringLiteral("; nothing was written"));
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status != 0 && status != 200)
            return responder.error(QStringLiteral("the download failed with HTTP status %1; nothing was written").arg(status));
        if (reply->error() != QNetworkReply::NoError)
            return responder.error(QStringLiteral("the download failed: %1; nothing was written").arg(reply->errorString()));
        *body += reply->readAll();
        writeImportedFile(channel, responder, destination, shown, *body, mimeType);
    });
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
    const QString host = url.host().toLower();
    const int port = url.port(443);
    for (const QString &entry : allowedHosts) {
        QString h = entry.trimmed().toLower();
        int p = 443;
        const qsizetype colon = h.lastIndexOf(QLatin1Char(':'));
        if (colon > 0) {
            p = h.mid(colon + 1).toInt();
            h.truncate(colon);
        }
        if (p != port || h.isEmpty())
            continue;
        if (h.startsWith(QLatin1String("*.")) ? host.endsWith(h.mid(1)) && host.size() > h.size() - 1 : host == h)
            return true;
    }
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
