#include "tunnel/TunnelHealthProbe.h"

#include "tunnel/TunnelClientOutput.h"

#include <QFile>
#include <QLoggingCategory>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcTunnelHealth, "chat2sbx.tunnel")

constexpr int kHttpTimeoutMs = 2000;
constexpr int kMaxBodyChars = 400;

// /readyz bodies that never turn into "ready" in the same process (pkg/runtimehealth/health.go).
bool isFinalReadinessFailure(const QString &body)
{
    return body.startsWith(QLatin1String("mcp probe failed")) || body.startsWith(QLatin1String("mcp startup wait failed"))
           || body.startsWith(QLatin1String("oauth discovery failed"));
}
} // namespace

TunnelHealthProbe::TunnelHealthProbe(QObject *parent) : QObject(parent)
{
    m_nam.setProxy(QNetworkProxy::NoProxy);
}

void TunnelHealthProbe::reset(const QString &urlFile, std::function<QString(QString)> mask)
{
    abort();
    m_urlFile = urlFile;
    m_mask = std::move(mask);
    m_base.clear();
    m_evidence = Evidence();
    m_detailsRoute = DetailsRoute::Unknown;
    QFile::remove(urlFile);
}

void TunnelHealthProbe::abort()
{
    ++m_generation;
    if (m_request)
        m_request->abort();
}

bool TunnelHealthProbe::readUrlFile()
{
    QFile file(m_urlFile);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QString text = QString::fromUtf8(file.read(256)).trimmed();
    // Only a loopback http URL: the file is ours, but nothing read from disk is trusted blindly.
    static const QRegularExpression pattern(QStringLiteral("^http://(127\\.0\\.0\\.1|localhost|\\[::1\\]):(\\d{1,5})$"));
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch() || m.captured(2).toUInt() == 0 || m.captured(2).toUInt() > 65535)
        return false;
    m_base = text;
    qCInfo(lcTunnelHealth).noquote() << "tunnel-client health listener" << m_base;
    emit listening();
    return true;
}

void TunnelHealthProbe::probe()
{
    if (m_request)
        return;
    if (m_base.isEmpty() && !readUrlFile())
        return;
    get(QStringLiteral("/readyz"), [this](QNetworkReply *reply) {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        onReadyz(status, m_mask(QString::fromUtf8(reply->read(kMaxBodyChars)).simplified()), status ? QString() : reply->errorString());
    });
}

void TunnelHealthProbe::get(const QString &path, std::function<void(QNetworkReply *)> then)
{
    QNetworkRequest request(QUrl(m_base + path));
    request.setTransferTimeout(kHttpTimeoutMs);
    QNetworkReply *reply = m_nam.get(request);
    m_request = reply;
    const quint64 generation = m_generation;
    connect(reply, &QNetworkReply::finished, this, [this, reply, generation, then] {
        reply->deleteLater();
        if (m_request == reply)
            m_request = nullptr;
        if (generation != m_generation)
            return;
        then(reply);
    });
}

void TunnelHealthProbe::onReadyz(int status, const QString &body, const QString &error)
{
    if (status != 200) {
        m_evidence.readyzOk = false;
        m_evidence.readinessDetail = status > 0 ? QStringLiteral("/readyz: HTTP %1%2").arg(status).arg(body.isEmpty() ? QString() : QStringLiteral(" ") + body)
                                                : QStringLiteral("/readyz: %1").arg(error);
        if (status == 503 && isFinalReadinessFailure(body))
            return emit cannotBecomeReady(body);
        return emit updated();
    }
    if (!m_evidence.readyzOk) {
        m_evidence.readyzOk = true;
        m_evidence.readinessDetail.clear();
        emit becameReady(body);
    }
    // Readiness says nothing about the control plane: the poll gauge does.
    get(QStringLiteral("/metrics"), [this](QNetworkReply *reply) {
        onMetrics(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200 ? reply->read(1 << 20) : QByteArray());
    });
}

void TunnelHealthProbe::onMetrics(const QByteArray &body)
{
    const std::optional<double> gauge = prometheusSample(body, QByteArrayLiteral("commands_poll_last_successful_timestamp_seconds"));
    if (gauge && *gauge > m_evidence.lastPollSuccessS)
        m_evidence.lastPollSuccessS = *gauge;
    if (m_detailsRoute == DetailsRoute::Absent)
        return emit updated();
    readDetails();
}

void TunnelHealthProbe::readDetails()
{
    get(QStringLiteral("/health?details=true"), [this](QNetworkReply *reply) {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 404 && m_detailsRoute == DetailsRoute::Unknown) {
            m_detailsRoute = DetailsRoute::Absent;
            qCInfo(lcTunnelHealth).noquote() << "tunnel-client has no /health details (v0.0.14 or older): /readyz and /metrics it is";
        } else if (status == 200) {
            if (m_detailsRoute != DetailsRoute::Served)
                qCInfo(lcTunnelHealth).noquote() << "tunnel-client reports its components (/health?details=true)";
            m_detailsRoute = DetailsRoute::Served;
            m_evidence.details = parseTunnelHealthDetails(reply->read(64 * 1024 + 1));
        }
        emit updated();
    });
}

} // namespace chat2sbx
