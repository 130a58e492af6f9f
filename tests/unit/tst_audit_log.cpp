// The activity log's pieces: one-line summaries per tool that never carry content or environment
// values, and pruning by age and by count.
#include "TestSupport.h"

#include "mcp/AuditSummary.h"
#include "state/AuditLogRepository.h"
#include "state/Database.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;

class AuditLogTest : public QObject {
    Q_OBJECT

private slots:
    void summaries()
    {
        QCOMPARE(auditSummary("bash", {{"command", "ls -la\n  && make"}, {"env", QJsonArray{QJsonObject{{"name", "K"}, {"value", "secret-v"}}}}}),
                 QStringLiteral("ls -la   && make"));
        QCOMPARE(auditSummary("bash", {{"command", QString(800, QLatin1Char('y'))}}).size(), kMaxAuditCommandChars);
        QCOMPARE(auditSummary("write", {{"path", "a/b.txt"}, {"content", "secret-content"}}), QStringLiteral("a/b.txt"));
        QCOMPARE(auditSummary("edit", {{"path", "a/b.txt"}, {"old_string", "x"}, {"new_string", "secret"}}), QStringLiteral("a/b.txt"));
        QCOMPARE(auditSummary("bash_write", {{"session_id", "bash_1"}, {"input", "secret-input"}}), QStringLiteral("bash_1"));
        QCOMPARE(auditSummary("apply_patch", {{"patch", "*** Add File: x\n+secret"}}), QString());
        // import_file: the attachment's name and destination, never its signed link.
        const QJsonObject attachment{{"download_url", "https://oaisdmntprwestus.blob.core.windows.net/files/x/raw?sig=SECRET"},
                                     {"file_id", "sediment://file_0000abc"}, {"file_name", "report.pdf"}};
        QCOMPARE(auditSummary("import_file", {{"file", attachment}}), QStringLiteral("report.pdf"));
        QCOMPARE(auditSummary("import_file", {{"file", attachment}, {"destination", "in/"}}), QString::fromUtf8("report.pdf \u2192 in/"));
        QVERIFY(!auditSummary("import_file", {{"file", attachment}}).contains(QStringLiteral("SECRET")));
        QCOMPARE(auditSummary("import_file", {{"file", QJsonObject{{"file_id", "sediment://file_0000abc"}}}}),
                 QStringLiteral("sediment://file_0000abc"));
        QCOMPARE(auditSummary("sandbox_expose", {{"port", 8080}}), QStringLiteral("port 8080"));
        QCOMPARE(auditSummary("sandbox_expose", {{"port", 8080}, {"host", "0.0.0.0"}, {"host_port", 9000}}),
                 QStringLiteral("port 8080 on 0.0.0.0:9000"));
        QCOMPARE(auditSummary("workspace_request", {{"host_path", "/home/u/p"}}), QStringLiteral("/home/u/p (clone)"));
        QCOMPARE(auditSummary("workspace_request", {{"host_path", "/home/u/p"}, {"mode", "direct"}}), QStringLiteral("/home/u/p (direct)"));
        QCOMPARE(auditSummary("search", {{"pattern", "secret-pattern"}}), QStringLiteral("(workspace)"));
        // sandbox_create: where it was asked to run.
        QCOMPARE(auditSummary("sandbox_create", {{"placement", "cloud"}, {"size", "micro"}, {"ttl", "2h"}}),
                 QStringLiteral("new managed workspace, in Docker's cloud micro for 2h"));
        QCOMPARE(auditSummary("sandbox_create", {{"workspace_id", "ws_1"}, {"placement", "local"}}), QStringLiteral("ws_1, on this computer"));
        QCOMPARE(auditSummary("sandbox_create", {}), QStringLiteral("new managed workspace"));
        QCOMPARE(shortSessionId("0123456789abcdef0123456789abcdef"), QStringLiteral("01234567"));
    }

    void pruneByAgeAndCount()
    {
        QTemporaryDir dir;
        Database db;
        QString error;
        QVERIFY2(db.open(dir.path() + "/a.sqlite", error), qPrintable(error));
        AuditLogRepository repo(db);
        const qint64 day = 24LL * 3600 * 1000;
        const qint64 now = 100 * day;
        for (int i = 0; i < 10; ++i) {
            AuditEntry e;
            e.at = now - (10 - i) * day;   // 10 days ago ... 1 day ago
            e.tool = QStringLiteral("bash");
            e.outcome = QStringLiteral("ok");
            e.summary = QString::number(i);
            QVERIFY2(repo.insert(e, error), qPrintable(error));
        }
        QCOMPARE(repo.prune(now, 5 * day + 1, 0, error), 5);   // older than 5 days
        QCOMPARE(repo.recent(100).size(), 5);
        QCOMPARE(repo.prune(now, 0, 2, error), 3);             // keep the newest 2
        const QList<AuditEntry> left = repo.recent(100);
        QCOMPARE(left.size(), 2);
        QCOMPARE(left.at(0).summary, QStringLiteral("9"));
        QCOMPARE(left.at(1).summary, QStringLiteral("8"));
        QCOMPARE(repo.prune(now, 0, 0, error), 0);
        // find: oldest first, after an id, by sandbox.
        AuditQuery q;
        q.afterId = left.at(1).id;
        const QList<AuditEntry> after = repo.find(q, error);
        QCOMPARE(after.size(), 1);
        QCOMPARE(after.at(0).summary, QStringLiteral("9"));
    }
};

QTEST_GUILESS_MAIN(AuditLogTest)
#include "tst_audit_log.moc"
