#include "runtime/StatusProbe.h"

#include "runtime/PidFile.h"
#include "runtime/StatusReportBuilder.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/StateCounts.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace chat2sbx {
namespace {

QString localHost(const Config &config)
{
    if (config.host == QLatin1String("0.0.0.0") || config.host == QLatin1String("localhost"))
        return QStringLiteral("127.0.0.1");
    if (config.host == QLatin1String("::"))
        return QStringLiteral("[::1]");
    return config.host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(config.host) : config.host;
}

} // namespace

StatusProbe::StatusProbe(const Config &config, QObject *parent)
    : QObject(parent), m_config(config), m_base(QStringLiteral("http://%1:%2").arg(localHost(config)).arg(config.port)),
      m_nam(new QNetworkAccessManager(this)), m_sbx(new SbxDriver(config.sbxPath, config.sbxEnv, this))
{
    m_nam->setProxy(QNetworkProxy::NoProxy);
    SbxDriver::Timeouts timeouts = m_sbx->timeouts();
    timeouts.otherMs = kSbxTimeoutMs;
    m_sbx->setTimeouts(timeouts);
}

StatusProbe::~StatusProbe()
{
    // A check still running ends with the driver, while this object is still whole; nobody hears of it.
    m_done = nullptr;
    delete m_sbx;
}

void StatusProbe::get(const QString &path, const QList<QPair<QByteArray, QByteArray>> &headers,
                      std::function<void(const Answer &)> done)
{
    QNetworkRequest request{QUrl(m_base + path)};
    for (const auto &h : headers)
        request.setRawHeader(h.first, h.second);
    request.setTransferTimeout(kHttpTimeoutMs);
    QNetworkReply *reply = m_nam->get(request);
    connect(reply, &QNetworkReply::finished, this, [reply, done = std::move(done)] {
        reply->deleteLater();
        Answer a;
        a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        a.body = reply->read(1024 * 1024);
        if (a.status == 0)
            a.error = reply->errorString();
        done(a);
    });
}

void StatusProbe::run(Done done)
{
    m_done = std::move(done);
    m_report = statusFromConfig(m_config);
    m_report.pid = PidFile::runningPid(m_config.pidFilePath());
    m_report.serverRunning = m_report.pid > 0;
    // The server: /healthz answers with our name.
    get(QStringLiteral("/healthz"), {}, [this](const Answer &a) {
        const QJsonObject health = QJsonDocument::fromJson(a.body).object();
        if (a.status == 200 && health.value(QStringLiteral("name")).toString() == QLatin1String("chat2sbx")) {
            applyHealthAnswer(m_report, health);
            return probeMcp();
        }
        m_report.serverError = a.status == 0 ? a.error
                                             : QStringLiteral("something else answers on port %1 (HTTP %2)")
                                                   .arg(m_config.port).arg(a.status);
        m_report.mcpError = QStringLiteral("server not reachable");
        checkSbx();
    });
}

void StatusProbe::probeMcp()
{
    // Any answer but 404 (GET may be 405 by the spec, 401 with a token) means it is served.
    get(QStringLiteral("/mcp"), {{"Accept", "application/json, text/event-stream"}}, [this](const Answer &a) {
        m_report.mcpReachable = a.status != 0 && a.status != 404 && a.status < 500;
        if (!m_report.mcpReachable)
            m_report.mcpError = a.status == 0 ? a.error : QStringLiteral("GET /mcp answered HTTP %1").arg(a.status);
        checkSbx();
    });
}

void StatusProbe::checkSbx()
{
    // The running server's cached check when it gave one; else ask sbx now.
    if (m_report.sbx.checked())
        return checkCloud();
    checkSbxStatus(*m_sbx, m_config.templateRef(), [this](const SbxStatus &status) {
        m_report.sbx = status;
        checkCloud();
    });
}

void StatusProbe::checkCloud()
{
    m_report.cloudEnabled = m_config.cloudSandboxes;
    if (!m_config.cloudSandboxes)
        return finish();
    m_sbx->cloudDiagnose([this](const SbxResult &r) {
        m_report.cloudState = r.ok ? QStringLiteral("ready") : QStringLiteral("not usable");
        if (!r.ok)   // sbx's own words: the check that failed and what it says to do
            m_report.cloudDetail = QString::fromUtf8(r.out + r.err).simplified().left(500);
        if (!r.ok && m_report.cloudDetail.isEmpty())
            m_report.cloudDetail = r.error;
        finish();
    });
}

void StatusProbe::finish()
{
    // Counts the server did not give (not running, or its local token is required).
    if (m_report.activeSandboxes < 0 || m_report.warmSandboxes < 0 || m_report.pendingApprovals < 0) {
        const StateCounts counts = StateCounts::readOnly(m_config.databasePath);
        if (m_report.activeSandboxes < 0)
            m_report.activeSandboxes = counts.activeSandboxes;
        if (m_report.warmSandboxes < 0)
            m_report.warmSandboxes = counts.warmSandboxes;
        if (m_report.pendingApprovals < 0)
            m_report.pendingApprovals = counts.pendingApprovals;
    }
    if (m_done)
        std::exchange(m_done, nullptr)(m_report);
}

} // namespace chat2sbx
