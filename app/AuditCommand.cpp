// `chat2sbx audit [--sandbox ID] [--limit N] [--since TIME] [--follow] [--json]`: the activity log
// (every MCP tool call the server ran), as a table or one JSON object per line. --follow keeps
// printing the rows a running server writes: it wakes on changes of the database files (and once a
// second as a fallback) and reads only rows newer than the last one printed.
#include "Command.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "core/LogText.h"
#include "sandbox/present/SandboxNames.h"
#include "state/AuditJournal.h"
#include "state/AuditLogRepository.h"
#include "state/Database.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimer>

namespace chat2sbx::app {
namespace {

// "30s", "15m", "2h", "7d" before now, or an ISO-8601 time ("2026-12-03T13:00:00Z").
bool parseSince(const QString &text, qint64 nowMs, qint64 &out)
{
    static const QRegularExpression relative(QStringLiteral("^(\\d{1,9})([smhd])$"));
    const QRegularExpressionMatch m = relative.match(text.trimmed());
    if (m.hasMatch()) {
        const qint64 n = m.captured(1).toLongLong();
        const QChar unit = m.captured(2).at(0);
        const qint64 factor = unit == QLatin1Char('s') ? 1000 : unit == QLatin1Char('m') ? 60000
                            : unit == QLatin1Char('h') ? 3600000 : 86400000;
        out = nowMs - n * factor;
        return true;
    }
    QDateTime t = QDateTime::fromString(text.trimmed(), Qt::ISODateWithMs);
    if (!t.isValid())
        t = QDateTime::fromString(text.trimmed(), Qt::ISODate);
    if (!t.isValid())
        return false;
    out = t.toMSecsSinceEpoch();
    return true;
}

QJsonObject toJson(const AuditEntry &e, const QString &sandboxName)
{
    auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s); };
    return {{QStringLiteral("id"), e.id},
            {QStringLiteral("at"), isoTime(e.at)},
            {QStringLiteral("client"), orNull(e.client)},
            {QStringLiteral("session"), orNull(e.session)},
            {QStringLiteral("conversation"), orNull(e.conversation)},
            {QStringLiteral("tool"), e.tool},
            {QStringLiteral("sandbox_id"), orNull(e.sandboxId)},
            {QStringLiteral("sandbox_name"), orNull(sandboxName)},
            {QStringLiteral("summary"), orNull(e.summary)},
            {QStringLiteral("duration_ms"), e.durationMs},
            {QStringLiteral("outcome"), e.outcome},
            {QStringLiteral("error"), orNull(e.detail)}};
}

QString header()
{
    return QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8  %9")
        .arg(QStringLiteral("TIME (UTC)").leftJustified(19), QStringLiteral("CLIENT").leftJustified(16),
             QStringLiteral("SESSION").leftJustified(8), QStringLiteral("CONV").leftJustified(8),
             QStringLiteral("TOOL").leftJustified(15),
             QStringLiteral("SANDBOX").leftJustified(29), QStringLiteral("MS").rightJustified(7),
             QStringLiteral("OUTCOME").leftJustified(9), QStringLiteral("SUMMARY"));
}

// A client's name and a command line come from outside: control characters are shown escaped, so a
// row stays one line and cannot move the terminal's cursor or colours.
// The sandbox by its short name (sandbox list's NAME; --json keeps the id beside it).
QString row(const AuditEntry &e, const QString &sandboxName)
{
    QString what = logSafe(e.summary, 600);
    if (!e.detail.isEmpty())
        what += (what.isEmpty() ? QString() : QStringLiteral("  ")) + QStringLiteral("[%1]").arg(logSafe(e.detail, 600));
    const QString conversation = e.shortConversation();
    const QString line = QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8  %9")
                             .arg(isoTime(e.at).left(19).replace(QLatin1Char('T'), QLatin1Char(' ')),
                                  (e.client.isEmpty() ? QStringLiteral("-") : logSafe(e.client).left(16)).leftJustified(16),
                                  (e.session.isEmpty() ? QStringLiteral("-") : e.session).leftJustified(8),
                                  (conversation.isEmpty() ? QStringLiteral("-") : logSafe(conversation)).leftJustified(8),
                                  e.tool.left(15).leftJustified(15),
                                  (sandboxName.isEmpty() ? QStringLiteral("-") : logSafe(sandboxName)).leftJustified(29),
                                  QString::number(e.durationMs).rightJustified(7), e.outcome.leftJustified(9), what);
    QString trimmed = line;
    while (trimmed.endsWith(QLatin1Char(' ')))
        trimmed.chop(1);
    return trimmed;
}

int runAudit(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("audit: unexpected argument '%1' (see chat2sbx audit --help)").arg(ctx.args.first()));
    AuditQuery query;
    if (ctx.isSet(QStringLiteral("sandbox"))) {
        query.sandboxId = ctx.value(QStringLiteral("sandbox"));
        if (!isWellFormedId(query.sandboxId, "sbx_"))
            return ctx.usage(QStringLiteral("audit: --sandbox needs a sandbox id (sbx_ followed by 24 hex digits)"));
    }
    if (ctx.isSet(QStringLiteral("limit"))) {
        bool ok = false;
        query.limit = ctx.value(QStringLiteral("limit")).toInt(&ok);
        if (!ok || query.limit < 1 || query.limit > 100000)
            return ctx.usage(QStringLiteral("audit: --limit must be a number from 1 to 100000"));
    }
    if (ctx.isSet(QStringLiteral("since"))
        && !parseSince(ctx.value(QStringLiteral("since")), Clock::system().nowMs(), query.sinceMs))
        return ctx.usage(QStringLiteral("audit: --since takes 30s, 15m, 2h, 7d or an ISO-8601 time like 2026-12-03T13:00:00Z"));
    const bool follow = ctx.isSet(QStringLiteral("follow"));

    Database db;
    QString error;
    if (!db.open(ctx.config.databasePath, error))
        return ctx.fail(error);
    AuditLogRepository repo(db);
    const QList<AuditEntry> first = repo.find(query, error);
    if (!error.isEmpty())
        return ctx.fail(QStringLiteral("cannot read the activity log: ") + error);

    SandboxNameLookup names(db);
    auto emitRows = [&ctx, &names](const QList<AuditEntry> &rows) {
        for (const AuditEntry &e : rows) {
            const QString name = names(e.sandboxId);
            ctx.print(ctx.json ? QString::fromUtf8(QJsonDocument(toJson(e, name)).toJson(QJsonDocument::Compact)) : row(e, name));
        }
    };
    if (!ctx.json && (!first.isEmpty() || follow))
        ctx.print(header());
    if (!ctx.json && first.isEmpty() && !follow)
        ctx.print(QStringLiteral("No tool calls recorded%1.").arg(query.sandboxId.isEmpty() ? QString() : QStringLiteral(" for ") + query.sandboxId));
    emitRows(first);
    if (!follow)
        return 0;

    // Follow: everything after the last row seen (or after the newest row when nothing matched yet).
    qint64 lastId = first.isEmpty() ? 0 : first.constLast().id;
    if (first.isEmpty()) {
        const QList<AuditEntry> newest = repo.recent(1);
        lastId = newest.isEmpty() ? 0 : newest.first().id;
    }
    query.limit = 1000;
    auto readNew = [&] {
        query.afterId = lastId;
        QString readError;
        const QList<AuditEntry> rows = repo.find(query, readError);
        if (!readError.isEmpty())
            return;   // busy or being migrated: the next wake-up tries again
        if (!rows.isEmpty())
            lastId = rows.constLast().id;
        emitRows(rows);
    };
    QFileSystemWatcher watcher;
    const QString dbPath = ctx.config.databasePath;
    watcher.addPath(QFileInfo(dbPath).absolutePath());
    auto watchFiles = [&watcher, dbPath] {
        // The WAL appears (and is recreated) while the server runs; a removed file drops out of the watch.
        // The server's rows reach its audit journal first (AuditJournal), then the table.
        for (const QString &f : {dbPath, dbPath + QStringLiteral("-wal"), AuditJournal::pathFor(dbPath)})
            if (QFileInfo::exists(f) && !watcher.files().contains(f))
                watcher.addPath(f);
    };
    watchFiles();
    QTimer coalesce;
    coalesce.setSingleShot(true);
    coalesce.setInterval(50);
    QObject::connect(&coalesce, &QTimer::timeout, [&] {
        watchFiles();
        readNew();
    });
    QObject::connect(&watcher, &QFileSystemWatcher::fileChanged, &coalesce, qOverload<>(&QTimer::start));
    QObject::connect(&watcher, &QFileSystemWatcher::directoryChanged, &coalesce, qOverload<>(&QTimer::start));
    QTimer fallback;
    fallback.setInterval(1000);
    QObject::connect(&fallback, &QTimer::timeout, readNew);
    fallback.start();
    return QCoreApplication::exec();
}

const bool registered = registerCommand(
    {QStringLiteral("audit"), QStringLiteral("audit [--sandbox ID] [--limit N] [--since TIME] [--follow] [--json]"),
     QStringLiteral("Show the tool calls the server ran (the activity log)"), false, runAudit,
     {QCommandLineOption(QStringLiteral("sandbox"), QStringLiteral("only calls about this sandbox"), QStringLiteral("ID")),
      QCommandLineOption(QStringLiteral("limit"), QStringLiteral("the newest N calls (default 50)"), QStringLiteral("N")),
      QCommandLineOption(QStringLiteral("since"), QStringLiteral("calls since 30s/15m/2h/7d ago or an ISO-8601 time"), QStringLiteral("TIME")),
      QCommandLineOption(QStringLiteral("follow"), QStringLiteral("keep printing new calls as the server runs them"))}});

} // namespace
} // namespace chat2sbx::app
