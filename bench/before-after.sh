#!/usr/bin/env bash
# Before and after on one machine in one run (issue 61's "must show"): builds the chat2sbx of REV
# (default db4ceb6, the commit issue 61 measured) in a worktree under build/, lends that build this
# tree's fake sbx and load generator (the same fake for both), then runs the series for REV and for
# this tree in turn, ROUNDS times, and prints issue 61's figures side by side. Each run also writes
# its results file (bench/results/), which names the commit whose chat2sbx it measured.
#   bench/before-after.sh [REV] [series, default sandbox,scale,list]
# Env: ROUNDS (default 2), JOBS (default 2), SKIP_BUILD=1 (this tree's release build as it is).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
top="$(dirname "$here")"
rev="${1:-db4ceb6}"
which="${2:-sandbox,scale,list}"
after="$top/build/release"
tree="$top/build/before-$rev"
before="$tree/build/release"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  [[ -f "$after/CMakeCache.txt" ]] || (cd "$top" && cmake --preset release -DCHAT2SBX_BUILD_BENCH=ON >/dev/null)
  cmake --build "$after" -j"${JOBS:-2}" --target chat2sbx fake_sbx chat2sbx-loadgen
fi
if [[ ! -d "$tree" ]]; then
  git -C "$top" worktree add --detach "$tree" "$rev"
fi
if [[ ! -x "$before/app/chat2sbx" ]]; then
  (cd "$tree" && cmake --preset release -DCHAT2SBX_BUILD_TESTS=OFF -DCHAT2SBX_BUILD_BENCH=OFF >/dev/null)
  cmake --build "$before" -j"${JOBS:-2}" --target chat2sbx
fi
mkdir -p "$before/fakes/sbx" "$before/bench"
ln -sfn "$after/fakes/sbx/sbx" "$before/fakes/sbx/sbx"
ln -sfn "$after/bench/chat2sbx-loadgen" "$before/bench/chat2sbx-loadgen"

# A run starts once the one before it has ended on the machine too: the 1,000 sandboxes of a scale
# series end over a minute or two (load average 49 at the next start), which the next run would pay.
wait_quiet() {
  local i
  for ((i = 0; i < 180; i++)); do
    awk '{ exit !($1 < 2.0) }' /proc/loadavg && return 0
    sleep 1
  done
}

mkdir -p "$here/results"
files=()
for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
  for build in "$before" "$after"; do
    wait_quiet
    out="$here/results/$(date -u +%Y-%m-%dT%H%M%SZ).json"
    echo "before-after: round $round, $build ($(uptime))" >&2
    python3 "$here/bench.py" "$which" --build "$build" --out "$out" >/dev/null
    files+=("$out")
  done
done
python3 "$here/bench.py" compare "${files[@]}"
