#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

namespace chat2sbx {

// What the helper's `git_changes` answers (server/sandbox/channel/PROTOCOL.md): the work done in a sandbox's
// git workspace since the sandbox started, parsed from untrusted bytes (every field bounded).
struct ChangedFile {
    QString path;            // relative to the repository top
    QString status;          // added, modified, deleted, type_changed
    int added = -1;          // lines; -1 for a binary file
    int removed = -1;
    bool committed = false;  // changed by a commit made since the sandbox started
    bool staged = false;
    bool unstaged = false;
    bool untracked = false;
};

struct ChangeCommit {
    QString id;
    QString subject;
};

struct WorkspaceChanges {
    QString head;            // 40/64 hex, or empty (no commit yet)
    QString base;            // the commit the sandbox started from, or empty
    QString branch;          // the checked-out branch inside the sandbox, or empty (detached)
    QList<ChangeCommit> commits;   // newest first
    bool commitsTruncated = false;
    QList<ChangedFile> files;
    QString diff;
    bool diffTruncated = false;

    // Parses the reply's meta and data; false (with `error`) when the bytes are not in that shape.
    bool parse(const QMap<QString, QString> &meta, const QByteArray &data, int maxCommits, qsizetype maxDiffBytes,
               QString &error);
};

bool isCommitId(const QString &text);

} // namespace chat2sbx
