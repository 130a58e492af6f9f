#pragma once

#include <QString>
#include <QStringList>

namespace chat2sbx::protocolversions {

// The MCP revisions chat2sbx serves. Modern (2026-07-28): no handshake, every request carries its
// version, client and capabilities in params._meta and is served statelessly. Legacy (2025-11-25 and
// earlier): an `initialize` opens an Mcp-Session-Id session (reference/mcp.md §5).
inline const QString &modern()
{
    static const QString version = QStringLiteral("2026-07-28");
    return version;
}

// Newest first: what `initialize` negotiates among.
const QStringList &legacy();
// Every version, modern first: server/discover's supportedVersions and -32022's data.supported.
const QStringList &all();

inline bool isLegacy(const QString &version) { return legacy().contains(version); }
inline bool isModern(const QString &version) { return version == modern(); }

} // namespace chat2sbx::protocolversions
