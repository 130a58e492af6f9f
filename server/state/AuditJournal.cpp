#include "state/AuditJournal.h"

#include "state/AuditLogRepository.h"
#include "state/Database.h"

#include <QFile>
#include <QLoggingCategory>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcAuditJournal, "chat2sbx.audit")

namespace {

// Version 2 appends the conversation; a journal left by version 1 (11 fields) still folds.
constexpr char kVersion = '2';
constexpr int kFields = 12;
constexpr char kVersion1 = '1';
constexpr int kFieldsVersion1 = 11;

void appendEscaped(QByteArray &out, const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    for (const char c : utf8) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        default: out += c;
        }
    }
}

bool unescape(const QByteArray &field, QString &text)
{
    QByteArray out;
    out.reserve(field.size());
    for (qsizetype i = 0; i < field.size(); ++i) {
        const char c = field.at(i);
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i >= field.size())
            return false;
        switch (field.at(i)) {
        case '\\': out += '\\'; break;
        case 't': out += '\t'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        default: return false;
        }
    }
    text = QString::fromUtf8(out);
    return true;
}

bool number(const QByteArray &field, qint64 &value)
{
    bool ok = false;
    value = field.toLongLong(&ok);
    return ok;
}

QString systemError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

} // namespace

AuditJournal::AuditJournal(Database &db) : m_db(db)
{
    m_timer.setSingleShot(true);
    QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] {
        QString error;
        foldRows(error, false);
    });
}

AuditJournal::~AuditJournal()
{
    m_timer.stop();
    if (m_fd < 0)
        return;
    QString error;
    if (m_unfolded > 0 && !foldFile(error, true))
        qCWarning(lcAuditJournal).noquote() << "the last audit rows stay in" << m_path << "until the next start:" << error;
    ::close(m_fd);
}

QByteArray AuditJournal::encode(const AuditEntry &entry)
{
    const AuditEntry e = AuditLogRepository::bounded(entry);
    QByteArray line;
    line.reserve(96 + 2 * (e.client.size() + e.conversation.size() + e.tool.size() + e.sandboxId.size() + e.summary.size() + e.detail.size()));
    line += kVersion;
    line += '\t';
    line += QByteArray::number(e.id);
    line += '\t';
    line += QByteArray::number(e.at);
    line += '\t';
    line += QByteArray::number(e.durationMs);
    for (const QString *text : {&e.client, &e.session, &e.tool, &e.sandboxId, &e.summary, &e.outcome, &e.detail, &e.conversation}) {
        line += '\t';
        appendEscaped(line, *text);
    }
    line += '\n';
    return line;
}

bool AuditJournal::decode(const QByteArray &line, AuditEntry &entry)
{
    const QList<QByteArray> fields = line.split('\t');
    if (fields.isEmpty() || fields.at(0).size() != 1)
        return false;
    const char version = fields.at(0).at(0);
    if (!(version == kVersion && fields.size() == kFields) && !(version == kVersion1 && fields.size() == kFieldsVersion1))
        return false;
    AuditEntry e;
    if (!number(fields.at(1), e.id) || e.id <= 0 || !number(fields.at(2), e.at) || !number(fields.at(3), e.durationMs))
        return false;
    QString *texts[] = {&e.client, &e.session, &e.tool, &e.sandboxId, &e.summary, &e.outcome, &e.detail, &e.conversation};
    for (int i = 0; i < int(fields.size()) - 4; ++i) {
        if (!unescape(fields.at(4 + i), *texts[i]))
            return false;
    }
    if (e.tool.isEmpty() || e.outcome.isEmpty())
        return false;
    entry = AuditLogRepository::bounded(e);
    return true;
}

QList<AuditEntry> AuditJournal::readUnfolded(const QString &path, int *skipped)
{
    QList<AuditEntry> out;
    if (skipped)
        *skipped = 0;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return out;
    const QByteArray bytes = file.read(kMaxBytes);
    qsizetype start = 0;
    while (start < bytes.size()) {
        const qsizetype end = bytes.indexOf('\n', start);
        if (end < 0) {
            // A line still being written (another process reads while the server appends), or cut
            // short by a crash: not a row.
            if (skipped)
                ++*skipped;
            break;
        }
        AuditEntry e;
        if (decode(bytes.mid(start, end - start), e))
            out.append(e);
        else if (skipped)
            ++*skipped;
        start = end + 1;
    }
    return out;
}

qint64 AuditJournal::nextIdFromTable(QString &error)
{
    // AUTOINCREMENT's counter remembers ids of rows pruned since; max(id) covers a table made by hand.
    SqliteStatement q = m_db.sqlite("SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'), 0),"
                                    " coalesce((SELECT max(id) FROM audit_log), 0))");
    if (!q.next()) {
        error = q.ok() ? QStringLiteral("no result") : q.error();
        return -1;
    }
    return q.value(0).toLongLong() + 1;
}

bool AuditJournal::open(QString &error)
{
    if (m_fd >= 0)
        return true;
    if (!m_db.isOpen()) {
        error = QStringLiteral("the database is not open");
        return false;
    }
    m_path = pathFor(m_db.path());
    const QByteArray native = QFile::encodeName(m_path);
    m_fd = ::open(native.constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (m_fd < 0) {
        error = QStringLiteral("cannot open %1: %2").arg(m_path, systemError());
        return false;
    }
    struct stat st {};
    if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = QStringLiteral("%1 is not a regular file").arg(m_path);
        ::close(m_fd);
        m_fd = -1;
        return false;
    }
    ::fchmod(m_fd, 0600);
    m_bytes = st.st_size;
    const qint64 fromTable = nextIdFromTable(error);
    if (fromTable < 0) {
        ::close(m_fd);
        m_fd = -1;
        return false;
    }
    m_nextId = fromTable;
    // What a server that stopped abruptly left: its ids are taken even if it cannot be folded yet.
    const QList<AuditEntry> left = readUnfolded(m_path);
    for (const AuditEntry &e : left)
        m_nextId = qMax(m_nextId, e.id + 1);
    m_unfolded = qMax<qint64>(left.size(), m_bytes > 0 ? 1 : 0);   // lines that do not parse are emptied too
    m_foldFromFile = m_bytes > 0;
    if (m_bytes > 0) {
        QString foldError;
        if (foldFile(foldError, true)) {
            qCInfo(lcAuditJournal).noquote() << "added" << left.size() << "audit rows written before the last stop";
        } else {
            qCWarning(lcAuditJournal).noquote() << "audit rows of the last run stay in" << m_path << "for now:" << foldError;
            m_failing = true;
            scheduleFold(kRetryMs);
        }
    }
    return true;
}

bool AuditJournal::append(const AuditEntry &entry, QString &error)
{
    if (m_fd < 0) {
        error = QStringLiteral("the audit journal is not open");
        return false;
    }
    AuditEntry e = entry;
    e.id = m_nextId;
    const QByteArray line = encode(e);
    if (m_bytes + line.size() > kMaxBytes) {
        error = QStringLiteral("the audit journal is full (%1 rows could not be moved into the database)").arg(m_unfolded);
        return false;
    }
    qsizetype done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(m_fd, line.constData() + done, size_t(line.size() - done));
        if (n > 0) {
            done += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        error = QStringLiteral("cannot write %1: %2").arg(m_path, n < 0 ? systemError() : QStringLiteral("no space"));
        // No half line may stay: the next one would be glued to it.
        if (done > 0 && ::ftruncate(m_fd, m_bytes) != 0)
            qCWarning(lcAuditJournal).noquote() << "cannot cut a partly written line from" << m_path << systemError();
        return false;
    }
    ++m_nextId;
    m_bytes += line.size();
    ++m_unfolded;
    ++m_appendedSinceChunk;
    if (!m_foldFromFile) {
        if (m_rows.size() < kMaxRowsInMemory) {
            m_rows.append(AuditLogRepository::bounded(e));
        } else {
            m_rows.clear();
            m_rowsFolded = 0;
            m_foldFromFile = true;
        }
    }
    if (!m_failing)   // else the retry stays kRetryMs away
        scheduleFold(m_unfolded >= kFoldAtRows ? 0 : kFoldDelayMs);
    return true;
}

void AuditJournal::scheduleFold(int delayMs)
{
    if (!m_timer.isActive() || delayMs < m_timer.remainingTime())
        m_timer.start(delayMs);
}

bool AuditJournal::fold(QString &error)
{
    return foldRows(error, true);
}

bool AuditJournal::foldRows(QString &error, bool all)
{
    if (m_fd < 0 || m_unfolded == 0)
        return true;
    if (m_db.inTransaction()) {
        scheduleFold(0);
        error = QStringLiteral("a transaction is open");
        return false;
    }
    if (!foldFile(error, all)) {
        if (!m_failing)
            qCWarning(lcAuditJournal).noquote() << m_unfolded << "audit rows wait in" << m_path << "(retrying every"
                                                << kRetryMs / 1000 << "s):" << error;
        m_failing = true;
        scheduleFold(kRetryMs);
        return false;
    }
    if (m_failing)
        qCInfo(lcAuditJournal).noquote() << "audit rows are moved into the database again";
    m_failing = false;
    return true;
}

bool AuditJournal::foldFile(QString &error, bool all)
{
    if (m_foldFromFile) {
        int skipped = 0;
        const QList<AuditEntry> rows = readUnfolded(m_path, &skipped);
        if (!insertRows(rows, 0, rows.size(), error))
            return false;
        if (skipped > 0)
            qCWarning(lcAuditJournal).noquote() << "dropped" << skipped << "unreadable lines of" << m_path;
        return emptyFile(error);
    }
    // In chunks, one per event-loop turn: a request that arrives meanwhile waits for one chunk at
    // most. Once chunking, each chunk also takes the rows written since the last one, so the rows
    // left shrink by kFoldChunkRows every turn however many clients write.
    const qsizetype left = m_rows.size() - m_rowsFolded;
    const qsizetype chunk = kFoldChunkRows + (m_chunking ? m_appendedSinceChunk : 0);
    const qsizetype count = all ? left : qMin<qsizetype>(left, chunk);
    if (!insertRows(m_rows, m_rowsFolded, count, error))
        return false;
    m_rowsFolded += count;
    m_appendedSinceChunk = 0;
    if (m_rowsFolded < m_rows.size()) {
        m_chunking = true;
        scheduleFold(0);
        return true;
    }
    return emptyFile(error);
}

bool AuditJournal::insertRows(const QList<AuditEntry> &rows, qsizetype from, qsizetype count, QString &error)
{
    if (count <= 0)
        return true;
    // Never wait for another process's lock on the event loop: a locked database is tried again later.
    Database::NoWaitScope noWait(m_db);
    SqliteStatement begin = m_db.sqlite("BEGIN IMMEDIATE");
    begin.next();
    if (!begin.ok()) {
        error = begin.error();
        return false;
    }
    AuditLogRepository repository(m_db);
    for (qsizetype i = from; i < from + count; ++i) {
        if (!repository.insertWithId(rows.at(i), error)) {
            SqliteStatement rollback = m_db.sqlite("ROLLBACK");
            rollback.next();
            return false;
        }
    }
    SqliteStatement commit = m_db.sqlite("COMMIT");
    commit.next();
    if (!commit.ok()) {
        error = commit.error();
        SqliteStatement rollback = m_db.sqlite("ROLLBACK");
        rollback.next();
        return false;
    }
    return true;
}

bool AuditJournal::emptyFile(QString &error)
{
    // Every line of the file is in the table now (a crash before this line only means they are
    // inserted again, and ignored, at the next start).
    if (::ftruncate(m_fd, 0) != 0) {
        error = QStringLiteral("cannot empty %1: %2").arg(m_path, systemError());
        return false;
    }
    m_bytes = 0;
    m_unfolded = 0;
    m_rows.clear();
    m_rowsFolded = 0;
    m_foldFromFile = false;
    m_chunking = false;
    m_appendedSinceChunk = 0;
    m_timer.stop();
    return true;
}

} // namespace chat2sbx
