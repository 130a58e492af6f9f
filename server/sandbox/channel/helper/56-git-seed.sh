# ---- git: the clone workspace of a cloud sandbox ------------------------------------------------------
# A cloud VM has no host mount, so `sbx --clone` cannot make its clone: the host sends the approved
# repository's checked-out commit with its history as a git bundle, and git_seed makes the (empty)
# workspace a clone at that commit, on the host's branch name (detached when it has none). That commit
# becomes the base "since the sandbox started" of show_changes and export_changes. Seeding the same
# commit again (a create retried) changes nothing.
op_git_seed() { # commit, branch ("" = detached), bundle (last)
    local commit=${A[0]:-} branch=${A[1]:-} t got seeded=
    if ! [[ $commit =~ ^[0-9a-f]{40,64}$ ]]; then fail einval "bad commit id"; return; fi
    if ! command -v git >/dev/null 2>&1; then fail einval "git is not installed in this sandbox"; return; fi
    cd -- "$WS" 2>/dev/null || { fail enoent "the workspace folder does not exist"; return; }
    [ -f "$STATE/git-seeded" ] && read -r seeded <"$STATE/git-seeded"
    if [ "$seeded" = "$commit" ]; then meta head "$commit"; return; fi
    if (shopt -s nullglob dotglob; e=(./*); ((${#e[@]} > 0))); then
        fail eexist "the workspace is not empty: a clone goes only into an empty one"; return
    fi
    t="$RUN/$ID"
    argfile 3 "$t.bundle"
    if ! G init -q . 2>"$t.err" ||
        ! G fetch --quiet --no-tags --no-write-fetch-head "$t.bundle" '+HEAD:refs/chat2sbx/seed' 2>>"$t.err"; then
        fail eio "git could not take the repository in: $(head -c 300 "$t.err")"; rm -rf -- .git "$t.bundle" "$t.err"; return
    fi
    rm -f -- "$t.bundle"
    got=$(G rev-parse --verify -q 'refs/chat2sbx/seed^{commit}') || got=
    if [ "$got" != "$commit" ]; then fail einval "the bundle does not hold commit $commit"; rm -rf -- .git "$t.err"; return; fi
    if [ -n "$branch" ] && G check-ref-format --branch "$branch" >/dev/null 2>&1; then
        G checkout -q -B "$branch" "$commit" 2>"$t.err"
    else
        G checkout -q --detach "$commit" 2>"$t.err"
    fi || { fail eio "git checkout failed: $(head -c 300 "$t.err")"; rm -f -- "$t.err"; return; }
    G update-ref -d refs/chat2sbx/seed
    rm -f -- "$t.err"
    printf '%s\n' "$commit" >"$STATE/git-base.tmp" && mv -f -- "$STATE/git-base.tmp" "$STATE/git-base"
    printf '%s\n' "$commit" >"$STATE/git-seeded"
    meta head "$commit"
}
