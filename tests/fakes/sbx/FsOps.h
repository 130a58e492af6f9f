// Host-side helpers: run a helper program and wait, copy a tree (cp -a), delete a tree.
#pragma once

#include <QString>
#include <QStringList>

namespace fakesbx {

// Runs argv[0] (PATH search) with stdin/stdout on /dev/null, waits, returns its exit code
// (128+signal when killed, 127 when it could not start). The first 4 KiB of stderr go to *stderrText.
int runAndWait(const QStringList &argv, QString *stderrText = nullptr);

// `cp -a <from>/. <to>/`; <to> is created first.
bool copyTreeContents(const QString &from, const QString &to, QString *error);

// Deletes a tree without following symlinks, making read-only directories writable first.
bool removeTree(const QString &path, QString *error);

// Closes every descriptor >= first (close_range, or /proc/self/fd as a fallback).
void closeDescriptorsFrom(int first);

} // namespace fakesbx
