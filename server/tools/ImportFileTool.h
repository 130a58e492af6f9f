#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

namespace chat2sbx {

class ChannelPool;
class SandboxResolver;
class ToolRegistry;

struct ImportFileOptions {
    QStringList allowedHosts;   // FileHostPatterns: "host", "host:port", "*.domain", "prefix*.domain"
    qint64 maxBytes = 64LL * 1024 * 1024;
    QString extraCaFile;        // tests only: a CA certificate trusted besides the system ones
};

// import_file: downloads a file the user attached in ChatGPT (https, allow-listed hosts, redirects
// checked, size-capped), streaming it into the sandbox's workspace (ImportStream) without
// overwriting anything.
void registerImportFileTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels,
                            const ImportFileOptions &options);

// Whether `url` may be downloaded under `allowedHosts` (https only).
bool importUrlAllowed(const QStringList &allowedHosts, const QUrl &url, QString &why);

} // namespace chat2sbx
