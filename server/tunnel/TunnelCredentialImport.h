#pragma once

#include <QString>

#include <functional>

namespace chat2sbx {

struct Config;

// The tray guide's "Choose the tunnel files": the tunnel id and key files the user picked, checked,
// then stored where the server reads them (TunnelCredentials::load):
//  - the files in Config::secretDir come first: when they exist they are replaced (the user chose
//    new credentials), written whole (temporary file, then rename), readable by the user only;
//  - else the OS keychain where there is one (written, then read back and compared);
//  - else (no keychain, or it refused) copied into Config::secretDir, with the reason.
// The two files may come in either order (the one holding a tunnel id is the id). The picked files
// are left as they are. The key is never in a message. `done` runs once, later.
struct TunnelImportOutcome {
    bool ok = false;
    QString tunnelId;
    QString storedIn;   // "the OS keychain" or the secret directory
    QString note;       // why not the keychain, when it was not used (may be empty)
    QString error;      // one sentence; nothing was stored
};

void importTunnelCredentials(const Config &config, const QString &fileA, const QString &fileB,
                             std::function<void(const TunnelImportOutcome &)> done);

} // namespace chat2sbx
