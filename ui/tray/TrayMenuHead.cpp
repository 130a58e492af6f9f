#include "tray/TrayMenuHead.h"

#include "tray/TrayIcons.h"

#include <QAction>
#include <QDir>
#include <QMenu>

namespace chat2sbx::ui {

namespace {

QString homeRelative(const QString &path)
{
    const QString home = QDir::homePath();
    if (path == home)
        return QStringLiteral("~");
    if (path.startsWith(home + QLatin1Char('/')))
        return QStringLiteral("~") + path.mid(home.size());
    return path;
}

// A menu line stays one line: long paths and host lists are cut in the middle of nowhere else.
QString oneLine(QString text, int max = 60)
{
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    if (text.size() > max)
        text = text.left(max - 1) + QChar(0x2026);
    // A literal & in a path is not a mnemonic.
    text.replace(QLatin1Char('&'), QStringLiteral("&&"));
    return text;
}

} // namespace

TrayMenuHead::TrayMenuHead(QMenu &menu, QAction *before, ApprovalsModel &approvals, SandboxesModel &sandboxes,
                           StatusModel &status, QObject *parent)
    : QObject(parent), m_menu(menu), m_before(before), m_approvals(approvals), m_sandboxes(sandboxes), m_status(status)
{
    m_rebuild.setSingleShot(true);
    m_rebuild.setInterval(0);
    connect(&m_rebuild, &QTimer::timeout, this, &TrayMenuHead::rebuild);
    connect(&approvals, &ApprovalsModel::changed, this, &TrayMenuHead::scheduleRebuild);
    connect(&sandboxes, &SandboxesModel::changed, this, &TrayMenuHead::scheduleRebuild);
    connect(&status, &StatusModel::changed, this, &TrayMenuHead::scheduleRebuild);
    rebuild();
}

void TrayMenuHead::addNetwork(NetworkModel &network)
{
    m_network = &network;
    connect(&network, &NetworkModel::changed, this, &TrayMenuHead::scheduleRebuild);
    rebuild();
}

void TrayMenuHead::scheduleRebuild()
{
    if (!m_rebuild.isActive())
        m_rebuild.start();
}

QAction *TrayMenuHead::addBefore(QAction *action)
{
    m_menu.insertAction(m_before, action);
    m_built.append(action);
    return action;
}

void TrayMenuHead::rebuild()
{
    m_rebuild.stop();
    for (QAction *action : std::as_const(m_built)) {
        m_menu.removeAction(action);
        // A request's entry belongs to its submenu, which takes it along.
        if (QMenu *sub = action->menu())
            sub->deleteLater();
        else
            action->deleteLater();
    }
    m_built.clear();

    // The models are read once a rebuild; the summary the tray item shows comes from the same read.
    const QList<ApprovalRow> approvals = m_approvals.pending();
    const QList<NetworkRequestRow> network = m_network ? m_network->pending() : QList<NetworkRequestRow>{};
    int running = 0;
    for (const SandboxRow &row : m_sandboxes.sandboxes())
        running += row.state == QLatin1String("running") ? 1 : 0;
    m_waiting = static_cast<int>(approvals.size() + network.size());
    m_statusLine = trayStatusLine(m_status.status(), m_waiting, running);

    auto *line = new QAction(oneLine(m_statusLine), &m_menu);
    line->setObjectName(QStringLiteral("statusLine"));
    line->setEnabled(false);
    addBefore(line);

    int listed = 0;
    for (const ApprovalRow &row : approvals)
        if (listed++ < kMaxListed)
            addApproval(row);
    for (const NetworkRequestRow &row : network)
        if (listed++ < kMaxListed)
            addNetworkRequest(row);
    if (listed > kMaxListed) {
        auto *more = new QAction(QStringLiteral("%1 more in chat2sbx…").arg(listed - kMaxListed), &m_menu);
        more->setObjectName(QStringLiteral("moreRequests"));
        connect(more, &QAction::triggered, this, [this] { emit openRequested(QString()); });
        addBefore(more);
    }
    auto *separator = new QAction(&m_menu);
    separator->setSeparator(true);
    addBefore(separator);
    emit rebuilt();
}

QMenu *TrayMenuHead::addRequestMenu(const QString &title, const QString &accessibleName)
{
    auto *sub = new QMenu(title, &m_menu);
    QAction *entry = sub->menuAction();
    entry->setObjectName(QStringLiteral("request"));
    entry->setToolTip(accessibleName);
    addBefore(entry);
    return sub;
}

void TrayMenuHead::addApproval(const ApprovalRow &row)
{
    const bool file = row.isExport();
    const bool port = row.isPublicPort();
    const QString who = row.client.isEmpty() ? QStringLiteral("ChatGPT") : row.client;
    const QString title = file   ? QStringLiteral("Save %1").arg(oneLine(row.path))
                          : port ? QStringLiteral("Publish %1 on the internet").arg(oneLine(row.path))
                                 : QStringLiteral("Folder %1 (%2)").arg(oneLine(homeRelative(row.path)), row.mode);
    const QString spoken = file   ? QStringLiteral("%1 wants to save %2 on this computer").arg(who, row.path)
                           : port ? QStringLiteral("%1 wants %2 as a public URL anyone can open").arg(who, row.path)
                                  : QStringLiteral("%1 asks for the folder %2, %3").arg(who, row.path, row.mode);
    QMenu *sub = addRequestMenu(title, spoken);
    const QString id = row.id;
    auto decide = [this, id](bool approve) {
        QString error;
        if (!(approve ? m_approvals.approve(id, error) : m_approvals.reject(id, error)))
            emit failed(error);
    };
    QAction *yes = sub->addAction(file ? QStringLiteral("Save") : port ? QStringLiteral("Publish") : QStringLiteral("Approve"));
    yes->setObjectName(QStringLiteral("approve"));
    connect(yes, &QAction::triggered, this, [decide] { decide(true); });
    QAction *no = sub->addAction(file ? QStringLiteral("Don't save") : port ? QStringLiteral("Don't publish") : QStringLiteral("Reject"));
    no->setObjectName(QStringLiteral("reject"));
    connect(no, &QAction::triggered, this, [decide] { decide(false); });
    sub->addSeparator();
    QAction *card = sub->addAction(QStringLiteral("Review in chat2sbx…"));
    card->setObjectName(QStringLiteral("review"));
    connect(card, &QAction::triggered, this, [this, id] { emit openRequested(id); });
}

void TrayMenuHead::addNetworkRequest(const NetworkRequestRow &row)
{
    const QString sandbox = row.sandboxName.isEmpty() ? row.sandboxId : row.sandboxName;
    const QString hosts = row.hosts.join(QStringLiteral(", "));
    QMenu *sub = addRequestMenu(QStringLiteral("Network %1 for %2").arg(oneLine(hosts, 40), sandbox),
                                QStringLiteral("%1 asks network access to %2 for sandbox %3")
                                    .arg(row.client.isEmpty() ? QStringLiteral("ChatGPT") : row.client, hosts, sandbox));
    const QString id = row.id;
    QAction *allow = sub->addAction(QStringLiteral("Allow for this sandbox"));
    allow->setObjectName(QStringLiteral("allow"));
    connect(allow, &QAction::triggered, this, [this, id] {
        if (!m_network)
            return;
        m_network->allow(id, false, [self = QPointer<TrayMenuHead>(this)](bool ok, const QString &why) {
            if (!ok && self)
                emit self->failed(why);
        });
    });
    QAction *deny = sub->addAction(QStringLiteral("Deny"));
    deny->setObjectName(QStringLiteral("deny"));
    connect(deny, &QAction::triggered, this, [this, id] {
        QString error;
        if (m_network && !m_network->deny(id, error))
            emit failed(error);
    });
    sub->addSeparator();
    QAction *card = sub->addAction(QStringLiteral("Review in chat2sbx…"));
    card->setObjectName(QStringLiteral("review"));
    connect(card, &QAction::triggered, this, [this, id] { emit openRequested(id); });
}

} // namespace chat2sbx::ui
