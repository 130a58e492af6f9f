# ---- git: a clone's whole state for a checkpoint, and putting it back ---------------------------------
# git_save packs what a clone sandbox holds and a VM template may not: HEAD (its branch, or the commit
# when detached), every local branch, the index and the working tree (untracked files too; ignored
# files are left out). The index becomes a commit whose parent is HEAD, the working tree one whose
# parent is that; the bundle carries them under refs/chat2sbx/ckp with the branches, less what the
# sandbox started from (the host repository has that). The sandbox's index, working tree, HEAD and
# branches stay as they are. git_put_back makes a clone (a fresh one) exactly that again.

# "<n>\n<refs list, n bytes><bundle>": the refs list is "HEAD <ref | commit>\n", then "<commit> <ref>\n"
# per local branch.
op_git_save() { # max_bytes
    local max=${A[0]:-20971520} t gd itree wtree icommit wcommit br b n excl=()
    [[ $max =~ ^[0-9]+$ ]] || max=20971520
    git_enter || return
    t="$RUN/$ID"
    gd=$(G rev-parse --git-dir) || { fail eio "cannot read the repository state"; return; }
    # write-tree may rewrite the index it reads (its cache): it reads a copy.
    if [ -f "$gd/index" ]; then cp -- "$gd/index" "$t.ridx" || { fail eio "cannot copy the index"; return; }; else rm -f -- "$t.ridx"; fi
    if ! itree=$(GIT_INDEX_FILE=$t.ridx G write-tree 2>/dev/null); then
        rm -f -- "$t.ridx"; fail einval "the index has unresolved merge conflicts: resolve or abort the merge first"; return
    fi
    rm -f -- "$t.ridx"
    git_snapshot_index || { fail eio "cannot read the repository state"; return; }
    wtree=$(GIT_INDEX_FILE=$TIDX G write-tree) || { rm -f -- "$TIDX"; fail eio "git write-tree failed"; return; }
    rm -f -- "$TIDX"
    export GIT_AUTHOR_NAME=chat2sbx GIT_AUTHOR_EMAIL=chat2sbx@localhost GIT_COMMITTER_NAME=chat2sbx \
        GIT_COMMITTER_EMAIL=chat2sbx@localhost GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z
    if [ -n "$GHEAD" ]; then
        icommit=$(G commit-tree "$itree" -p "$GHEAD" -m "chat2sbx checkpoint: the index") || { fail eio "git commit-tree failed"; return; }
    else
        icommit=$(G commit-tree "$itree" -m "chat2sbx checkpoint: the index") || { fail eio "git commit-tree failed"; return; }
    fi
    wcommit=$(G commit-tree "$wtree" -p "$icommit" -m "chat2sbx checkpoint: the working tree") || { fail eio "git commit-tree failed"; return; }
    br=$(G symbolic-ref -q HEAD 2>/dev/null) || br=
    { if [ -n "$br" ]; then printf 'HEAD %s\n' "$br"; else printf 'HEAD %s\n' "$GHEAD"; fi
      G for-each-ref --count=1000 --format='%(objectname) %(refname)' refs/heads/; } >"$t.refs"
    G update-ref refs/chat2sbx/ckp "$wcommit" || { fail eio "cannot record the checkpoint ref"; return; }
    [ "$GBASE" != "$EMPTY_TREE" ] && excl=("^$GBASE")
    b="$t.bundle"
    if ! G bundle create "$b" refs/chat2sbx/ckp --branches "${excl[@]}" >/dev/null 2>"$b.err"; then
        G update-ref -d refs/chat2sbx/ckp
        fail eio "git bundle failed: $(head -c 300 "$b.err")"; rm -f -- "$b" "$b.err" "$t.refs"; return
    fi
    G update-ref -d refs/chat2sbx/ckp
    rm -f -- "$b.err"
    if [ "$(stat -c %s -- "$b")" -gt "$max" ]; then
        fail efbig "the clone's work is larger than $max bytes as a git bundle"; rm -f -- "$b" "$t.refs"; return
    fi
    n=$(stat -c %s -- "$t.refs")
    meta work "$wcommit"
    meta head "${GHEAD:-none}"
    meta base "$([ "$GBASE" = "$EMPTY_TREE" ] && echo none || echo "$GBASE")"
    { printf '%s\n' "$n"; cat -- "$t.refs" "$b"; } >"$O"
    rm -f -- "$b" "$t.refs"
}

op_git_put_back() { # refs list, bundle (last)
    local t sha ref head work index r keep
    git_enter || return
    t="$RUN/$ID"
    printf '%s' "${A[0]:-}" >"$t.refs"
    argfile 2 "$t.bundle"
    if ! G bundle verify "$t.bundle" >/dev/null 2>"$t.err"; then
        fail einval "the clone lacks what the checkpoint builds on (the host repository no longer has the commit the sandbox started from?): $(head -c 300 "$t.err")"
        rm -f -- "$t.refs" "$t.bundle" "$t.err"; return
    fi
    if ! G fetch --quiet --no-tags --no-write-fetch-head "$t.bundle" '+refs/*:refs/chat2sbx/put-back/*' 2>"$t.err"; then
        fail eio "git fetch of the checkpoint failed: $(head -c 300 "$t.err")"; rm -f -- "$t.refs" "$t.bundle" "$t.err"; return
    fi
    rm -f -- "$t.bundle" "$t.err"
    work=$(G rev-parse --verify -q "refs/chat2sbx/put-back/chat2sbx/ckp^{commit}") || { fail einval "the checkpoint holds no working tree"; return; }
    index=$(G rev-parse --verify -q "$work^1") || { fail einval "the checkpoint holds no index"; return; }
    head=
    keep=" "
    while IFS=' ' read -r sha ref; do
        if [ "$sha" = HEAD ]; then head=$ref; continue; fi
        [[ $sha =~ ^[0-9a-f]{40,64}$ && $ref == refs/heads/* ]] || continue
        G check-ref-format "$ref" || continue
        G update-ref "$ref" "$sha" || { fail eio "cannot set $ref"; return; }
        keep+="$ref "
    done <"$t.refs"
    rm -f -- "$t.refs"
    # The working tree as it was (checkout -f then clean: files the checkpoint did not have go), the
    # index as it was (read-tree of the index commit leaves the files alone), then HEAD.
    G checkout -q -f --detach "$work" 2>"$t.err" || { fail eio "git checkout failed: $(head -c 300 "$t.err")"; rm -f -- "$t.err"; return; }
    G clean -fdq >/dev/null 2>&1
    G read-tree "$index" || { fail eio "git read-tree failed"; return; }
    while IFS= read -r r; do
        [[ $keep == *" $r "* ]] || G update-ref -d "$r"
    done < <(G for-each-ref --format='%(refname)' refs/heads/)
    case $head in
        refs/heads/*) G symbolic-ref HEAD "$head" || { fail eio "cannot set HEAD"; return; } ;;
        *) [[ $head =~ ^[0-9a-f]{40,64}$ ]] && { G update-ref --no-deref HEAD "$head" || { fail eio "cannot set HEAD"; return; }; } ;;
    esac
    while IFS= read -r r; do G update-ref -d "$r"; done < <(G for-each-ref --format='%(refname)' refs/chat2sbx/put-back/)
    rm -f -- "$t.err"
    meta work "$work"
}
