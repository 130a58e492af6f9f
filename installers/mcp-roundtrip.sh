#!/usr/bin/env bash
# One MCP Streamable HTTP round trip against a running server, with curl and jq:
#   installers/mcp-roundtrip.sh http://127.0.0.1:<port>/mcp [tool-name...]
# initialize (expects 200, a result with protocolVersion/capabilities.tools/serverInfo and an
# Mcp-Session-Id header), notifications/initialized (expects 202), tools/list (expects 200 and a
# non-empty tools array whose entries have a name and an object inputSchema, including every
# tool-name given). Responses may be JSON or SSE. Exit 0 on success, 1 otherwise.
set -euo pipefail
url=${1:?usage: mcp-roundtrip.sh <mcp-url> [tool-name...]}
shift
required_tools=("$@")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chat2sbx-mcp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() {
  printf 'FAIL: %s\n' "$*" >&2
  exit 1
}

protocol=2025-06-18
session=
# post <json>: sets http_code and body (the JSON-RPC message, unwrapped from SSE if needed)
post() {
  local args=(-sS -X POST -H 'Content-Type: application/json'
              -H 'Accept: application/json, text/event-stream'
              -D "$tmp/headers" -o "$tmp/body" -w '%{http_code}' --max-time 20 --data "$1")
  if [[ -n $session ]]; then args+=(-H "Mcp-Session-Id: $session" -H "MCP-Protocol-Version: $protocol"); fi
  http_code=$(curl "${args[@]}" "$url" 2>"$tmp/curl.err") || true
  [[ $http_code != 000 && -n $http_code ]] || fail "cannot reach $url: $(cat "$tmp/curl.err")"
  if grep -qi '^content-type: *text/event-stream' "$tmp/headers"; then
    body=$(sed -n 's/^data: *//p' "$tmp/body" | grep '"id"' | tail -n 1 || true)
  else
    body=$(cat "$tmp/body")
  fi
}

post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"'$protocol'","capabilities":{},"clientInfo":{"name":"chat2sbx-package-test","version":"1"}}}'
[[ $http_code == 200 ]] || fail "initialize: HTTP $http_code: $(cat "$tmp/body")"
jq -e '.jsonrpc == "2.0" and .id == 1 and (.result.protocolVersion | type == "string")
       and (.result.capabilities.tools != null) and (.result.serverInfo.name | type == "string")' \
  <<<"$body" >/dev/null || fail "initialize result: $body"
protocol=$(jq -r .result.protocolVersion <<<"$body")
session=$(sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *\([^[:space:]]*\).*/\1/p' "$tmp/headers" | tr -d '\r')
[[ -n $session ]] || fail "initialize response has no Mcp-Session-Id header"
echo "initialize: protocol $protocol, server $(jq -c .result.serverInfo <<<"$body")"

post '{"jsonrpc":"2.0","method":"notifications/initialized"}'
[[ $http_code == 202 ]] || fail "notifications/initialized: HTTP $http_code (expected 202)"

post '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
[[ $http_code == 200 ]] || fail "tools/list: HTTP $http_code: $(cat "$tmp/body")"
jq -e '.id == 2 and (.result.tools | type == "array" and length > 0)
       and all(.result.tools[]; (.name | type == "string") and (.inputSchema.type == "object"))' \
  <<<"$body" >/dev/null || fail "tools/list result: $body"
echo "tools/list: $(jq '.result.tools | length' <<<"$body") tools: $(jq -r '[.result.tools[].name] | join(", ")' <<<"$body")"
for tool in "${required_tools[@]}"; do
  jq -e --arg t "$tool" 'any(.result.tools[]; .name == $t)' <<<"$body" >/dev/null || fail "tools/list lacks $tool"
done
