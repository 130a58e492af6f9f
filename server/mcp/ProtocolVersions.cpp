#include "mcp/ProtocolVersions.h"

namespace chat2sbx::protocolversions {

const QStringList &legacy()
{
    static const QStringList versions = {QStringLiteral("2025-11-25"), QStringLiteral("2025-06-18"),
                                         QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")};
    return versions;
}

const QStringList &all()
{
    static const QStringList versions = QStringList{modern()} + legacy();
    return versions;
}

} // namespace chat2sbx::protocolversions
