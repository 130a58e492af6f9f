// `sbx --cloud ...` (reference/sbx-cloud.md): Docker's cloud sandboxes as a second store under
// $FAKE_SBX_STATE/cloud, separate from the local one ("A sandbox shown by `sbx ls` doesn't appear in
// `sbx --cloud ls`"). Sandboxes are addressed by their sbx_ id or their name; sizes, TTL with expiry
// and on-timeout, stop and resume, public port URLs, cp, diagnose, quota and "no plan" errors. See
// README.md, "Cloud sandboxes".
#pragma once

#include "Commands.h"

#include <QJsonArray>
#include <QStringList>

namespace fakesbx {

// The arguments after `--cloud` (the verb first). `exec` may replace the process.
int cmdCloud(const Context &ctx, const QStringList &args);

// A cloud listing as `ls`-like commands print it: the ids (-q), the table, or the JSON rows in the
// envelope FAKE_SBX_CLOUD_LS_SHAPE picks ({"<key>":[…]} by default, a bare array, {"items":[…]}).
int printCloudListing(const Context &ctx, bool quiet, bool json, const QJsonArray &rows, const QStringList &lines, const QString &key);

// The cloud side of `sbx move` (Move.cpp), each under the state lock it takes itself.
struct CloudSandboxView
{
    QString id;
    QString name;
    QString status;
    QString home;        // the sandbox's HOME folder in the fake's store
    int cpus = 0;
    int memoryMib = 0;
};
// By sbx_ id or name; false when the cloud has no such sandbox. Expired deadlines are acted on first.
bool cloudFind(const Context &ctx, const QString &ref, CloudSandboxView *out);
struct CloudReceive
{
    QString namePrefix;   // the destination gets "<prefix>-<4 hex>" (a cloud destination always has a suffix)
    int memoryMib = 0;    // 0: no limit recorded (the cloud's default size, with a warning)
    QString ttl;          // empty: the server's default (1 h)
    QString onTimeout;    // empty: stop where the account can, else the server's default (delete)
};
// A new cloud sandbox whose HOME is a copy of `fromHome`; returns 0 and fills `out`, or an exit code
// after printing the error. `warnings` gets what sbx warns about.
int cloudReceive(const Context &ctx, const QString &fromHome, const CloudReceive &spec, CloudSandboxView *out,
                 QStringList *warnings);
// Stops a cloud sandbox after a move to local, best effort: false (and a warning) when it cannot.
bool cloudStopAfterMove(const Context &ctx, const QString &id, QString *warning);
// Checks the flags' values before anything is captured: a size over xl, a TTL out of 15 s–24 h, an
// on-timeout the account refuses. Empty when fine, else the error (without "ERROR: ").
QString cloudMoveRefusal(const Context &ctx, const CloudReceive &spec);

} // namespace fakesbx
