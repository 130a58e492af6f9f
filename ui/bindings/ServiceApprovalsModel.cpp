#include "bindings/ServiceApprovalsModel.h"

#include "sandbox/ports/PublicPorts.h"

#include "bindings/ClientNames.h"
#include "core/LogText.h"
#include "sandbox/changes/ExportApprovals.h"
#include "workspace/ApprovalService.h"

#include <QDir>
#include <QLocale>

namespace chat2sbx::ui {

namespace {
// What an agent or client wrote is shown with its control, bidi and format characters escaped: it
// cannot reorder or restyle what the user reads before deciding (core/LogText.h).
ApprovalRow rowOf(const Approval &a)
{
    return ApprovalRow{a.id, logSafe(a.hostPath, 400), workspaceModeName(a.mode), a.requestedAt, clientShownName(a.clientName),
                       logSafe(a.reason, 400)};
}


ApprovalRow exportRowOf(const ExportRequest &r, const QString &sandboxName, const QString &exportDir)
{
    QString dir = QDir::toNativeSeparators(exportDir);
    const QString home = QDir::homePath();
    if (dir.startsWith(home + QLatin1Char('/')))
        dir = QStringLiteral("~") + dir.mid(home.size());
    const QString size = QLocale::system().formattedDataSize(r.size, 1, QLocale::DataSizeTraditionalFormat);
    return ApprovalRow{r.id,
                       logSafe(r.fileName(), 200) + (r.folder ? QStringLiteral(".tar.gz") : QString()),
                       QStringLiteral("export"),
                       r.requestedAt,
                       clientShownName(r.clientName),
                       logSafe(r.why, 600),
                       QStringLiteral("%1 from %2, to %3").arg(size, sandboxName, dir)};
}

ApprovalRow portRowOf(const PublicPortRequest &r, const QString &sandboxName)
{
    return ApprovalRow{r.id,
                       QStringLiteral("port %1 of %2").arg(r.port).arg(sandboxName),
                       QStringLiteral("public_port"),
                       r.requestedAt,
                       clientShownName(r.clientName),
                       QStringLiteral("A public HTTPS URL anyone on the internet can open."),
                       QStringLiteral("cloud sandbox %1").arg(sandboxName)};
}

bool isPortId(const QString &id)
{
    return id.startsWith(QLatin1String("pub_"));
}

bool isExportId(const QString &id)
{
    return id.startsWith(QLatin1String("exp_"));
}
} // namespace

ServiceApprovalsModel::ServiceApprovalsModel(ApprovalService &service, ExportApprovals &exports, PublicPorts &ports,
                                             std::function<QString(const QString &)> names, QString exportDir, QObject *parent)
    : ApprovalsModel(parent), m_service(service), m_exports(exports), m_ports(ports), m_names(std::move(names)),
      m_exportDir(std::move(exportDir))
{
    connect(&ports, &PublicPorts::requestsChanged, this, &ApprovalsModel::changed);
    connect(&ports, &PublicPorts::portRequested, this, [this](const QString &id) {
        if (const std::optional<PublicPortRequest> r = m_ports.find(id))
            emit requested(portRowOf(*r, m_names(r->sandboxId)));
    });
    connect(&service, &ApprovalService::approvalsChanged, this, &ApprovalsModel::changed);
    connect(&service, &ApprovalService::approvalRequested, this, [this](const QString &id) {
        if (const std::optional<Approval> a = m_service.find(id))
            emit requested(rowOf(*a));
    });
    connect(&exports, &ExportApprovals::requestsChanged, this, &ApprovalsModel::changed);
    connect(&exports, &ExportApprovals::exportRequested, this, [this](const QString &id) {
        if (const std::optional<ExportRequest> r = m_exports.find(id))
            emit requested(exportRowOf(*r, m_names(r->sandboxId), m_exportDir));
    });
}

QList<ApprovalRow> ServiceApprovalsModel::pending() const
{
    QList<ApprovalRow> rows;
    for (const Approval &a : m_service.pending())
        rows.append(rowOf(a));
    for (const ExportRequest &r : m_exports.pending())
        rows.append(exportRowOf(r, m_names(r.sandboxId), m_exportDir));
    for (const PublicPortRequest &r : m_ports.pending())
        rows.append(portRowOf(r, m_names(r.sandboxId)));
    return rows;
}

bool ServiceApprovalsModel::approve(const QString &id, QString &error)
{
    if (isPortId(id))
        return m_ports.approve(id, QStringLiteral("tray"), error).has_value();
    if (isExportId(id))
        return m_exports.approve(id, QStringLiteral("tray"), error).has_value();
    return m_service.approve(id, QStringLiteral("tray"), error).has_value();
}

bool ServiceApprovalsModel::reject(const QString &id, QString &error)
{
    if (isPortId(id))
        return m_ports.reject(id, QStringLiteral("tray"), error);
    if (isExportId(id))
        return m_exports.reject(id, QStringLiteral("tray"), error);
    return m_service.reject(id, QStringLiteral("tray"), error);
}

} // namespace chat2sbx::ui
