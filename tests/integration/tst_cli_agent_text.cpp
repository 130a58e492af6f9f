// Agent text on the user's terminal: what an agent or MCP client wrote (a path, a reason, a client
// name, an export's file name, a checkpoint label) reaches `chat2sbx approval list` and `sandbox
// checkpoints` with its escape sequences, OSC titles, bidi overrides, zero-width and format
// characters escaped, as text and in --json (whose values stay exact), so nothing can rewrite the
// line the user reads before approving.
#include "SandboxHarness.h"

#include "core/Ids.h"
#include "state/ApprovalRepository.h"
#include "state/CheckpointRepository.h"
#include "state/ExportRequestRepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

// ESC [2K ESC [1A CR: erase the line, go up, start again; ESC ] 0 ; title BEL: retitle the terminal;
// U+202E: right-to-left override; U+200B: zero width space; U+009B: the C1 CSI.
const QString kHostile = QStringLiteral("nice\x1b[2K\x1b[1A\rAPPROVED \x1b]0;pwned\x07 txt.exe\u202Egpj\u200B\u009B31m");

// No byte a terminal acts on: no C0 but newline/tab, no C1, no bidi or format character.
QString actsOnTerminal(const QByteArray &out)
{
    const QString text = QString::fromUtf8(out);
    for (const QChar c : text) {
        const char32_t u = c.unicode();
        if ((u < 0x20 && u != '\n' && u != '\t') || (u >= 0x7f && u <= 0x9f) || c.category() == QChar::Other_Format)
            return QStringLiteral("U+%1").arg(uint(u), 4, 16, QLatin1Char('0'));
    }
    return {};
}

} // namespace

class TestCliAgentText : public QObject {
    Q_OBJECT
private slots:
    void agentTextCannotRewriteTheTerminal()
    {
        TestEnvironment env;
        QString sandboxId;
        {
            SandboxHarness h(env);
            QString error;
            Approval a;
            a.id = newId("apr_");
            a.hostPath = QStringLiteral("/home/u/") + kHostile;
            a.displayName = kHostile;
            a.requestedAt = h.clock.nowMs();
            a.reason = kHostile;
            a.clientName = kHostile;
            QVERIFY2(ApprovalRepository(h.db).insert(a, error), qPrintable(error));
            ExportRequest r;
            r.id = newId("exp_");
            r.sandboxId = QStringLiteral("sbx_000000000000000000000001");
            r.path = r.shown = QStringLiteral("/home/agent/") + kHostile;
            r.size = 10;
            r.why = QStringLiteral("exportNeedsApproval is on");
            r.clientName = kHostile;
            r.requestedAt = h.clock.nowMs();
            QVERIFY2(ExportRequestRepository(h.db).insert(r, error), qPrintable(error));
            Checkpoint c;
            c.id = newId("ckp_");
            sandboxId = r.sandboxId;
            c.sandboxId = sandboxId;
            c.label = kHostile;
            c.templateRef = Checkpoint::templateRefFor(c.id);
            c.state = CheckpointState::Failed;
            c.failure = QStringLiteral("it failed: ") + kHostile;
            c.createdAt = h.clock.nowMs();
            QVERIFY2(CheckpointRepository(h.db).insert(c, error), qPrintable(error));
        }
        for (const QStringList &args : {QStringList{"approval", "list"}, QStringList{"approval", "list", "--json"},
                                        QStringList{"sandbox", "checkpoints", sandboxId},
                                        QStringList{"sandbox", "checkpoints", sandboxId, "--json"}}) {
            const CliResult r = runCli(env, args);
            QCOMPARE(r.exitCode, 0);
            const QString acts = actsOnTerminal(r.out);
            QVERIFY2(acts.isEmpty(), qPrintable(args.join(' ') + ": " + acts + "\n" + QString::fromUtf8(r.out)));
            QVERIFY2(r.out.contains("APPROVED"), r.out.constData());   // shown, not hidden
        }
        // The text view keeps each request on its own lines: the agent's newline-free text cannot
        // fake one, and nothing it wrote starts a line.
        const CliResult text = runCli(env, {"approval", "list"});
        for (const QByteArray &line : text.out.split('\n'))
            QVERIFY2(!line.startsWith("APPROVED"), text.out.constData());
        // --json keeps the exact values (the escapes are JSON's own).
        const CliResult json = runCli(env, {"approval", "list", "--json"});
        bool found = false;
        for (const QJsonValue &v : QJsonDocument::fromJson(json.out).array())
            found = found || v.toObject().value("reason").toString() == kHostile;
        QVERIFY2(found, json.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliAgentText)
#include "tst_cli_agent_text.moc"
