#!/usr/bin/env bash
# ctest lint.shellcheck: shellcheck (bash, every severity) over the scripts given; its findings are the
# test's output. The in-sandbox helper's parts follow --parts: a part assigns globals that later parts
# read, so "assigned but never used" (SC2034) is left to the joined helper, which follows --whole
# with the other complete scripts.
set -euo pipefail
if ! command -v shellcheck >/dev/null 2>&1; then
  echo "FAIL: shellcheck is not installed (installers/deps.sh --test installs it)" >&2
  exit 1
fi
parts=()
whole=()
into=whole
for arg in "$@"; do
  case $arg in
    --parts) into=parts ;;
    --whole) into=whole ;;
    *) if [[ $into == parts ]]; then parts+=("$arg"); else whole+=("$arg"); fi ;;
  esac
done
((${#parts[@]} > 0 && ${#whole[@]} > 0)) || { echo "usage: shellcheck.sh --parts <part>... --whole <script>..." >&2; exit 2; }
status=0
shellcheck --shell=bash --exclude=SC2034 "${parts[@]}" || status=1
shellcheck --shell=bash "${whole[@]}" || status=1
echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p'): ${#parts[@]} helper parts and ${#whole[@]} scripts," \
  "$([[ $status == 0 ]] && echo clean || echo 'findings above')"
exit "$status"
