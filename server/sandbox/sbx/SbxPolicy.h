#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace chat2sbx {

// One entry of `sbx policy log`: a host the proxy blocked or let through.
struct SbxPolicyLogEntry {
    QString sandbox;   // runtime name; empty when the output does not say
    QString host;      // as logged, often host:port
    bool blocked = false;
    QString reason;
    int count = 0;
    QString lastSeen;
};

// Argument lists of the `sbx policy` commands chat2sbx runs (sbx-contract.md, "Network policy and
// approvals"). An empty runtime name means a global rule.
QStringList policyAllowArgs(const QString &runtimeName, const QStringList &hosts);
QStringList policyRemoveArgs(const QString &runtimeName, const QString &host);
QStringList policyLogArgs(const QString &runtimeName, int limit);

// `sbx policy log --json` field names are not documented: reads a bare array or the first array
// member of an object, several plausible names per field, and falls back to the table text
// (SANDBOX HOST ... columns). Returns false when nothing could be read.
bool parsePolicyLog(const QByteArray &stdoutBytes, QList<SbxPolicyLogEntry> &out);

// An sbx host pattern chat2sbx accepts in a request: a host name or IPv4 address, optionally
// `*.`-prefixed, optionally `:port`. `**` (everything) is refused: an agent may not ask for it.
bool isRequestableHostPattern(const QString &pattern);

} // namespace chat2sbx
