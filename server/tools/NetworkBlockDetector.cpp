#include "tools/NetworkBlockDetector.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace chat2sbx {
namespace {

constexpr int kMaxHosts = 10;
// Only the tail is searched: the block is what ended the command, and the scan stays bounded.
constexpr qsizetype kScanChars = 256 * 1024;

// "example.com:443" → "example.com" (a rule without a port covers every port); other ports stay.
QString suggestion(QString host)
{
    while (host.endsWith(QLatin1Char('.')))
        host.chop(1);
    host = host.toLower();
    if (host.endsWith(QLatin1String(":443")) || host.endsWith(QLatin1String(":80")))
        host = host.left(host.lastIndexOf(QLatin1Char(':')));
    return host;
}

void collect(const QString &text, const QRegularExpression &re, QStringList &hosts)
{
    QRegularExpressionMatchIterator it = re.globalMatch(text);
    while (it.hasNext() && hosts.size() < kMaxHosts) {
        const QString h = suggestion(it.next().captured(1));
        if (!h.isEmpty() && h.size() <= 253 && !hosts.contains(h))
            hosts << h;
    }
}

} // namespace

std::optional<NetworkBlock> detectNetworkBlock(const QString &output)
{
    const QString text = output.size() > kScanChars ? output.right(kScanChars) : output;
    static const QRegularExpression policy(QStringLiteral("Blocked by network policy: domain ([A-Za-z0-9.*:\\[\\]-]+)"));
    static const QRegularExpression localRule(QStringLiteral("Blocked by local rule for ([A-Za-z0-9.*:\\[\\]-]+)"));
    static const QRegularExpression approval(QStringLiteral("Approval required for ([A-Za-z0-9.*:\\[\\]-]+)"));
    static const QRegularExpression resolve(QStringLiteral("Could not resolve host: ([A-Za-z0-9.-]+)"));
    NetworkBlock block;
    collect(text, policy, block.hosts);
    collect(text, approval, block.hosts);
    collect(text, localRule, block.hosts);
    const bool strong = !block.hosts.isEmpty() || text.contains(QLatin1String("Blocked by network policy"))
                        || text.contains(QLatin1String("Blocked by org policy"))
                        || text.contains(QLatin1String("CONNECT tunnel failed, response 403"));
    if (!strong) {
        collect(text, resolve, block.hosts);
        if (block.hosts.isEmpty())
            return std::nullopt;
        block.weak = true;
    }
    const QString which = block.hosts.isEmpty() ? QStringLiteral("the hosts the command needs")
                                                : QStringLiteral("hosts %1").arg(block.hosts.join(QStringLiteral(", ")));
    if (block.weak)
        block.hint = QStringLiteral("The command could not resolve %1. If the name is right, the sandbox's network policy "
                                    "may be blocking it: call network_request with this sandbox_id, %2 and a short reason, "
                                    "and run the command again once the user allows it.")
                         .arg(block.hosts.join(QStringLiteral(", ")), which);
    else
        block.hint = QStringLiteral("The sandbox's network policy blocked this request. Call network_request with this "
                                    "sandbox_id, %1 and a short reason; the user decides, then run the command again.")
                         .arg(which);
    return block;
}

QJsonObject networkBlockJson(const NetworkBlock &block)
{
    return {{QStringLiteral("hosts"), QJsonArray::fromStringList(block.hosts)}, {QStringLiteral("hint"), block.hint}};
}

} // namespace chat2sbx
