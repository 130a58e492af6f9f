#include "sandbox/changes/WorkspaceChanges.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

namespace chat2sbx {

namespace {

constexpr int kMaxFiles = 5000;
constexpr qsizetype kMaxPathBytes = 4096;

// "<name> <bytes>\n<bytes>" sections, in a fixed order.
bool readSection(const QByteArray &data, qsizetype &pos, const char *name, QByteArray &out)
{
    const qsizetype nl = data.indexOf('\n', pos);
    if (nl < 0 || nl - pos > 64)
        return false;
    const QList<QByteArray> head = data.mid(pos, nl - pos).split(' ');
    bool ok = false;
    const qsizetype size = head.size() == 2 ? head.at(1).toLongLong(&ok) : -1;
    if (!ok || head.at(0) != name || size < 0 || size > data.size() - (nl + 1))
        return false;
    out = data.mid(nl + 1, size);
    pos = nl + 1 + size;
    return true;
}

QList<QByteArray> nulFields(const QByteArray &bytes)
{
    QList<QByteArray> fields = bytes.split('\0');
    if (!fields.isEmpty() && fields.last().isEmpty())
        fields.removeLast();
    return fields;
}

QString pathOf(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes.left(kMaxPathBytes));
}

QString statusName(const QByteArray &letter)
{
    switch (letter.isEmpty() ? ' ' : letter.at(0)) {
    case 'A': return QStringLiteral("added");
    case 'D': return QStringLiteral("deleted");
    case 'T': return QStringLiteral("type_changed");
    default: return QStringLiteral("modified");
    }
}

} // namespace

bool isCommitId(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^([0-9a-f]{40}|[0-9a-f]{64})$"));
    return re.match(text).hasMatch();
}

bool WorkspaceChanges::parse(const QMap<QString, QString> &meta, const QByteArray &data, int maxCommits,
                             qsizetype maxDiffBytes, QString &error)
{
    const QString h = meta.value(QStringLiteral("head")), b = meta.value(QStringLiteral("base"));
    head = isCommitId(h) ? h : QString();
    base = isCommitId(b) ? b : QString();
    branch = meta.value(QStringLiteral("branch")).left(200);

    QByteArray commitsRaw, numstat, status, committed, staged, unstaged, untracked, diffRaw;
    qsizetype pos = 0;
    if (!readSection(data, pos, "commits", commitsRaw) || !readSection(data, pos, "numstat", numstat)
        || !readSection(data, pos, "status", status) || !readSection(data, pos, "committed", committed)
        || !readSection(data, pos, "staged", staged) || !readSection(data, pos, "unstaged", unstaged)
        || !readSection(data, pos, "untracked", untracked) || !readSection(data, pos, "patch", diffRaw)) {
        error = QStringLiteral("the sandbox answered changes in an unexpected shape");
        return false;
    }

    for (const QByteArray &c : nulFields(commitsRaw)) {
        if (commits.size() >= maxCommits) {
            commitsTruncated = true;
            break;
        }
        const qsizetype tab = c.indexOf('\t');
        const QString id = QString::fromLatin1(c.left(tab < 0 ? c.size() : tab).trimmed());
        if (!isCommitId(id))
            continue;
        commits.append({id, tab < 0 ? QString() : QString::fromUtf8(c.mid(tab + 1, 300)).trimmed()});
    }

    QHash<QString, qsizetype> index;
    auto fileFor = [&](const QString &path) -> ChangedFile * {
        auto it = index.constFind(path);
        if (it != index.cend())
            return &files[*it];
        if (files.size() >= kMaxFiles)
            return nullptr;
        index.insert(path, files.size());
        ChangedFile f;
        f.path = path;
        files.append(f);
        return &files.last();
    };
    // --name-status -z: "<letter>\0<path>\0" pairs.
    const QList<QByteArray> st = nulFields(status);
    for (qsizetype i = 0; i + 1 < st.size(); i += 2)
        if (ChangedFile *f = fileFor(pathOf(st.at(i + 1))))
            f->status = statusName(st.at(i));
    // --numstat -z: "<added>\t<removed>\t<path>\0"; "-" for binary files.
    for (const QByteArray &line : nulFields(numstat)) {
        const QList<QByteArray> parts = line.split('\t');
        if (parts.size() < 3)
            continue;
        const QString path = pathOf(line.mid(parts.at(0).size() + parts.at(1).size() + 2));
        auto it = index.constFind(path);
        if (it == index.cend())
            continue;
        bool okA = false, okR = false;
        const int a = parts.at(0).toInt(&okA), r = parts.at(1).toInt(&okR);
        files[*it].added = okA ? a : -1;
        files[*it].removed = okR ? r : -1;
    }
    auto flag = [&](const QByteArray &list, bool ChangedFile::*member) {
        for (const QByteArray &p : nulFields(list)) {
            auto it = index.constFind(pathOf(p));
            if (it != index.cend())
                files[*it].*member = true;
        }
    };
    flag(committed, &ChangedFile::committed);
    flag(staged, &ChangedFile::staged);
    flag(unstaged, &ChangedFile::unstaged);
    flag(untracked, &ChangedFile::untracked);

    diffTruncated = diffRaw.size() > maxDiffBytes;
    QByteArray shown = diffRaw.left(maxDiffBytes);
    if (diffTruncated) {
        // Cut at a line end, so the last line shown is whole.
        const qsizetype nl = shown.lastIndexOf('\n');
        if (nl > 0)
            shown.truncate(nl + 1);
    }
    diff = QString::fromUtf8(shown);
    return true;
}

} // namespace chat2sbx
