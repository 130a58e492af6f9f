#!/usr/bin/env bash
# Runs every chat2sbx benchmark (bench/README.md): builds what it needs in the release tree
# (chat2sbx, the fake sbx, chat2sbx-loadgen), installs the SDK reference server's pinned modules
# with npm ci, runs bench/bench.py all and writes bench/results/<UTC date-time>.json. The lean
# client series needs wrk (Debian's package of that name).
#   bench/run.sh [--quick] [all | mcp,sandbox,stream,memory,scale,list,create (any comma-separated subset)]
# Env: BUILD_DIR (default build/release), JOBS (default 2), SKIP_BUILD=1, SKIP_NPM=1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
top="$(dirname "$here")"
build="${BUILD_DIR:-$top/build/release}"
quick=()
which=all
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    *) which="$a" ;;
  esac
done

# The mcp series' lean client is what the performance goals are stated in: without wrk there is no
# run (a partial one would read as the goals' numbers).
if [[ ",$which," == *,all,* || ",$which," == *,mcp,* ]] && ! command -v wrk >/dev/null 2>&1; then
  echo "bench: wrk is not installed (the mcp series' lean client needs it): installers/deps.sh --bench installs it" >&2
  exit 1
fi

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    (cd "$top" && cmake --preset release -DCHAT2SBX_BUILD_BENCH=ON)
  fi
  cmake --build "$build" -j"${JOBS:-2}" --target chat2sbx fake_sbx chat2sbx-loadgen
fi
if [[ "${SKIP_NPM:-0}" != 1 ]]; then
  (cd "$here/sdk-server" && npm ci --no-audit --no-fund --loglevel=error)
fi


mkdir -p "$here/results"
out="$here/results/$(date -u +%Y-%m-%dT%H%MZ).json"
echo "load before: $(uptime)" >&2
python3 "$here/bench.py" "$which" --build "$build" --out "$out" "${quick[@]}"
echo "load after: $(uptime)" >&2
echo "results: $out" >&2
