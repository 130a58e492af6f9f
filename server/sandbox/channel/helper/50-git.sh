# ---- git: review and export of the workspace's changes (show_changes, export_changes) ----------------
# Every git call reads only, except objects written for the temporary index (git add) and the private
# ref refs/chat2sbx/export that a bundle needs; the sandbox's index, working tree and HEAD stay as they are.
EMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904
G() { timeout 50 git --no-optional-locks -c core.quotepath=off -c core.hooksPath=/dev/null -c gc.auto=0 "$@"; }

# The commit checked out when the sandbox's first helper started: what "since the sandbox started" means.
# "none" when the workspace was not a repository with a commit then (everything counts as new).
record_git_base() {
    [ -e "$STATE/git-base" ] && return 0
    local b=none
    if command -v git >/dev/null 2>&1 && [ -d "$WS" ]; then
        b=$(cd -- "$WS" && G rev-parse --verify -q HEAD 2>/dev/null) || b=none
        [ -n "$b" ] || b=none
    fi
    printf '%s\n' "$b" >"$STATE/git-base.tmp" && mv -f "$STATE/git-base.tmp" "$STATE/git-base"
}

# Sets GBASE (the base commit, or the empty tree when there is none usable) and GHEAD ("" when unborn);
# fails einval when the workspace is not a git repository.
git_enter() {
    if ! command -v git >/dev/null 2>&1; then fail einval "git is not installed in this sandbox"; return 1; fi
    cd -- "$WS" 2>/dev/null || { fail enoent "the workspace folder does not exist"; return 1; }
    local top
    if ! top=$(G rev-parse --show-toplevel 2>/dev/null); then
        fail einval "the workspace is not a git repository (run git init there to track changes)"; return 1
    fi
    cd -- "$top" || { fail eio "cannot enter the repository"; return 1; }
    GHEAD=$(G rev-parse --verify -q HEAD 2>/dev/null) || GHEAD=
    GBASE=
    [ -f "$STATE/git-base" ] && read -r GBASE <"$STATE/git-base"
    if [ -z "$GBASE" ] || [ "$GBASE" = none ] || ! G cat-file -e "$GBASE^{commit}" 2>/dev/null; then
        GBASE=$EMPTY_TREE
    fi
    meta top_is_workspace "$([ "$top" -ef "$WS" ] && echo 1 || echo 0)"
    return 0
}

# A temporary index holding the whole working state (staged, unstaged, untracked; ignored files left
# out): the real index is copied, never written. Sets TIDX.
git_snapshot_index() {
    local gd
    gd=$(G rev-parse --git-dir) || return 1
    TIDX="$RUN/$ID.index"
    if [ -f "$gd/index" ]; then cp -- "$gd/index" "$TIDX" || return 1; else rm -f -- "$TIDX"; fi
    GIT_INDEX_FILE=$TIDX G add -A -- . >/dev/null 2>&1
}

section() { # name file: "<name> <bytes>\n<bytes>" appended to $O
    local n=0
    [ -s "$2" ] && n=$(stat -c %s -- "$2")
    printf '%s %s\n' "$1" "$n" >>"$O"
    [ "$n" -gt 0 ] && cat -- "$2" >>"$O"
    return 0
}

op_git_changes() { # pathspec include_diff(0/1) max_diff_bytes max_commits
    local spec=${A[0]:-} want=${A[1]:-1} max=${A[2]:-60000} maxc=${A[3]:-200} range t
    [[ $max =~ ^[0-9]+$ ]] || max=60000
    [[ $maxc =~ ^[0-9]+$ ]] || maxc=200
    git_enter || return
    local ps=(-- .)
    [ -n "$spec" ] && ps=(-- "$spec")
    t="$RUN/$ID"
    : >"$t.commits"
    if [ -n "$GHEAD" ]; then
        if [ "$GBASE" = "$EMPTY_TREE" ]; then range=$GHEAD; else range="$GBASE..$GHEAD"; fi
        G log -z --format='%H%x09%s' -n $((maxc + 1)) "$range" >"$t.commits" 2>/dev/null
    fi
    git_snapshot_index || { fail eio "cannot read the repository state"; return; }
    GIT_INDEX_FILE=$TIDX G diff-index --cached --no-renames -z --numstat "$GBASE" "${ps[@]}" >"$t.numstat" 2>/dev/null
    GIT_INDEX_FILE=$TIDX G diff-index --cached --no-renames -z --name-status "$GBASE" "${ps[@]}" >"$t.status" 2>/dev/null
    : >"$t.committed"
    [ -n "$GHEAD" ] && G diff-tree -r --no-renames -z --name-only "$GBASE" "$GHEAD" "${ps[@]}" >"$t.committed" 2>/dev/null
    if [ -n "$GHEAD" ]; then G diff-index --cached --no-renames -z --name-only HEAD "${ps[@]}" >"$t.staged" 2>/dev/null
    else G diff-index --cached --no-renames -z --name-only "$EMPTY_TREE" "${ps[@]}" >"$t.staged" 2>/dev/null; fi
    G diff-files --no-renames -z --name-only "${ps[@]}" >"$t.unstaged" 2>/dev/null
    G ls-files -z --others --exclude-standard "${ps[@]}" >"$t.untracked" 2>/dev/null
    : >"$t.diff"
    if [ "$want" = 1 ]; then
        GIT_INDEX_FILE=$TIDX G diff-index --cached -p --no-renames --no-color --no-ext-diff "$GBASE" "${ps[@]}" 2>/dev/null |
            head -c $((max + 1)) >"$t.diff"
    fi
    meta head "${GHEAD:-none}"
    meta base "$([ "$GBASE" = "$EMPTY_TREE" ] && echo none || echo "$GBASE")"
    local br
    br=$(G symbolic-ref -q --short HEAD 2>/dev/null) || br=
    br=${br//[$' ;\n=']/_}
    meta branch "${br:0:200}"
    section commits "$t.commits"; section numstat "$t.numstat"; section status "$t.status"
    section committed "$t.committed"; section staged "$t.staged"; section unstaged "$t.unstaged"
    section untracked "$t.untracked"; section patch "$t.diff"
    rm -f -- "$t".commits "$t".numstat "$t".status "$t".committed "$t".staged "$t".unstaged "$t".untracked "$t".diff "$TIDX"
}

op_git_bundle() { # max_bytes
    local max=${A[0]:-67108864} tree headtree tip b msg
    [[ $max =~ ^[0-9]+$ ]] || max=67108864
    git_enter || return
    git_snapshot_index || { fail eio "cannot read the repository state"; return; }
    tree=$(GIT_INDEX_FILE=$TIDX G write-tree) || { rm -f -- "$TIDX"; fail eio "git write-tree failed"; return; }
    rm -f -- "$TIDX"
    headtree=$EMPTY_TREE
    [ -n "$GHEAD" ] && headtree=$(G rev-parse "$GHEAD^{tree}")
    tip=$GHEAD
    if [ "$tree" != "$headtree" ]; then
        msg="chat2sbx: uncommitted changes of the sandbox (staged, unstaged and untracked files)"
        # Dated like HEAD, so the same state always gives the same commit.
        local d
        d=$([ -n "$GHEAD" ] && G log -1 --format=%cI "$GHEAD" || echo "2000-01-01T00:00:00Z")
        if [ -n "$GHEAD" ]; then
            tip=$(GIT_AUTHOR_NAME=chat2sbx GIT_AUTHOR_EMAIL=chat2sbx@localhost GIT_COMMITTER_NAME=chat2sbx \
                GIT_COMMITTER_EMAIL=chat2sbx@localhost GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d \
                G commit-tree "$tree" -p "$GHEAD" -m "$msg") || { fail eio "git commit-tree failed"; return; }
        else
            tip=$(GIT_AUTHOR_NAME=chat2sbx GIT_AUTHOR_EMAIL=chat2sbx@localhost GIT_COMMITTER_NAME=chat2sbx \
                GIT_COMMITTER_EMAIL=chat2sbx@localhost GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d \
                G commit-tree "$tree" -m "$msg") || { fail eio "git commit-tree failed"; return; }
        fi
        meta uncommitted 1
    else
        meta uncommitted 0
    fi
    meta head "${GHEAD:-none}"
    meta base "$([ "$GBASE" = "$EMPTY_TREE" ] && echo none || echo "$GBASE")"
    if [ -z "$tip" ]; then meta nothing 1; return; fi
    meta tip "$tip"
    if [ "$tip" = "$GBASE" ]; then meta nothing 1; return; fi
    G update-ref refs/chat2sbx/export "$tip" || { fail eio "cannot record the export ref"; return; }
    b="$RUN/$ID.bundle"
    local excl=()
    if [ "$GBASE" != "$EMPTY_TREE" ] && G merge-base --is-ancestor "$GBASE" "$tip" 2>/dev/null; then excl=("^$GBASE"); fi
    if ! G bundle create "$b" refs/chat2sbx/export "${excl[@]}" >/dev/null 2>"$b.err"; then
        fail eio "git bundle failed: $(head -c 300 "$b.err")"; rm -f -- "$b" "$b.err"; return
    fi
    rm -f -- "$b.err"
    if [ "$(stat -c %s -- "$b")" -gt "$max" ]; then
        fail efbig "the changes are larger than $max bytes as a git bundle"; rm -f -- "$b"; return
    fi
    meta bytes "$(stat -c %s -- "$b")"
    cat -- "$b" >"$O"
    rm -f -- "$b"
}
