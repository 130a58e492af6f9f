#pragma once

#include <QByteArray>
#include <QJsonObject>

namespace chat2sbx {

// What chat2sbx says about itself: identity, capabilities and instructions, for `initialize`
// (legacy) and `server/discover` (modern), and the fields the 2026-07-28 revision adds to results.
namespace serverdescription {

QJsonObject serverInfo();
// Legacy sessions also have logging/setLevel; the modern revision removed it.
QJsonObject capabilities(bool modern);
// The InitializeResult for `negotiatedVersion`.
QJsonObject initializeResult(const QString &negotiatedVersion);
// The DiscoverResult (server/discover.mdx): supported versions (modern first), capabilities,
// instructions; the modern stamps are added by stampModern().
QJsonObject discoverResult();

// How long a client may reuse a list or read result (SEP-2549): these change only when chat2sbx is
// upgraded or reconfigured, which restarts it; they hold nothing of one user that another must not see,
// but nothing here is meant for shared caches either.
constexpr int kCacheTtlMs = 5 * 60 * 1000;
// Adds ttlMs and cacheScope to a cacheable result (tools/list, prompts/list, resources/list,
// resources/templates/list, resources/read, server/discover).
void addCacheHints(QJsonObject &result);
// What every modern result carries: resultType "complete" and _meta's serverInfo (kept beside any
// _meta the result has).
void stampModern(QJsonObject &result);
// The same for a result already serialized as one JSON object without a top-level _meta or
// resultType (the cached tools/list), plus the cache hints.
QByteArray stampModernCacheable(const QByteArray &resultJson);
// The members a tool result's _meta gets in the modern era ("io.modelcontextprotocol/serverInfo":{...}),
// serialized without braces, for results written as text (ToolCallRunner).
const QByteArray &modernMetaMembers();

} // namespace serverdescription
} // namespace chat2sbx
