#include "tools/ImportStream.h"

#include "config/FileHostPatterns.h"
#include "core/Ids.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/InSandboxSupport.h"

#include <QNetworkReply>
#include <QRegularExpression>

namespace chat2sbx {
namespace {

constexpr int kPartTimeoutMs = 60000;
constexpr int kDoneTimeoutMs = 120000;   // the VM hashes the whole file
constexpr qint64 kMaxErrorBody = 1024;

bool isRedirect(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// The error code Azure Storage puts in its XML answer (AuthenticationFailed, BlobNotFound, ...).
QString storageErrorCode(const QByteArray &body)
{
    static const QRegularExpression re(QStringLiteral("<Code>([A-Za-z]{1,64})</Code>"));
    return re.match(QString::fromLatin1(body)).captured(1);
}

} // namespace

void ImportStream::start(QNetworkReply *reply, Target target, Limits limits, ToolResponder responder,
                         const CancellationToken &cancellation)
{
    std::shared_ptr<ImportStream> stream(new ImportStream(reply, std::move(target), std::move(limits), std::move(responder)));
    stream->connectReply();
    cancellation.onCancel([weak = std::weak_ptr<ImportStream>(stream)] {
        if (auto s = weak.lock())
            s->fail(QStringLiteral("cancelled"));
    });
}

ImportStream::ImportStream(QNetworkReply *reply, Target target, Limits limits, ToolResponder responder)
    : m_reply(reply), m_target(std::move(target)), m_limits(std::move(limits)), m_responder(std::move(responder)),
      m_token(randomHex(16))
{
    // The reply stops reading from the network while this much waits: TCP then holds the rest.
    reply->setReadBufferSize(2 * kPartBytes);
}

void ImportStream::connectReply()
{
    QNetworkReply *reply = m_reply;
    auto self = shared_from_this();
    QObject::connect(reply, &QNetworkReply::redirected, reply, [self, reply](const QUrl &target) {
        if (self->m_done)
            return;
        ++self->m_redirects;
        if (FileHostPatterns::allows(self->m_limits.allowedHosts, target.host(QUrl::FullyEncoded), target.port(443))
            && target.scheme() == QLatin1String("https") && target.userInfo().isEmpty())
            return emit reply->redirectAllowed();
        self->refuse(QStringLiteral("the download redirected to %1, which is not one of the allowed file hosts")
                         .arg(target.host().left(200)));
    });
    QObject::connect(reply, &QNetworkReply::metaDataChanged, reply, [self, reply] {
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 200 && length.isValid() && length.toLongLong() > self->m_limits.maxBytes)
            self->refuse(QStringLiteral("the file is larger than the import limit of %1 MiB").arg(self->m_limits.maxBytes >> 20));
    });
    QObject::connect(reply, &QNetworkReply::readyRead, reply, [self] { self->pump(); });
    QObject::connect(reply, &QNetworkReply::finished, reply, [self] {
        self->m_downloaded = true;
        self->pump();
    });
}

void ImportStream::abortLater()
{
    // From the loop, never from inside one of the reply's own signals; finished follows.
    if (m_reply)
        QMetaObject::invokeMethod(
            m_reply,
            [reply = m_reply] {
                if (reply && reply->isRunning())
                    reply->abort();
            },
            Qt::QueuedConnection);
}

void ImportStream::refuse(const QString &reason)
{
    if (m_refusal.isEmpty())
        m_refusal = reason;
    abortLater();   // then pump() fails with the refusal
}

bool ImportStream::httpFailed(int status)
{
    if (status == 0 || status == 200 || isRedirect(status))
        return false;
    if (m_errorBody.size() < kMaxErrorBody)
        m_errorBody += m_reply->read(kMaxErrorBody - m_errorBody.size());
    if (!m_downloaded && m_errorBody.size() >= kMaxErrorBody)
        abortLater();
    return true;
}

QString ImportStream::httpFailure(int status) const
{
    const QString code = storageErrorCode(m_errorBody);
    const QString said = code.isEmpty() ? QStringLiteral("HTTP %1").arg(status) : QStringLiteral("HTTP %1, %2").arg(status).arg(code);
    const bool linkDead = status == 401 || status == 403 || status == 404 || status == 410
                          || code.contains(QLatin1String("Authentication")) || code.contains(QLatin1String("Signature"));
    if (linkDead)
        return QStringLiteral("the attachment's download link no longer works (%1): ChatGPT's links expire a few minutes after "
                              "the file is attached, and a removed file answers the same. Ask the user to attach the file "
                              "again, then call import_file with the new attachment")
            .arg(said);
    return QStringLiteral("the download failed (%1)").arg(said);
}

void ImportStream::pump()
{
    if (m_done || m_inFlight || !m_reply)
        return;
    if (!m_refusal.isEmpty()) {
        if (m_downloaded)
            fail(m_refusal);
        return;
    }
    // A redirect loop ends on a redirect or an interim status (Qt reports "HTTP 100" then): say what
    // happened instead.
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const int maxRedirects = m_reply->request().maximumRedirectsAllowed();
    if (m_downloaded
        && (m_reply->error() == QNetworkReply::TooManyRedirectsError
            || (m_redirects >= maxRedirects && isRedirect(status)) || (m_redirects > 0 && status > 0 && status < 200)))
        return fail(QStringLiteral("the download failed: too many redirects (the link redirects in a loop, or more than %1 "
                                   "times)").arg(maxRedirects));
    if (httpFailed(status)) {
        if (m_downloaded)
            fail(httpFailure(status));
        return;
    }
    if (isRedirect(status))
        return;
    if (m_downloaded && m_reply->error() != QNetworkReply::NoError && m_reply->bytesAvailable() == 0)
        return fail(QStringLiteral("the download failed: %1").arg(m_reply->errorString()));
    const qint64 available = m_reply->bytesAvailable();
    if (available >= kPartBytes || (m_downloaded && available > 0)) {
        const QByteArray part = m_reply->read(kPartBytes);
        if (m_sent + part.size() > m_limits.maxBytes) {
            refuse(QStringLiteral("the file is larger than the import limit of %1 MiB").arg(m_limits.maxBytes >> 20));
            if (m_downloaded)
                fail(m_refusal);
            return;
        }
        return sendPart(part);
    }
    if (!m_downloaded)
        return;
    if (!m_started)
        return sendPart(QByteArray());   // an empty file: the first part makes it
    finishUpload();
}

void ImportStream::sendPart(const QByteArray &part)
{
    if (!m_target.channel)
        return fail(QStringLiteral("the sandbox was detached during the import"));
    m_hash.addData(part);
    m_inFlight = true;
    m_started = true;
    auto self = shared_from_this();
    m_target.channel->request(
        QStringLiteral("upload_part"),
        {m_token.toLatin1(), m_target.destination.toUtf8(), QByteArray::number(m_sent), part}, kPartTimeoutMs,
        [self, size = part.size()](const ChannelReply &r) {
            self->m_inFlight = false;
            if (self->m_done)
                return self->dropStaged();
            if (!r.ok && r.code == QLatin1String("eexist"))
                return self->fail(QStringLiteral("%1 already exists; give another destination").arg(self->m_target.shown));
            if (!r.ok)
                return self->fail(replyFailure(r));
            self->m_sent += size;
            self->pump();
        });
}

void ImportStream::finishUpload()
{
    if (!m_target.channel)
        return fail(QStringLiteral("the sandbox was detached during the import"));
    m_inFlight = true;
    const QString sha = QString::fromLatin1(m_hash.result().toHex());
    auto self = shared_from_this();
    m_target.channel->request(
        QStringLiteral("upload_done"),
        {m_token.toLatin1(), m_target.destination.toUtf8(), QByteArray::number(m_sent), sha.toLatin1()}, kDoneTimeoutMs,
        [self, sha](const ChannelReply &r) {
            self->m_inFlight = false;
            if (self->m_done)
                return self->dropStaged();
            if (!r.ok) {
                return self->fail(r.code == QLatin1String("eexist")
                                      ? QStringLiteral("%1 already exists; give another destination").arg(self->m_target.shown)
                                      : replyFailure(r));
            }
            self->m_done = true;
            self->m_started = false;
            if (self->m_reply)
                self->m_reply->deleteLater();
            QJsonObject out{{QStringLiteral("path"), self->m_target.shown},
                            {QStringLiteral("size"), static_cast<double>(self->m_sent)},
                            {QStringLiteral("sha256"), sha}};
            if (!self->m_target.fileName.isEmpty())
                out.insert(QStringLiteral("file_name"), self->m_target.fileName);
            if (!self->m_target.mimeType.isEmpty())
                out.insert(QStringLiteral("mime_type"), self->m_target.mimeType);
            self->m_responder.ok(out);
        });
}

void ImportStream::fail(const QString &reason)
{
    if (m_done)
        return;
    m_done = true;
    m_failure = reason;
    if (m_reply) {
        QNetworkReply *reply = m_reply;
        m_reply.clear();
        QMetaObject::invokeMethod(
            reply,
            [reply] {
                if (reply->isRunning())
                    reply->abort();
                reply->deleteLater();
            },
            Qt::QueuedConnection);
    }
    // The helper runs requests side by side: a drop sent while a part is still being appended
    // could run first, so it waits for that part's answer. The call is answered once nothing is
    // staged, so "nothing was written" is true when the agent reads it.
    if (!m_inFlight)
        dropStaged();
}

void ImportStream::dropStaged()
{
    const QString answer = m_failure + QStringLiteral("; nothing was written");
    if (!m_started || !m_target.channel)
        return m_responder.error(answer);
    m_started = false;
    m_target.channel->request(QStringLiteral("upload_drop"), {m_token.toLatin1(), m_target.destination.toUtf8()},
                              kPartTimeoutMs, [responder = m_responder, answer](const ChannelReply &) { responder.error(answer); });
}

} // namespace chat2sbx
