// ApprovalService and WorkspaceService::registerHost: a request creates ONE pending approval per
// canonical path and mode (persisted, stable id), decisions are final, approval re-validates the
// directory (a swap is refused), registration is repeat-safe, signals fire, and a decision made
// through another connection (the CLI) is noticed without restart.
#include "ManualClock.h"
#include "core/Ids.h"
#include "state/Database.h"
#include "workspace/ApprovalService.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace chat2sbx;
using Status = ApprovalService::RequestOutcome::Status;

namespace {

// One process's view of the state: its own connection and services (the server, or a CLI run).
struct Side {
    Database db;
    std::unique_ptr<WorkspaceService> workspaces;
    std::unique_ptr<ApprovalService> approvals;
    Side(const Config &config, Clock &clock)
    {
        QString error;
        if (!db.open(config.databasePath, error))
            qFatal("cannot open database: %s", qPrintable(error));
        workspaces = std::make_unique<WorkspaceService>(config, db, clock);
        approvals = std::make_unique<ApprovalService>(*workspaces, db, clock);
    }
};

} // namespace

class TestApprovals : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_tmp;
    Config m_config;
    ManualClock m_clock{1'800'000'000'000};
    QString m_root;
    std::unique_ptr<Side> m_server;

private slots:
    void init()
    {
        m_tmp = std::make_unique<QTemporaryDir>();
        QVERIFY(m_tmp->isValid());
        const QString base = QDir(m_tmp->path()).canonicalPath();
        m_config = Config();
        m_config.dataRoot = base + "/data";
        m_config.stateDir = m_config.dataRoot + "/state";
        m_config.workspaceRoot = m_config.dataRoot + "/workspaces";
        m_config.databasePath = m_config.stateDir + "/chat2sbx.sqlite";
        m_root = base + "/repos";
        m_config.allowedHostRoots = {m_root};
        QVERIFY(QDir().mkpath(m_root + "/app/.git"));
        QVERIFY(QDir().mkpath(m_root + "/notes"));
        m_server = std::make_unique<Side>(m_config, m_clock);
    }
    void cleanup() { m_server.reset(); }

    void requestCreatesOnePersistedPendingApproval()
    {
        ApprovalService &svc = *m_server->approvals;
        QSignalSpy requested(&svc, &ApprovalService::approvalRequested);
        QSignalSpy changed(&svc, &ApprovalService::approvalsChanged);
        const auto first = svc.request(m_root + "/app", WorkspaceMode::Clone);
        QCOMPARE(first.status, Status::ApprovalRequired);
        QVERIFY(isWellFormedId(first.approval.id, "apr_"));
        QCOMPARE(first.canonicalPath, m_root + "/app");
        QCOMPARE(first.approval.displayName, QString("app"));
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.at(0).at(0).toString(), first.approval.id);
        QCOMPARE(changed.count(), 1);

        // Persisted: another connection sees it.
        Side other(m_config, m_clock);
        const auto seen = other.approvals->find(first.approval.id);
        QVERIFY(seen.has_value());
        QVERIFY(seen->isPending());
        QCOMPARE(seen->hostPath, m_root + "/app");

        // The same request (through a symlink and a trailing slash) returns the SAME approval, no signal.
        QVERIFY(QFile::link(m_root + "/app", m_root + "/app-link"));
        const auto again = svc.request(m_root + "/app-link/", WorkspaceMode::Clone);
        QCOMPARE(again.status, Status::ApprovalRequired);
        QCOMPARE(again.approval.id, first.approval.id);
        QCOMPARE(requested.count(), 1);
        QCOMPARE(svc.pending().size(), 1);
        // Also from another process's services.
        QCOMPARE(other.approvals->request(m_root + "/app", WorkspaceMode::Clone).approval.id, first.approval.id);

        // Another mode is another approval.
        const auto direct = svc.request(m_root + "/app", WorkspaceMode::Direct);
        QCOMPARE(direct.status, Status::ApprovalRequired);
        QVERIFY(direct.approval.id != first.approval.id);
        QCOMPARE(svc.pending().size(), 2);
    }

    // 300 distinct requests made 300 pending approvals (and notifications).
    void pendingApprovalsAreCapped()
    {
        ApprovalService &svc = *m_server->approvals;
        QSignalSpy requested(&svc, &ApprovalService::approvalRequested);
        for (int i = 0; i < 30; ++i)
            QVERIFY(QDir().mkpath(m_root + QStringLiteral("/many/d%1").arg(i)));
        int refused = 0;
        for (int i = 0; i < 30; ++i) {
            // Six clients, none past its own cap: the total cap is what refuses.
            const auto r = svc.request(m_root + QStringLiteral("/many/d%1").arg(i), WorkspaceMode::Direct, {},
                                       QStringLiteral("client%1").arg(i % 6));
            if (r.status == Status::Refused) {
                ++refused;
                QVERIFY2(r.reason.contains("already waiting for the user's decision"), qPrintable(r.reason));
            }
        }
        QCOMPARE(svc.pending().size(), ApprovalService::kMaxPending);
        QCOMPARE(requested.count(), ApprovalService::kMaxPending);
        QCOMPARE(refused, 30 - ApprovalService::kMaxPending);
        // Asking again for a path already waiting is not a new request: still answered.
        QCOMPARE(svc.request(m_root + "/many/d0", WorkspaceMode::Direct).status, Status::ApprovalRequired);
        // A decision makes room.
        QString error;
        QVERIFY(svc.reject(svc.pending().first().id, "test", error));
        QCOMPARE(svc.request(m_root + "/many/d29", WorkspaceMode::Direct).status, Status::ApprovalRequired);
    }

    // One client's flood of requests takes its own share only.
    void pendingApprovalsArePerClient()
    {
        ApprovalService &svc = *m_server->approvals;
        QSignalSpy requested(&svc, &ApprovalService::approvalRequested);
        int refused = 0;
        for (int i = 0; i < 300; ++i) {
            const QString dir = m_root + QStringLiteral("/noisy/d%1").arg(i);
            QVERIFY(QDir().mkpath(dir));
            const auto r = svc.request(dir, WorkspaceMode::Direct, {}, QStringLiteral("noisy"));
            if (r.status == Status::Refused) {
                ++refused;
                QVERIFY2(r.reason.contains("this client already has 5 workspace requests waiting"), qPrintable(r.reason));
            }
        }
        QCOMPARE(refused, 300 - ApprovalService::kMaxPendingPerClient);
        QCOMPARE(requested.count(), ApprovalService::kMaxPendingPerClient);
        QCOMPARE(svc.pending().size(), ApprovalService::kMaxPendingPerClient);
        // Another client still gets its question to the user.
        QVERIFY(QDir().mkpath(m_root + "/quiet"));
        QCOMPARE(svc.request(m_root + "/quiet", WorkspaceMode::Direct, {}, QStringLiteral("ChatGPT")).status, Status::ApprovalRequired);
        // A decision gives the noisy client room for one more.
        QString error;
        const QList<Approval> waiting = svc.pending();
        const auto noisy = std::find_if(waiting.cbegin(), waiting.cend(), [](const Approval &a) { return a.clientName == "noisy"; });
        QVERIFY(noisy != waiting.cend());
        QVERIFY(svc.reject(noisy->id, "test", error));
        QCOMPARE(svc.request(m_root + "/noisy/d299", WorkspaceMode::Direct, {}, QStringLiteral("noisy")).status, Status::ApprovalRequired);
    }

    void refusedRequestsCreateNothing()
    {
        ApprovalService &svc = *m_server->approvals;
        const auto clone = svc.request(m_root + "/notes", WorkspaceMode::Clone);
        QCOMPARE(clone.status, Status::Refused);
        QVERIFY2(clone.reason.contains("clone mode needs a git repository"), qPrintable(clone.reason));
        const auto outside = svc.request("/etc", WorkspaceMode::Direct);
        QCOMPARE(outside.status, Status::Refused);
        QVERIFY(outside.reason.contains("is not below an allowed root"));
        QVERIFY(svc.list().isEmpty());
    }

    void approveRegistersTheWorkspaceOnce()
    {
        ApprovalService &svc = *m_server->approvals;
        const QString id = svc.request(m_root + "/app", WorkspaceMode::Clone).approval.id;
        QSignalSpy wsChanged(m_server->workspaces.get(), &WorkspaceService::workspacesChanged);
        QSignalSpy changed(&svc, &ApprovalService::approvalsChanged);
        m_clock.advance(5000);
        QString error;
        const auto ws = svc.approve(id, "tray", error);
        QVERIFY2(ws.has_value(), qPrintable(error));
        QVERIFY(isWellFormedId(ws->id, "ws_"));
        QCOMPARE(ws->mode, WorkspaceMode::Clone);
        QCOMPARE(ws->hostPath, m_root + "/app");
        QCOMPARE(ws->displayName, QString("app"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(wsChanged.count(), 1);

        const auto decided = svc.find(id);
        QCOMPARE(decided->state, ApprovalState::Approved);
        QCOMPARE(decided->decidedBy, QString("tray"));
        QCOMPARE(decided->decidedAt, m_clock.nowMs());
        QCOMPARE(decided->workspaceId, ws->id);

        // Decisions are final.
        QVERIFY(!svc.approve(id, "cli", error));
        QVERIFY2(error.startsWith("approval " + id + " was already approved at ") && error.contains("(from tray)")
                     && error.contains(ws->id) && error.endsWith("a decision is final"), qPrintable(error));
        QVERIFY(!svc.reject(id, "cli", error));
        QVERIFY(error.contains("was already approved"));
        QCOMPARE(svc.find(id)->state, ApprovalState::Approved);
        QCOMPARE(svc.find(id)->decidedBy, QString("tray"));

        // Asking again now answers with the workspace.
        const auto after = svc.request(m_root + "/app", WorkspaceMode::Clone);
        QCOMPARE(after.status, Status::Approved);
        QCOMPARE(after.workspaceId, ws->id);
        QCOMPARE(m_server->workspaces->list().size(), 1);
    }

    void approveReusesADirectlyRegisteredWorkspace()
    {
        QString error;
        const auto added = m_server->workspaces->registerHost(m_root + "/notes", WorkspaceMode::Direct, error);
        QVERIFY2(added, qPrintable(error));
        const auto repeat = m_server->workspaces->registerHost(m_root + "/notes/", WorkspaceMode::Direct, error);
        QCOMPARE(repeat->id, added->id);
        QCOMPARE(m_server->workspaces->list().size(), 1);
        // A registered path is approved already: no approval is created.
        const auto req = m_server->approvals->request(m_root + "/notes", WorkspaceMode::Direct);
        QCOMPARE(req.status, Status::Approved);
        QCOMPARE(req.workspaceId, added->id);
        QVERIFY(m_server->approvals->list().isEmpty());
        // A different mode for the same path is a different workspace.
        QVERIFY(QDir().mkpath(m_root + "/notes/.git"));
        const auto clone = m_server->workspaces->registerHost(m_root + "/notes", WorkspaceMode::Clone, error);
        QVERIFY(clone && clone->id != added->id);
    }

    void rejectIsFinalAndSticky()
    {
        ApprovalService &svc = *m_server->approvals;
        const QString id = svc.request(m_root + "/notes", WorkspaceMode::Direct).approval.id;
        QString error;
        QVERIFY2(svc.reject(id, "cli", error), qPrintable(error));
        QCOMPARE(svc.find(id)->state, ApprovalState::Rejected);
        QVERIFY(!svc.reject(id, "cli", error));
        QVERIFY2(error.contains("was already rejected"), qPrintable(error));
        QVERIFY(!svc.approve(id, "cli", error));
        QVERIFY(error.contains("was already rejected"));
        QVERIFY(m_server->workspaces->list().isEmpty());
        const auto again = svc.request(m_root + "/notes", WorkspaceMode::Direct);
        QCOMPARE(again.status, Status::Rejected);
        QCOMPARE(again.approval.id, id);
        QVERIFY(svc.pending().isEmpty());
    }

    void unknownIdsAreErrors()
    {
        QString error;
        QVERIFY(!m_server->approvals->approve("apr_000000000000000000000000", "cli", error));
        QCOMPARE(error, QString("no approval with id apr_000000000000000000000000"));
        QVERIFY(!m_server->approvals->reject("nonsense", "cli", error));
        QCOMPARE(error, QString("no approval with id nonsense"));
    }

    void approveRefusesASwappedDirectory()
    {
        ApprovalService &svc = *m_server->approvals;
        const QString id = svc.request(m_root + "/notes", WorkspaceMode::Direct).approval.id;
        QVERIFY(QDir().rename(m_root + "/notes", m_root + "/notes-original"));
        QVERIFY(QDir().mkpath(m_root + "/notes"));
        QString error;
        QVERIFY(!svc.approve(id, "cli", error));
        QVERIFY2(error.startsWith("cannot approve " + id + ": ") && error.contains("was replaced after it was checked"), qPrintable(error));
        QVERIFY(svc.find(id)->isPending());
        QVERIFY(m_server->workspaces->list().isEmpty());
    }

    void checkBeforeUseRevalidates()
    {
        QString error;
        const auto host = m_server->workspaces->registerHost(m_root + "/notes", WorkspaceMode::Direct, error);
        QVERIFY(host);
        QVERIFY2(m_server->workspaces->checkBeforeUse(*host, error), qPrintable(error));
        QVERIFY(QDir(m_root + "/notes").removeRecursively());
        QVERIFY(QFile::link(m_root + "/app", m_root + "/notes"));
        QVERIFY(!m_server->workspaces->checkBeforeUse(*host, error));
        QVERIFY2(error.startsWith("workspace " + host->id + " cannot be used: ") && error.contains("now resolves elsewhere"), qPrintable(error));

        const auto managed = m_server->workspaces->createManaged(error);
        QVERIFY(managed);
        QVERIFY(QDir(managed->hostPath).removeRecursively());
        QVERIFY(m_server->workspaces->checkBeforeUse(*managed, error));
        QVERIFY(QFileInfo(managed->hostPath).isDir());
    }
};

QTEST_GUILESS_MAIN(TestApprovals)
#include "tst_approvals.moc"
