#!/usr/bin/env bash
# Self-test of the fake sbx. Usage: selftest.sh /path/to/sbx   (KEEP=1 keeps the work folder)
# Exercises every command and every fault; exits non-zero on the first mismatch.
# Needs bash, coreutils, python3 (JSON checks, and an HTTP server inside a sandbox), curl.
set -u
BIN=${1:?usage: selftest.sh /path/to/sbx}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[ -x "$BIN" ] || { echo "FAIL: $BIN is not executable" >&2; exit 1; }
WORK=$(mktemp -d /tmp/fakesbx-selftest.XXXXXX)
for v in $(compgen -e); do case $v in FAKE_SBX_*) unset "$v";; esac; done
export FAKE_SBX_STATE=$WORK/state
# The older sections below test one command at a time: no auto-stop, no daemon start-up text.
# The "contract behaviours" section at the end switches both on.
export FAKE_SBX_IDLE_STOP_MS=off FAKE_SBX_DAEMON_NOTICE=off
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# Debian's python3, which deps.sh installs: a version manager's shim first on PATH (pyenv's here)
# costs about 0.4 s a call, and these scripts call it a hundred times.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
ST=$FAKE_SBX_STATE
SBXS=$ST/sandboxes
WS=$WORK/ws
mkdir -p "$WS/sub"
echo original > "$WS/file.txt"
echo kept > "$WS/sub/keep"
git -C "$WS" init -q && git -C "$WS" add -A && git -C "$WS" -c user.name=t -c user.email=t@t commit -qm init \
  || { echo "FAIL: git init of the workspace" >&2; exit 1; }

cleanup() {
  # Kill whatever the sandboxes left running (detached sleeps, servers, port forwarders).
  if [ -d "$SBXS" ]; then
    for d in "$SBXS"/*/; do [ -d "$d" ] && "$BIN" rm --force "$(basename "$d")" >/dev/null 2>&1; done
  fi
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT

PASS=0
OUT= ERR= RC=
fail() {
  echo "FAIL: $*" >&2
  echo "  rc=$RC" >&2
  printf '%s\n' "$OUT" | sed 's/^/  stdout| /' >&2
  printf '%s\n' "$ERR" | sed 's/^/  stderr| /' >&2
  exit 1
}
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
# run CMD...: sets OUT, ERR (trailing newlines stripped) and RC
run() { OUT=$("$@" 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err"); }
sbx() { run "$BIN" "$@"; }
want_rc() { [ "$RC" = "$1" ] || fail "$2: want exit $1"; }
want_out() { [ "$OUT" = "$1" ] || fail "$2: want stdout '$1'"; }
want_err() { [ "$ERR" = "$1" ] || fail "$2: want stderr '$1'"; }
one_line_err() { [ -n "$ERR" ] && [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "$1: want one stderr line"; }
# jtrue PYEXPR: J is the JSON of $OUT
jtrue() { "$PY" -c 'import json,sys; J=json.loads(sys.stdin.read()); sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" <<<"$OUT"; }
jget() { "$PY" -c 'import json,sys; J=json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' "$1" <<<"$OUT"; }
# meta NAME PYEXPR: M is meta.json of sandbox NAME
meta() {  # meta NAME PYEXPR [ARGS...]: M is meta.json of sandbox NAME, ARGS are sys.argv[3:]
  local name=$1 expr=$2; shift 2
  "$PY" -c 'import json,sys; M=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$SBXS/$name/meta.json" "$expr" "$@"
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
wait_until() {  # wait_until SECONDS CMD...
  local deadline=$(( $(now_ms) + $1 * 1000 )); shift
  until "$@"; do [ "$(now_ms)" -ge "$deadline" ] && return 1; sleep 0.05; done
}
# gone PID: no such process, or a zombie nobody reaps
gone() { [ ! -e "/proc/$1" ] || [ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]; }
alive() { ! gone "$1"; }
port_closed() { ! curl -s -m 1 -o /dev/null "http://127.0.0.1:$1/"; }
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# ---------------------------------------------------------------- basics, usage
run env -u FAKE_SBX_STATE "$BIN" version
want_rc 2 "no state"; want_err "fake sbx: FAKE_SBX_STATE is not set" "no state"; ok "FAKE_SBX_STATE required"

sbx version
want_rc 0 version; want_out "sbx version v0.47.0 (fake: chat2sbx test double)" version; ok version

for cmd in "" "bogus" "ls" "template" "template ls" "template rm" "template rm a b" "exec" "exec aa" "ports aa" \
           "rm aa" "version extra" "ls --json extra" "ports aa --json --publish 0.0.0.0:0:1/tcp4"; do
  read -ra A <<<"$cmd"
  sbx "${A[@]}"
  want_rc 2 "usage '$cmd'"; [ -n "$ERR" ] || fail "usage '$cmd': stderr empty"
done
ok "usage errors exit 2"

# ---------------------------------------------------------------- templates
sbx template ls --json
want_rc 0 "template ls"; jtrue 'J == {"images": []}' || fail "template ls empty"; ok "template ls (empty)"
FAKE_SBX_TEMPLATES="chat2sbx-shell:1.0.0, docker.io/library/other:2" sbx template ls --json
jtrue '[(i["repository"], i["tag"]) for i in J["images"]] == [("chat2sbx-shell","1.0.0"),("docker.io/library/other","2")] and all({"id","repository","tag","flavor","created_at","size"} <= set(i) for i in J["images"])' \
  || fail "FAKE_SBX_TEMPLATES"; ok "template ls lists FAKE_SBX_TEMPLATES verbatim"

# ---------------------------------------------------------------- create: validation
sbx create --quiet --name v1 --bogus shell "$WS"; want_rc 1 "unknown flag"; one_line_err "unknown flag"
sbx create --quiet shell "$WS"; want_rc 1 "no name"; one_line_err "no name"
sbx create --quiet --name v1 claude "$WS"; want_rc 1 "agent kind"; one_line_err "agent kind"
sbx create --quiet --name v1 shell "$WORK/does-not-exist"; want_rc 1 "missing root"; one_line_err "missing root"
sbx create --quiet --name v1 shell "$WS/file.txt"; want_rc 1 "root not a dir"; one_line_err "root not a dir"
sbx create --quiet --name v1 shell; want_rc 1 "no root"; one_line_err "no root"
for m in 4x 0 g -1 4gb 1.5g ""; do
  sbx create --quiet --name v1 --memory "$m" shell "$WS"; want_rc 1 "memory '$m'"; one_line_err "memory '$m'"
done
sbx create --quiet --name v1 --template chat2sbx-shell:9.9.9 shell "$WS"; want_rc 1 "unknown template"; one_line_err "unknown template"
sbx create --quiet --name 'bad/name' shell "$WS"; want_rc 1 "bad name"; one_line_err "bad name"
[ ! -e "$SBXS/v1" ] || fail "a rejected create left $SBXS/v1"
ok "create rejects unknown flags, missing name, other agents, bad roots, bad memory, unknown templates"

# ---------------------------------------------------------------- create: success
sbx create --quiet --name aa shell "$WS"
want_rc 0 "create aa"; want_out "" "create --quiet prints nothing"
[ -d "$SBXS/aa/home" ] && [ -d "$SBXS/aa/tmp" ] && [ ! -e "$SBXS/aa/clone" ] || fail "layout of aa"
meta aa 'M["name"]=="aa" and M["status"]=="running" and M["workspace"]==sys.argv[3] and M["clone"] is False and M["memory"]=="" and M["template"]=="" and M["ports"]==[] and M["created"]' "$WS" \
  || fail "meta of aa: $(cat "$SBXS/aa/meta.json")"
ok "create (stock template) makes a running sandbox"

sbx create --quiet --name aa shell "$WS"; want_rc 1 "duplicate"; want_err "ERROR: sandbox 'aa' already exists" "duplicate"; ok "duplicate name rejected"

: > "$ST/calls.log"
sbx create --quiet --name cc --memory 4g --clone shell "$WS"
want_rc 0 "create cc"
[ "$(cat "$ST/calls.log")" = "[\"create\",\"--quiet\",\"--name\",\"cc\",\"--memory\",\"4g\",\"--clone\",\"shell\",\"$WS\"]" ] \
  || fail "calls.log: $(cat "$ST/calls.log")"
ok "calls.log records the exact argv"
meta cc 'M["clone"] is True and M["memory"]=="4g" and M["status"]=="running"' || fail "meta of cc"
[ "$(cat "$SBXS/cc/clone/file.txt")" = original ] && [ -d "$SBXS/cc/clone/sub" ] || fail "clone copy"
ok "create --clone --memory copies the workspace"

sbx create --name loud shell "$WS"; want_rc 0 "create without --quiet"; [ -n "$OUT" ] || fail "create without --quiet prints"
(cd "$WORK" && "$BIN" create --quiet --name rel shell ws) || fail "relative root"
meta rel 'M["workspace"]==sys.argv[3]' "$WS" || fail "relative root stored absolute"
sbx create --quiet --name=eqform --memory=512m shell "$WS"; want_rc 0 "--flag=value form"
ok "create variants (no --quiet, relative root, --flag=value)"

# ---------------------------------------------------------------- ls
mkdir "$SBXS/nometa"
sbx ls --json
want_rc 0 ls
jtrue '{s["name"]: s["status"] for s in J["sandboxes"]} == {"aa":"running","cc":"running","loud":"running","rel":"running","eqform":"running","nometa":"creating"} and all(set(s) == {"name","id","agent","status","workspaces","ports"} for s in J["sandboxes"])' \
  || fail "ls content"
ok "ls --json lists all sandboxes (a directory without meta reads as creating)"

# ---------------------------------------------------------------- exec
sbx exec aa pwd; want_rc 0 "exec pwd"; want_out "$WS" "exec cwd is the workspace"; ok "exec runs in the workspace"
sbx exec aa sh -c 'echo out; echo err >&2; exit 7'
want_rc 7 "exit code"; want_out out "stdout"; want_err err "stderr"; ok "exec passes stdout, stderr, exit code"
sbx exec aa sh -c 'kill -9 $$'; want_rc 137 "killed command"; ok "exec: a killed command gives 137"
sbx exec aa no-such-command-xyz; want_rc 127 "not found"; ok "exec: unknown command exits 127"
sbx exec aa cat <<<"should not be read"; want_rc 0 "no -i"; want_out "" "stdin is /dev/null without -i"
sbx exec -i aa cat <<<"piped"; want_rc 0 "-i"; want_out "piped" "stdin with -i"
ok "exec stdin: /dev/null without -i, connected with -i"

mkfifo "$WORK/in"
"$BIN" exec -i aa sh -c 'while read -r l; do echo "got $l"; done' <"$WORK/in" >"$WORK/interactive.out" 2>&1 &
IPID=$!
exec 7>"$WORK/in"
echo one >&7
wait_until 5 grep -q "got one" "$WORK/interactive.out" || { RC=; OUT=$(cat "$WORK/interactive.out"); fail "interactive first line"; }
echo two >&7
exec 7>&-
wait "$IPID"; RC=$?
OUT=$(cat "$WORK/interactive.out")
want_rc 0 "interactive"; want_out $'got one\ngot two' "interactive"
ok "exec -i keeps stdin connected for the life of the process"

BWRAP=0
[ "$(cat "$ST/bwrap-probe" 2>/dev/null)" = ok ] && BWRAP=1
[ -f "$ST/bwrap-probe" ] || fail "bwrap probe result not cached"
if [ "$BWRAP" = 1 ]; then TMPEXP=/tmp; else TMPEXP=$SBXS/aa/tmp; fi
sbx exec aa env
want_rc 0 env
VMPATH="$(dirname -- "$(readlink -f -- "$BIN")")/vm-bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
EXPECTED=$(printf '%s\n' "FAKE_DOCKER_ROOT=$SBXS/aa/docker" "FAKE_SBX_SANDBOX=aa" "HOME=$SBXS/aa/home" "LANG=C.UTF-8" \
  "PATH=$VMPATH" "TMPDIR=$TMPEXP" "USER=agent")
PROXIES=$(printf '%s\n' "$OUT" | grep -i '^[a-z]*_proxy=' | sort)
printf '%s\n' "$PROXIES" | grep -qx 'HTTPS_PROXY=http://127.0.0.1:[0-9]*' || fail "exec env lacks HTTPS_PROXY: $PROXIES"
[ "$(printf '%s\n' "$PROXIES" | sed 's/^[^=]*=//' | sort -u | wc -l)" = 1 ] && [ "$(printf '%s\n' "$PROXIES" | wc -l)" = 4 ] \
  || fail "HTTP_PROXY, HTTPS_PROXY, http_proxy, https_proxy should name one proxy: $PROXIES"
OUT=$(printf '%s\n' "$OUT" | grep -vi '^[a-z]*_proxy=')
[ "$(printf '%s\n' "$OUT" | sort)" = "$EXPECTED" ] || fail "clean environment, want:
$EXPECTED"
ok "exec environment is clean (bwrap=$BWRAP)"

FROMHOST="host value" sbx exec -u root -e FROMHOST -e UNSETVAR -e GIVEN=x aa env
[ "$(printf '%s\n' "$OUT" | grep -vi '^[a-z]*_proxy=' | sort)" = "$(printf '%s\n' "FAKE_DOCKER_ROOT=$SBXS/aa/docker" "FAKE_SBX_SANDBOX=aa" "FROMHOST=host value" "GIVEN=x" "HOME=$SBXS/aa/home" \
  "LANG=C.UTF-8" "PATH=$VMPATH" "TMPDIR=$TMPEXP" "USER=root")" ] \
  || fail "-u root / -e"
ok "exec -u root sets USER=root; -e NAME copies the caller's value (unset names are skipped)"

# The sandbox's private Docker Engine: images outside HOME, docker save/load through a file.
sbx exec aa sh -c 'docker build -t web:dev . >/dev/null && docker tag web:dev web:v2 && docker images'; want_rc 0 "docker build"
want_out "$(printf 'web:dev\nweb:v2')" "docker images"
sbx exec aa sh -c 'docker save -o "$HOME/i.tar" -- web:dev nope:1'; want_rc 1 "docker save of a missing image"
want_err "Error response from daemon: No such image: nope:1" "docker save missing"
sbx exec aa sh -c 'docker save -o "$HOME/i.tar" web:dev && docker rmi web:dev >/dev/null && docker load -i "$HOME/i.tar" && rm "$HOME/i.tar"'
want_rc 0 "docker save/load"; want_out "Loaded image: web:dev" "docker load"
[ -z "$(find "$SBXS/aa/home" -path '*docker*' -print -quit)" ] || fail "docker images must not live in HOME"
ok "docker: build, tag, images, save (refusing a missing image), rmi, load; images live outside HOME"

sbx exec -w "$WS/sub" aa pwd; want_out "$WS/sub" "-w"; ok "exec -w"
sbx exec -w "$WS/nope" aa pwd; want_rc 1 "-w missing dir"; ok "exec -w with a missing directory fails"
sbx exec nosuch true; want_rc 1 "exec unknown"; want_err "ERROR: no sandbox named 'nosuch'" "exec unknown"
sbx exec nometa true; want_rc 1 "exec creating"; want_err "ERROR: no sandbox named 'nometa'" "exec creating"
sbx exec -x aa true; want_rc 1 "exec unknown flag"; one_line_err "exec unknown flag"
sbx exec aa sh -c 'echo "$@"' sh -i -u -w; want_out "-i -u -w" "flags after the command belong to it"
ok "exec errors and argument passing"

# Detached processes outlive their exec and a later exec can kill them (one VM).
sbx exec aa sh -c 'setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!'
DPID=$OUT
[ -n "$DPID" ] && alive "$DPID" || fail "detached process did not survive its exec"
grep -qz '^FAKE_SBX_SANDBOX=aa$' "/proc/$DPID/environ" || fail "detached process lacks FAKE_SBX_SANDBOX"
sbx exec aa kill "$DPID"; want_rc 0 "kill from a later exec"
wait_until 5 gone "$DPID" || fail "a later exec could not kill the detached process"
ok "detached processes survive and are killable by a later exec"

if [ "$BWRAP" = 1 ]; then
  sbx exec aa sh -c 'touch /usr/fake-sbx-selftest 2>/dev/null'; [ "$RC" != 0 ] || fail "host fs writable inside bwrap"
  [ ! -e /usr/fake-sbx-selftest ] || fail "wrote to the host /usr"
  sbx exec aa sh -c 'echo inside > /tmp/fake-sbx-selftest && echo w > written.txt && echo h > "$HOME/h"'
  want_rc 0 "writable places"
  [ -f "$SBXS/aa/tmp/fake-sbx-selftest" ] && [ ! -e /tmp/fake-sbx-selftest ] || fail "/tmp is the sandbox tmp/"
  [ "$(cat "$WS/written.txt")" = w ] && [ "$(cat "$SBXS/aa/home/h")" = h ] || fail "workspace/home writable"
  rm -f "$WS/written.txt"
  sbx exec cc pwd; want_out "$WS" "clone is mounted at the workspace path"
  sbx exec cc sh -c 'echo changed > file.txt; cat file.txt'; want_out changed "write in clone"
  [ "$(cat "$WS/file.txt")" = original ] && [ "$(cat "$SBXS/cc/clone/file.txt")" = changed ] || fail "clone isolation"
  sbx exec -w "$WS/sub" cc sh -c 'cat ../file.txt'; want_out changed "clone -w"
  ok "bwrap: host read-only, /tmp+home+workspace writable, clone at the workspace path"
else
  echo "note - bwrap not usable here: bwrap-only checks skipped"
fi
FAKE_SBX_NO_BWRAP=1 sbx exec aa sh -c 'echo "$TMPDIR"; pwd'
want_out "$SBXS/aa/tmp"$'\n'"$WS" "no-bwrap TMPDIR/cwd"
FAKE_SBX_NO_BWRAP=1 sbx exec cc pwd; want_out "$SBXS/cc/clone" "no-bwrap clone cwd"
FAKE_SBX_NO_BWRAP=1 sbx exec -w "$WS/sub" cc pwd; want_out "$SBXS/cc/clone/sub" "no-bwrap clone -w"
FAKE_SBX_NO_BWRAP=1 sbx exec aa no-such-command-xyz; want_rc 127 "no-bwrap not found"
ok "FAKE_SBX_NO_BWRAP=1: plain process, clone addressed on the host"

# ---------------------------------------------------------------- ports
sbx ports aa --json; want_rc 0 "ports"; jtrue 'J == []' || fail "ports empty"
SP=$(free_port)
sbx ports aa --publish "0.0.0.0:0:$SP/tcp4"; want_rc 0 "publish"
sbx ports aa --json
jtrue "len(J)==1 and J[0]['host_ip']=='0.0.0.0' and J[0]['sandbox_port']==$SP and J[0]['protocol']=='tcp4' and J[0]['host_port']>0" || fail "published mapping"
HP=$(jget 'J[0]["host_port"]')
sbx ports aa --publish "0.0.0.0:0:$SP/tcp4"; want_rc 0 "publish again"
sbx ports aa --json; jtrue "len(J)==1 and J[0]['host_port']==$HP" || fail "publish again keeps the mapping"
ok "ports --publish 0 picks a host port; asking again keeps it"

sbx exec aa sh -c "setsid python3 -m http.server $SP --bind 127.0.0.1 </dev/null >/dev/null 2>&1 &"
wait_until 10 curl -s -m 1 -o /dev/null "http://127.0.0.1:$SP/" || fail "in-sandbox server did not start"
run curl -s -m 3 "http://127.0.0.1:$HP/file.txt"; want_out original "forwarded port"
ok "a published port forwards to the sandbox port"

HP2=$(free_port)
sbx ports aa --publish "0.0.0.0:$HP2:8081/tcp4"; want_rc 0 "explicit host port"
sbx ports cc --publish "0.0.0.0:$HP2:8082/tcp4"; want_rc 1 "host port taken"; one_line_err "host port taken"
sbx ports aa --json; jtrue "sorted((m['host_port'], m['sandbox_port']) for m in J) == sorted([($HP, $SP), ($HP2, 8081)])" || fail "explicit mapping"
for bad in "0.0.0.0:0:0/tcp4" "0.0.0.0:x:80/tcp4" "0.0.0.0:70000:80/tcp4" "1.2.3:0:80/tcp4" "0:80" "0.0.0.0:0:80/sctp" ""; do
  sbx ports aa --publish "$bad"; want_rc 1 "malformed '$bad'"; one_line_err "malformed '$bad'"
done
sbx ports nosuch --json; want_rc 1 "ports unknown"; want_err "sandbox 'nosuch' not found" "ports unknown"
sbx ports nosuch --publish 0.0.0.0:0:80/tcp4; want_rc 1 "publish unknown"; want_err "sandbox 'nosuch' not found" "publish unknown"
ok "ports: explicit host ports, conflicts, malformed specs, unknown sandboxes"

FAKE_SBX_NO_FORWARD=1 sbx ports cc --publish 0.0.0.0:0:9000/tcp4; want_rc 0 "no-forward publish"
sbx ports cc --json; jtrue 'len(J)==1 and J[0]["host_port"]>0' || fail "no-forward mapping"
ok "FAKE_SBX_NO_FORWARD=1 records the mapping only"

# ---------------------------------------------------------------- network policy
sbx exec aa curl -sS -m 5 "http://127.0.0.1:$SP/file.txt"
want_out "Blocked by network policy: domain 127.0.0.1:$SP
  detail: no matching allow rule - blocked by default deny policy" "blocked by default"
sbx exec aa curl -sS -m 5 "https://127.0.0.1:$SP/file.txt"; want_rc 56 "CONNECT refused"
sbx policy check network --sandbox aa "127.0.0.1:$SP"; want_rc 1 "check denied"
sbx policy allow network --sandbox aa "127.0.0.1:$SP,*.example.com"; want_rc 0 "allow"
sbx exec aa curl -sS -m 5 "http://127.0.0.1:$SP/file.txt"; want_out original "allowed for aa"
sbx exec cc curl -sS -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/file.txt"; want_out 403 "other sandbox still blocked"
sbx policy deny network '**'; want_rc 0 "deny all"
sbx exec aa curl -sS -m 5 "http://127.0.0.1:$SP/file.txt" | head -1
sbx exec aa curl -sS -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/file.txt"; want_out 403 "deny wins"
sbx policy ls --wide; want_rc 0 "ls"; printf '%s\n' "$OUT" | grep -q '^r3 .*global .*deny .*\*\*' || fail "ls --wide shows ids: $OUT"
sbx policy rm network --id r3; want_rc 0 "rm by id"
sbx policy rm network --resource nothing.example; want_rc 1 "rm unknown"
sbx policy log aa --json --limit 1; want_rc 0 "log"
jtrue "len(J)==1 and J[0]['domain']=='127.0.0.1:$SP' and J[0]['decision']=='blocked' and J[0]['sandbox']=='aa' and J[0]['count']>=1" || fail "log json: $OUT"
sbx policy rm network --sandbox aa --resource "127.0.0.1:$SP"; want_rc 0 "rm by resource"
echo FAKE_SBX_APPROVALS=1 > "$ST/faults.env"   # the proxy is a long-lived process: it reads faults.env
sbx exec aa curl -sS -m 5 "http://127.0.0.1:$SP/file.txt"
want_out "Approval required for 127.0.0.1.
Review and respond with:
  sbx policy approval ls" "approval text"
sbx policy approval ls --json; AID=$(jget 'J[0]["id"]')
sbx policy approval respond "$AID" --option allow; want_rc 0 "respond"
rm -f "$ST/faults.env"
sbx exec aa curl -sS -m 5 "http://127.0.0.1:$SP/file.txt"; want_out original "approved"
sbx policy approval respond "$AID" --option deny; want_rc 1 "respond twice"
sbx policy rm network --sandbox aa --resource 127.0.0.1
ok "network policy: proxy 403 body, allow/deny (deny wins), rm, ls --wide, log --json, check, approvals"

# ---------------------------------------------------------------- template save / create from it
sbx create --quiet --name ts shell "$WS"; want_rc 0 "create ts"
echo marker > "$SBXS/ts/home/marker"
sbx template save ts chat2sbx-shell:2.0.0; want_rc 1 "template save of a running sandbox"
[[ "$ERR" == *"sbx stop ts"* ]] || fail "template save of a running sandbox names sbx stop"
sbx stop ts; want_rc 0 "stop ts"
sbx template save ts chat2sbx-shell:2.0.0; want_rc 0 "template save"
sbx template ls --json
jtrue '("docker.io/library/chat2sbx-shell","2.0.0") in [(i["repository"], i["tag"]) for i in J["images"]]' || fail "saved template listed with docker.io/library/"
sbx template save ts chat2sbx-shell:2.0.0; want_rc 0 "template save again"
sbx template ls --json; jtrue 'len(J["images"])==1' || fail "saving again does not duplicate"
sbx template save nosuch chat2sbx-shell:2.0.0; want_rc 1 "save unknown"; want_err "sandbox 'nosuch' not found" "save unknown"
sbx template save ts "Bad Ref"; want_rc 1 "save bad ref"; one_line_err "save bad ref"
sbx template save ts; want_rc 2 "save usage"
sbx create --quiet --name t1 --template chat2sbx-shell:2.0.0 shell "$WS"; want_rc 0 "create from saved template"
[ "$(cat "$SBXS/t1/home/marker" 2>/dev/null)" = marker ] || fail "template home snapshot"
meta t1 'M["template"]=="chat2sbx-shell:2.0.0"' || fail "meta template"
sbx create --quiet --name t2 --template docker.io/library/chat2sbx-shell:2.0.0 shell "$WS"; want_rc 0 "qualified template ref"
FAKE_SBX_TEMPLATES=chat2sbx-shell:1.0.0 sbx create --quiet --name t3 --template chat2sbx-shell:1.0.0 shell "$WS"
want_rc 0 "template from FAKE_SBX_TEMPLATES"
ok "template save needs a stopped sandbox, records the template (and home); create --template accepts it"
sbx template save ts chat2sbx-checkpoint:ckp_1; want_rc 0 "save a second template"
[ -d "$ST/templates/chat2sbx-checkpoint_ckp_1/home" ] || fail "snapshot of the second template"
sbx template rm docker.io/library/chat2sbx-checkpoint:ckp_1; want_rc 0 "template rm"
sbx template ls --json
jtrue '("docker.io/library/chat2sbx-checkpoint","ckp_1") not in [(i["repository"], i["tag"]) for i in J["images"]] and len(J["images"])==1' \
  || fail "template rm removes only that template"
[ ! -e "$ST/templates/chat2sbx-checkpoint_ckp_1" ] || fail "template rm removes the snapshot"
sbx template rm chat2sbx-checkpoint:ckp_1; want_rc 1 "template rm again"; one_line_err "template rm again"
FAKE_SBX_TEMPLATES=chat2sbx-shell:1.0.0 sbx template rm chat2sbx-shell:1.0.0; want_rc 1 "template rm of a FAKE_SBX_TEMPLATES entry"
ok "template rm removes a saved template and its snapshot; unknown ones exit 1"

# ---------------------------------------------------------------- rm
sbx exec t1 sh -c 'setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!'; K1=$OUT
sbx exec -i t1 sh -c 'sleep 300 >/dev/null 2>&1 & echo $!; cat >/dev/null' </dev/null; K2=$OUT
alive "$K1" || fail "t1 sleeper"
sbx rm --force t1; want_rc 0 "rm"; want_out "" "rm output"
[ ! -e "$SBXS/t1" ] || fail "rm left the directory"
wait_until 5 gone "$K1" || fail "rm did not kill the sandbox's processes"
wait_until 5 gone "$K2" || fail "rm did not kill the sandbox's processes (2)"
sbx ls --json; jtrue '"t1" not in [s["name"] for s in J["sandboxes"]]' || fail "rm: still listed"
sbx rm --force t1; want_rc 1 "rm unknown"; want_err "sandbox 't1' not found" "rm unknown"
ok "rm --force kills the sandbox's processes and deletes it"

FPID=$(grep -lz '^FAKE_SBX_SANDBOX=aa$' /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
[ -n "$FPID" ] || fail "no processes tagged with sandbox aa"
sbx rm --force aa; want_rc 0 "rm aa"
wait_until 5 port_closed "$HP" || fail "forwarder of aa still listening after rm"
for p in $FPID; do wait_until 5 gone "$p" || fail "process $p of aa survived rm"; done
[ "$(cat "$WS/file.txt")" = original ] && [ -d "$WS/sub" ] || fail "rm touched the host workspace"
chmod 0500 "$SBXS/cc/clone/sub"
sbx rm --force cc; want_rc 0 "rm cc (read-only dir in the clone)"; [ ! -e "$SBXS/cc" ] || fail "rm cc"
[ -d "$WS/sub" ] || fail "rm of aa clone touched the host workspace"
ok "rm stops port forwarders and never touches the workspace"

sbx create --quiet --name fw shell "$WS"
SP3=$(free_port)
sbx ports fw --publish "0.0.0.0:0:$SP3/tcp4"; sbx ports fw --json; HP3=$(jget 'J[0]["host_port"]')
curl -s -m 1 -o /dev/null "http://127.0.0.1:$HP3/"; [ $? = 7 ] && fail "forwarder of fw not listening"
rm -rf "$SBXS/fw"
wait_until 5 port_closed "$HP3" || fail "forwarder outlived its sandbox directory"
ok "aa forwarder exits when its sandbox directory disappears"

# ---------------------------------------------------------------- command faults
sbx create --quiet --name ff shell "$WS"
declare -A FCMD=(
  [VERSION]="version" [TEMPLATE_LS]="template ls --json" [TEMPLATE_SAVE]="template save ff fault-tpl:1"
  [CREATE]="create --quiet --name fz shell $WS" [LS]="ls --json" [EXEC]="exec ff true"
  [PORTS]="ports ff --json" [PUBLISH]="ports ff --publish 0.0.0.0:0:4999/tcp4" [RM]="rm --force rmme"
  [STOP]="stop ff")
prep() {  # state aa successful run of the command needs
  case $1 in
    CREATE) "$BIN" rm --force fz >/dev/null 2>&1 ;;
    TEMPLATE_SAVE) "$BIN" stop ff || fail "prep stop ff" ;;
    RM) [ -d "$SBXS/rmme" ] || "$BIN" create --quiet --name rmme shell "$WS" || fail "prep rmme" ;;
  esac
}
untouched() {  # aa faulted command must not have changed state
  case $1 in
    CREATE) [ ! -e "$SBXS/fz" ] ;;
    RM) [ -d "$SBXS/rmme" ] ;;
    *) true ;;
  esac
}
for k in VERSION TEMPLATE_LS TEMPLATE_SAVE CREATE LS EXEC PORTS PUBLISH RM STOP; do
  read -ra A <<<"${FCMD[$k]}"
  prep "$k"
  run env "FAKE_SBX_FAIL_$k=boom $k" "$BIN" "${A[@]}"
  want_rc 1 "FAIL_$k"; want_err "boom $k" "FAIL_$k"; untouched "$k" || fail "FAIL_$k changed state"

  echo "FAKE_SBX_FAIL_$k=from file $k" > "$ST/faults.env"
  sbx "${A[@]}"; want_rc 1 "FAIL_$k (file)"; want_err "from file $k" "FAIL_$k (file)"
  printf '# comment\n\nFAKE_SBX_FAIL_%s=\n' "$k" > "$ST/faults.env"
  prep "$k"
  run env "FAKE_SBX_FAIL_$k=boom" "$BIN" "${A[@]}"; want_rc 0 "faults.env empty value overrides env for $k"
  rm -f "$ST/faults.env"

  prep "$k"
  run timeout 0.5 env "FAKE_SBX_HANG_$k=1" "$BIN" "${A[@]}"
  want_rc 124 "HANG_$k"; untouched "$k" || fail "HANG_$k changed state"
  echo "FAKE_SBX_HANG_$k=1" > "$ST/faults.env"
  run timeout 0.5 "$BIN" "${A[@]}"; want_rc 124 "HANG_$k (file)"
  rm -f "$ST/faults.env"

  prep "$k"
  T0=$(now_ms)
  run env "FAKE_SBX_SLOW_$k=300" "$BIN" "${A[@]}"
  T1=$(now_ms)
  want_rc 0 "SLOW_$k"; [ $((T1 - T0)) -ge 300 ] || fail "SLOW_$k took only $((T1 - T0)) ms"
  ok "faults FAIL/HANG/SLOW for $k (environment and faults.env)"
done

# A fault for one command leaves the others alone.
FAKE_SBX_FAIL_CREATE=x sbx ls --json; want_rc 0 "FAIL_CREATE does not affect ls"
FAKE_SBX_FAIL_PUBLISH=x sbx ports ff --json; want_rc 0 "FAIL_PUBLISH does not affect ports --json"
FAKE_SBX_FAIL_PORTS=x sbx ports ff --publish 0.0.0.0:0:4998/tcp4; want_rc 0 "FAIL_PORTS does not affect publish"
ok "faults are per command"

: > "$ST/calls.log"
FAKE_SBX_FAIL_LS=x sbx ls --json
[ "$(cat "$ST/calls.log")" = '["ls","--json"]' ] || fail "faulted call not logged"
ok "faulted invocations are logged too"

# ---------------------------------------------------------------- crash mid-create
FAKE_SBX_CRASH_MID_CREATE=1 sbx create --quiet --name half --clone shell "$WS"
want_rc 137 "crash mid create"
meta half 'M["status"]=="creating"' || fail "half-made meta"
sbx ls --json; jtrue '("half","creating") in [(s["name"], s["status"]) for s in J["sandboxes"]]' || fail "ls shows the half-made sandbox"
sbx exec half true; want_rc 1 "exec half"; want_err "ERROR: no sandbox named 'half'" "exec half"
sbx create --quiet --name half shell "$WS"; want_rc 1 "create over half"; want_err "ERROR: sandbox 'half' already exists" "create over half"
sbx rm --force half; want_rc 0 "rm half"; [ ! -e "$SBXS/half" ] || fail "rm half"
echo "FAKE_SBX_CRASH_MID_CREATE=hang" > "$ST/faults.env"
run timeout 0.5 "$BIN" create --quiet --name half2 shell "$WS"; want_rc 124 "crash=hang"
rm -f "$ST/faults.env"
meta half2 'M["status"]=="creating"' || fail "half2 meta"
sbx rm --force half2; want_rc 0 "rm half2"
ok "FAKE_SBX_CRASH_MID_CREATE=1|hang leaves a half-made sandbox"

# ---------------------------------------------------------------- ls hide, exec match
FAKE_SBX_LS_HIDE="ff, eqform" sbx ls --json
jtrue 'not {"ff","eqform"} & {s["name"] for s in J["sandboxes"]} and "loud" in [s["name"] for s in J["sandboxes"]]' || fail "LS_HIDE"
[ -d "$SBXS/ff" ] || fail "LS_HIDE removed the directory"
echo "FAKE_SBX_LS_HIDE=loud" > "$ST/faults.env"
FAKE_SBX_LS_HIDE=ff sbx ls --json
jtrue '"loud" not in [s["name"] for s in J["sandboxes"]] and "ff" in [s["name"] for s in J["sandboxes"]]' || fail "LS_HIDE from file wins"
rm -f "$ST/faults.env"
ok "FAKE_SBX_LS_HIDE"

FAKE_SBX_FAIL_EXEC_MATCH=forbidden sbx exec ff echo a-forbidden-word; want_rc 1 "exec match"; one_line_err "exec match"
FAKE_SBX_FAIL_EXEC_MATCH=forbidden sbx exec ff echo fine; want_rc 0 "exec no match"; want_out fine "exec no match"
ok "FAKE_SBX_FAIL_EXEC_MATCH"

# ---------------------------------------------------------------- concurrency
for i in $(seq 1 8); do ( "$BIN" create --quiet --name same shell "$WS" 2>"$WORK/race.$i.err"; echo $? >"$WORK/race.$i" ) & done
wait
[ "$(cat "$WORK"/race.? | grep -c '^0$')" = 1 ] || fail "concurrent creates: $(cat "$WORK"/race.?)"
[ "$(cat "$WORK"/race.*.err | sort -u)" = "ERROR: sandbox 'same' already exists" ] || fail "concurrent create errors"
for i in $(seq 1 6); do "$BIN" create --quiet --name p$i shell "$WS" || fail "create p$i"; done
for i in $(seq 1 6); do "$BIN" ports p$i --publish 0.0.0.0:0:5000/tcp4 & done
for i in $(seq 1 6); do FAKE_SBX_NO_FORWARD=1 "$BIN" ports p$i --publish 0.0.0.0:0:5001/tcp4 & done
wait
PORTS=$(for i in $(seq 1 6); do "$BIN" ports p$i --json; done | "$PY" -c '
import json, sys
dec = json.JSONDecoder(); s = sys.stdin.read(); i = 0; out = []
while i < len(s):
    if s[i].isspace(): i += 1; continue
    v, i = dec.raw_decode(s, i); out += [m["host_port"] for m in v]
print(len(out), len(set(out)))')
[ "$PORTS" = "12 12" ] || fail "concurrent publishes: $PORTS"
"$PY" -c '
import json, sys
for line in open(sys.argv[1]):
    assert isinstance(json.loads(line), list)' "$ST/calls.log" || fail "calls.log has aa malformed line"
ok "concurrent creates and publishes are serialized"

# ---------------------------------------------------------------- contract behaviours
# Each block names the line of reference/sbx-contract.md it checks (see README.md).

# version row: --json reports client version and server.state; before v0.42 --json is unknown.
sbx version --json; want_rc 0 "version --json"
jtrue 'J["client"]["version"] == "v0.47.0" and J["server"]["state"] == "running"' || fail "version --json"
FAKE_SBX_VERSION=0.41.2 sbx version --json; want_rc 1 "version --json before 0.42"
FAKE_SBX_VERSION=0.41.2 sbx version; want_out "sbx version 0.41.2 (fake: chat2sbx test double)" "FAKE_SBX_VERSION"
ok "version --json (and FAKE_SBX_VERSION)"

# behaviour 3: daemon start-up text on stdout before the JSON, the first time only.
D=$WORK/daemon-state
FAKE_SBX_STATE=$D FAKE_SBX_DAEMON_NOTICE= sbx ls --json; want_rc 0 "first ls"
[ "$(printf '%s\n' "$OUT" | head -1)" = "Starting sandboxd daemon..." ] || fail "daemon text first"
printf '%s\n' "$OUT" | sed -n 2p | grep -q '^Daemon started (PID [0-9]*)$' || fail "daemon PID line"
printf '%s\n' "$OUT" | sed -n 3p | grep -q '^Logs: ' || fail "daemon Logs line"
OUT=$(printf '%s\n' "$OUT" | sed 1,3d); jtrue 'J == {"sandboxes": []}' || fail "JSON after the daemon text"
FAKE_SBX_STATE=$D FAKE_SBX_DAEMON_NOTICE= sbx ls --json; jtrue 'J == {"sandboxes": []}' || fail "second ls has no daemon text"
FAKE_SBX_STATE=$WORK/daemon2 FAKE_SBX_DAEMON_NOTICE=stderr sbx template ls --json
jtrue 'J == {"images": []}' && [[ "$ERR" == "Starting sandboxd daemon..."* ]] || fail "DAEMON_NOTICE=stderr"
ok "daemon start-up text: stdout (default) or stderr, first use of a state folder only"

# create row: names, memory range, unknown template = registry pull, -d unsupported.
for n in x -ab ab- ab. a_b "$(printf 'n%.0s' $(seq 64))" 'a b'; do
  sbx create --quiet --name "$n" shell "$WS"; want_rc 1 "name '$n'"; one_line_err "name '$n'"
done
sbx create --quiet --name "a.b-1" shell "$WS"; want_rc 0 "name a.b-1"
sbx create --quiet --name "$(printf 'n%.0s' $(seq 63))" shell "$WS"; want_rc 0 "63-character name"
for m in 511m 256m 33g 34359738369 1g5; do
  sbx create --quiet --name mem1 --memory "$m" shell "$WS"; want_rc 1 "memory '$m'"
  [[ "$ERR" == *"512m"*"32g"* ]] || fail "memory error names the range"
done
for m in 512m 32g 536870912 4G 1024M; do
  sbx create --quiet --name mem1 --memory "$m" shell "$WS"; want_rc 0 "memory '$m'"; "$BIN" rm --force mem1
done
sbx create --quiet --name tpl1 --template nosuch/image:1 shell "$WS"; want_rc 1 "unknown template"
want_err 'ERROR: request failed: 403 Forbidden: pull failed for image "nosuch/image:1"' "unknown template text"
sbx create --quiet --name tpl1 --template docker/sandbox-templates:shell shell "$WS"; want_rc 0 "stock template by name"
sbx exec -d tpl1 true; want_rc 1 "exec -d"; one_line_err "exec -d"
ok "create: name rules, memory 512m-32g, 403 pull failure for unknown templates; exec -d refused"

# behaviour 2: sign-in and network policy.
FAKE_SBX_NOT_SIGNED_IN=1 sbx ls --json; want_rc 1 "not signed in"; [[ "$ERR" == *"sbx login"* ]] || fail "sign-in text"
FAKE_SBX_NOT_SIGNED_IN=1 sbx version; want_rc 0 "version works signed out"
FAKE_SBX_NO_POLICY=1 sbx create --quiet --name pol1 shell "$WS"; want_rc 1 "no policy"
[[ "$ERR" == *"sbx policy init"* ]] || fail "policy text"; [ ! -e "$SBXS/pol1" ] || fail "policy failure left a sandbox"
FAKE_SBX_NO_POLICY=1 sbx exec tpl1 true; want_rc 0 "running sandbox needs no policy check"
"$BIN" stop tpl1
FAKE_SBX_NO_POLICY=1 sbx exec tpl1 true; want_rc 1 "starting a stopped sandbox needs a policy"
ok "FAKE_SBX_NOT_SIGNED_IN / FAKE_SBX_NO_POLICY fail with texts naming sbx login / sbx policy init"

# How sbx fails in the field (sbx-contract.md): each knob, and that the sandbox is intact after it.
FAKE_SBX_LS_HIDE=all sbx ls --json; want_rc 0 "ls hide all"; jtrue 'J["sandboxes"] == []' || fail "LS_HIDE=all"
FAKE_SBX_LS_HIDE=all FAKE_SBX_LS_HIDE_CALLS=2 sbx ls --json; jtrue 'J["sandboxes"] == []' || fail "LS_HIDE_CALLS 1"
FAKE_SBX_LS_HIDE=all FAKE_SBX_LS_HIDE_CALLS=2 sbx ls --json; jtrue 'J["sandboxes"] == []' || fail "LS_HIDE_CALLS 2"
FAKE_SBX_LS_HIDE=all FAKE_SBX_LS_HIDE_CALLS=2 sbx ls --json; jtrue '"tpl1" in [s["name"] for s in J["sandboxes"]]' || fail "LS_HIDE_CALLS ends"
FAKE_SBX_LS_HIDE=all FAKE_SBX_LS_HIDE_FOR_MS=300 sbx ls --json; jtrue 'J["sandboxes"] == []' || fail "LS_HIDE_FOR_MS within"
sleep 0.4
FAKE_SBX_LS_HIDE=all FAKE_SBX_LS_HIDE_FOR_MS=300 sbx ls --json; jtrue '"tpl1" in [s["name"] for s in J["sandboxes"]]' || fail "LS_HIDE_FOR_MS ends"
FAKE_SBX_SESSION_EXPIRED=1 sbx ls --json; want_rc 0 "expired ls"; jtrue 'J["sandboxes"] == []' || fail "expired ls empty"
[[ "$ERR" == *"session has expired"*"activate"* ]] || fail "expired ls prints a device-code sign-in"
FAKE_SBX_SESSION_EXPIRED=1 sbx exec tpl1 true; want_rc 1 "expired exec"; [[ "$ERR" == *"sbx login"* ]] || fail "expired exec text"
FAKE_SBX_UPDATE_PENDING=1 sbx ls --json; want_rc 1 "update prompt"
[[ "$OUT" == *"needs to restart. All running sandboxes will be stopped. Restart now? (y/N)"* ]] || fail "update prompt text"
FAKE_SBX_UPDATE_PENDING=1 sbx version --json; want_rc 0 "version --json during an update"
jtrue 'J["client"]["version"] != J["server"]["version"]' || fail "client and daemon versions differ"
FAKE_SBX_NO_EXECUTOR=1 sbx create --quiet --name exe1 shell "$WS"; want_rc 1 "no executor create"
[[ "$ERR" == *"no sandbox executor available"* ]] || fail "executor text"
FAKE_SBX_NO_EXECUTOR=1 sbx exec tpl1 true; want_rc 1 "no executor: a stopped sandbox does not start"
sbx exec tpl1 true; want_rc 0 "start tpl1"
FAKE_SBX_NO_EXECUTOR=1 sbx exec tpl1 true; want_rc 0 "no executor: a running sandbox works"
echo "FAKE_SBX_HANG_ALL=1" > "$ST/faults.env"
run timeout 0.5 "$BIN" version; want_rc 124 "HANG_ALL hangs version"; [[ "$ERR" == *"refresh lock"* ]] || fail "lock warning"
rm -f "$ST/faults.env"
"$BIN" stop tpl1
echo "FAKE_SBX_TEMPLATE_SAVE_WEDGES=1" > "$ST/faults.env"
run timeout 0.5 "$BIN" template save tpl1 wedge:1; want_rc 124 "wedging save hangs"
rm -f "$ST/faults.env"
run timeout 0.5 "$BIN" ls --json; want_rc 124 "a wedged daemon hangs ls"
rm -f "$ST/wedged"
sbx ls --json; want_rc 0 "unwedged"
sbx create --quiet --name base1 --template docker/sandbox-templates:shell shell "$WS"; want_rc 0 "create base1"
sbx template save base1 base1:1; want_rc 1 "save of a running sandbox"
"$BIN" stop base1; sbx template save base1 base1:1; want_rc 0 "save base1"
sbx create --quiet --name child1 --template base1:1 shell "$WS"; want_rc 0 "create from base1:1"
"$BIN" stop child1; sbx template rm base1:1; want_rc 0 "base gone"
sbx template save child1 child1:1; want_rc 1 "save without its base"
want_err 'ERROR: 500 Internal Server Error: getting base image "base1:1": not found' "base gone text"
"$BIN" rm --force base1; "$BIN" rm --force child1
sbx exec tpl1 true; want_rc 0 "tpl1 intact after the faults"
sbx daemon status; want_rc 0 "daemon status"; want_out "Status: running" "daemon status running"
sbx exec tpl1 true; want_rc 0 "start tpl1 again"
echo "FAKE_SBX_UPDATE_PENDING=1" > "$ST/faults.env"
sbx ls --json; want_rc 1 "update pending before the restart"
sbx daemon stop; want_rc 0 "daemon stop answers during an update"; want_out "Daemon stopped" "daemon stop text"
meta tpl1 'M["status"]=="stopped"' || fail "daemon stop stops every running sandbox"
sbx daemon status; want_rc 0 "daemon status when stopped exits 0 (#283)"; want_out "Status: stopped" "daemon status stopped"
sbx ls --json; want_rc 0 "the update is done after the restart"
sbx version --json; jtrue 'J["client"]["version"] == J["server"]["version"]' || fail "one version after the restart"
rm -f "$ST/faults.env" "$ST/daemon-restarted"
ok "field faults: ls hide all/calls/ms, expired session, update prompt, no executor, lock hang, wedged save, base image gone, daemon stop/status"

# behaviour 1 + stop/exec/ports rows: auto-stop after the grace period, restart on exec/publish.
export FAKE_SBX_IDLE_STOP_MS=700
sbx create --quiet --name idle1 shell "$WS"; want_rc 0 "create idle1"
sbx exec idle1 sh -c 'setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!'; SL=$OUT
sbx exec idle1 sh -c 'echo kept > "$HOME/state.txt"'
mkfifo "$WORK/hold"
"$BIN" exec -i idle1 cat <"$WORK/hold" >/dev/null 2>&1 &
HOLD=$!
exec 8>"$WORK/hold"
sleep 1.5
sbx ls --json; jtrue '{s["name"]: s["status"] for s in J["sandboxes"]}["idle1"] == "running"' || fail "stopped while an exec was attached"
alive "$SL" || fail "process died while an exec was attached"
exec 8>&-
wait "$HOLD"
idle_stopped() { "$BIN" ls --json | "$PY" -c 'import json,sys; sys.exit(0 if {s["name"]: s["status"] for s in json.load(sys.stdin)["sandboxes"]}["idle1"] == "stopped" else 1)'; }
wait_until 5 idle_stopped || fail "no auto-stop after the last exec ended"
wait_until 2 gone "$SL" || fail "a process survived the auto-stop"
[ "$(cat "$SBXS/idle1/home/state.txt")" = kept ] || fail "files must survive a stop"
sbx exec idle1 sh -c 'cat "$HOME/state.txt"'
want_rc 0 "exec on a stopped sandbox"; want_out kept "files after restart"
want_err "Sandbox idle1 started successfully" "restart message"
sbx ls --json; jtrue '{s["name"]: s["status"] for s in J["sandboxes"]}["idle1"] == "running"' || fail "running after exec"
ok "auto-stop after FAKE_SBX_IDLE_STOP_MS with no attached exec: processes die, files stay, exec restarts"

SP5=$(free_port)
sbx ports idle1 --publish "127.0.0.1:0:$SP5/tcp4"; want_rc 0 "publish idle1"
sbx ports idle1 --json; HP5=$(jget 'J[0]["host_port"]')
sbx stop idle1; want_rc 0 "sbx stop"
sbx ls --json; jtrue '{s["name"]: s["status"] for s in J["sandboxes"]}["idle1"] == "stopped"' || fail "stopped after sbx stop"
wait_until 5 port_closed "$HP5" || fail "forwarder survived sbx stop"
sbx ports idle1 --json; jtrue "len(J)==1 and J[0]['host_port']==$HP5" || fail "ports kept while stopped"
sbx ports idle1 --publish "127.0.0.1:0:8089/tcp4"; want_rc 0 "publish starts a stopped sandbox"
want_err "Sandbox idle1 started successfully" "publish restart message"
sbx exec idle1 sh -c "setsid python3 -m http.server $SP5 --bind 127.0.0.1 </dev/null >/dev/null 2>&1 &"
wait_until 10 curl -s -m 1 -o /dev/null "http://127.0.0.1:$HP5/file.txt" || fail "ports not restored after restart"
sbx stop nosuch; want_rc 1 "stop unknown"; want_err "sandbox 'nosuch' not found" "stop unknown"
ok "sbx stop; ports --publish restarts a stopped sandbox; ports are restored on restart"
export FAKE_SBX_IDLE_STOP_MS=off

# exec row: stderr merged into stdout (FAKE_SBX_EXEC_MERGE_STDERR).
FAKE_SBX_EXEC_MERGE_STDERR=1 sbx exec idle1 sh -c 'echo out; echo err >&2'
want_out $'out\nerr' "merged stderr"; [[ "$ERR" != *err* ]] || fail "merged stderr leaves stderr"
ok "FAKE_SBX_EXEC_MERGE_STDERR=1 merges the command's stderr into stdout"

# behaviour 4: clone mode is git.
R=$WORK/repo
mkdir -p "$R/dir" && echo committed > "$R/dir/c.txt" && git -C "$R" init -q && git -C "$R" add -A \
  && git -C "$R" -c user.name=t -c user.email=t@t commit -qm one || fail "repo"
echo untracked > "$R/untracked.txt"; echo changed > "$R/dir/c.txt"
git -C "$R" worktree add -q "$WORK/linked" 2>/dev/null || fail "worktree"
sbx create --quiet --clone --name cl1 shell "$WORK/linked"; want_rc 1 "linked worktree"
[[ "$ERR" == *worktree* ]] || fail "worktree refusal text"
sbx create --quiet --clone --name cl1 shell "$R/dir"; want_rc 1 "not the top"; one_line_err "not the top"
sbx create --quiet --clone --name cl1 shell "$R"; want_rc 0 "clone"
sbx exec cl1 sh -c 'cat dir/c.txt; test -e untracked.txt && echo present; git log --format=%s'
want_out $'committed\none' "clone holds the committed files only"
[ "$(git -C "$R" config remote.sandbox-cl1.url)" = "$SBXS/cl1/clone" ] || fail "host remote sandbox-cl1"
[ "$(git -C "$R" config remote.sandbox-cl1.fetch)" = "+refs/heads/*:refs/sandboxes/cl1/*" ] || fail "remote refspec"
sbx exec cl1 sh -c 'echo new > n.txt && git add n.txt && git -c user.name=t -c user.email=t@t commit -qm two'
git -C "$R" fetch -q sandbox-cl1 || fail "fetch from the sandbox"
[ "$(git -C "$R" log -1 --format=%s "refs/sandboxes/cl1/$(git -C "$R" symbolic-ref --short HEAD)")" = two ] || fail "fetched ref"
sbx rm --force cl1; want_rc 0 "rm clone"
git -C "$R" config remote.sandbox-cl1.url >/dev/null && fail "rm left the host remote"
[ "$(cat "$R/untracked.txt")" = untracked ] || fail "clone touched the host"
ok "--clone: git clone of the committed files, worktree/subfolder refused, sandbox-<name> remote added and removed"

# Cloud sandboxes (README "Cloud sandboxes", reference/sbx-cloud.md): a second store.
CS=$ST/cloud/sandboxes
cleanup_cloud() { for d in "$CS"/sbx_*/; do [ -d "$d" ] && "$BIN" --cloud rm --force "$(basename "$d")" >/dev/null 2>&1; done; }
sbx --cloud create shell "$WS"; want_rc 1 "cloud create with a path"; [[ "$ERR" == *"no host workspace"* ]] || fail "path refusal text"
sbx --cloud create --cpus 3 shell; want_rc 1 "not a cloud size"; [[ "$ERR" == *"not a cloud size"* ]] || fail "size refusal"
sbx --cloud create --name a.b shell; want_rc 1 "period in a cloud name"
sbx --cloud create --ttl 25h shell; want_rc 1 "ttl over 24h"
sbx --cloud create --name work1 --cpus 4 --ttl 2h shell; want_rc 0 "cloud create"
CID=$OUT; [[ "$CID" =~ ^sbx_[0-9a-f]{12}$ ]] || fail "cloud id printed alone"
sbx ls --json; jtrue 'all(s["name"] != "'"$CID"'" for s in J["sandboxes"])' || fail "a cloud sandbox in the local ls"
sbx --cloud ls --json; jtrue 'J["sandboxes"][0]["id"] == "'"$CID"'" and J["sandboxes"][0]["size"] == "medium" and J["sandboxes"][0]["memory_mib"] == 8192' || fail "cloud ls"
FAKE_SBX_CLOUD_LS_SHAPE=array sbx --cloud ls --json; jtrue 'J[0]["name"] == "work1"' || fail "ls shape array"
sbx --cloud exec work1 sh -c 'pwd; echo "$HOME"'; want_rc 0 "cloud exec by name"
[ "$(printf '%s\n' "$OUT" | head -1)" = "$CS/$CID/home/workspace" ] || fail "exec's default directory is \$HOME/workspace"
sbx --cloud exec -u root "$CID" id; want_rc 1 "-u with --cloud"; [[ "$ERR" == *"not supported with --cloud"* ]] || fail "-u refusal"
sbx --cloud exec -d "$CID" true; want_rc 1 "-d with --cloud"
run bash -c "printf 'in\n' | '$BIN' --cloud exec -i '$CID' cat"; want_out in "exec -i passes stdin and its end"
run bash -c "'$BIN' --cloud exec '$CID' sh -c 'exit 7'"; want_rc 7 "exit status passed"
FAKE_SBX_CLOUD_EXEC_NO_EXIT_STATUS=1 sbx --cloud exec "$CID" sh -c 'exit 7'; want_rc 0 "NO_EXIT_STATUS"
run bash -c "printf 'x\n' | FAKE_SBX_CLOUD_EXEC_NO_EOF=1 timeout 3 '$BIN' --cloud exec -i '$CID' sh -c 'cat; echo ended'"
[ "$RC" = 124 ] || fail "NO_EOF: the command's stdin stayed open"
echo hello > "$WORK/up.txt"
sbx --cloud cp "$WORK/up.txt" "$CID:/home/agent/workspace/up.txt"; want_rc 0 "cp in"
sbx --cloud exec "$CID" cat up.txt; want_out hello "cp'd file in the workspace"
sbx --cloud cp "work1:/home/agent/workspace/up.txt" "$WORK/down.txt"; want_rc 0 "cp out"; [ "$(cat "$WORK/down.txt")" = hello ] || fail "cp out content"
sbx --cloud ports "$CID" --publish 8080; want_rc 0 "publish"; [[ "$OUT" =~ ^https:// ]] || fail "public URL printed"
sbx --cloud ports "$CID" --publish 127.0.0.1:8080:8080; want_rc 1 "host binding refused"
sbx --cloud ports "$CID" --json; jtrue 'J[0]["port"] == 8080 and J[0]["url"].startswith("https://")' || fail "ports list"
sbx --cloud ttl "$CID" --json; jtrue 'J["expires_at"] and J["max_expires_at"]' || fail "ttl shows"
sbx --cloud ttl +30h "$CID" --json; want_rc 0 "ttl clamps"; jtrue 'J["expires_at"] == J["max_expires_at"]' || fail "clamped to the ceiling"
FAKE_SBX_CLOUD_TTL_OVER_CEILING=error sbx --cloud ttl +1h "$CID"; want_rc 1 "ttl past the ceiling as an error"
sbx --cloud ttl -1h "$CID"; [ "$RC" != 0 ] || fail "a TTL cannot shorten"
sbx --cloud stop "$CID"; want_rc 0 "cloud stop"
sbx --cloud exec "$CID" true; want_rc 1 "exec of a stopped cloud sandbox refused"; [[ "$ERR" == *"--cloud run --detached"* ]] || fail "says how to resume"
sbx --cloud run -d --name work1 --ttl 1h shell; want_rc 1 "--ttl when resuming"
sbx --cloud run -d --name work1 shell; want_rc 0 "resume"; want_out "$CID" "resume keeps the id"
sbx --cloud exec "$CID" cat up.txt; want_out hello "files kept across stop"
sbx --cloud rm "$CID"; want_rc 1 "rm without --force"
FAKE_SBX_CLOUD_NO_PLAN=1 sbx --cloud ls --json; want_rc 1 "no plan"; [[ "$ERR" == *subscription* ]] || fail "no plan text"
FAKE_SBX_CLOUD_NO_PLAN=1 sbx --cloud diagnose; want_rc 1 "diagnose without a plan"
sbx --cloud diagnose --json; want_rc 0 "diagnose"
FAKE_SBX_CLOUD_TIME_SCALE=0.001 sbx --cloud create --name brief --ttl 1h --on-timeout delete shell; want_rc 0 "short-lived"
BRIEF=$OUT; sleep 4
sbx --cloud ls --json; jtrue 'all(s["id"] != "'"$BRIEF"'" for s in J["sandboxes"])' || fail "expired with delete: gone"
FAKE_SBX_CLOUD_TIME_SCALE=0.001 sbx --cloud create --name napper --ttl 1h shell; NAP=$OUT; sleep 4
sbx --cloud ls --json; jtrue '[s for s in J["sandboxes"] if s["id"] == "'"$NAP"'"][0]["status"] == "stopped"' || fail "expired, default on-timeout: stopped"
FAKE_SBX_CLOUD_CRASH_MID_CREATE=1 sbx --cloud create --name orphan shell; want_rc 137 "crash mid-create"
sbx --cloud ls --json; jtrue 'any(s["name"] == "orphan" for s in J["sandboxes"])' || fail "a crashed create left it in the cloud"
FAKE_SBX_CLOUD_MAX_CONCURRENT=1 sbx --cloud create shell; want_rc 1 "quota"; [[ "$ERR" == *resourceExhausted* ]] || fail "quota text"
sbx --cloud rm --force "$CID"; want_rc 0 "cloud rm"
cleanup_cloud
ok "--cloud: separate store, sizes, exec flags and variants, cp, ports, ttl clamp and ceiling, stop/resume, expiry, crash, quota, no plan"

# Cloud templates (README "Cloud templates", reference/sbx-cloud.md §2.11, §7): a running sandbox's
# snapshot; --capture-mode all starts what it left running again in a sandbox made from it.
sbx --cloud create --name tsrc --cpus 4 shell; want_rc 0 "a sandbox to save"; TSRC=$OUT
sbx --cloud exec tsrc sh -c 'echo kept > note.txt; setsid sh -c "while true; do date +%s%N >> ticks; sleep 0.2; done" </dev/null >/dev/null 2>&1 &'
want_rc 0 "a file and a process left running"
sbx --cloud template save tsrc t-disk; want_rc 0 "save (disk, the default)"; [[ "$OUT" == *"saved (tmpl_"* ]] || fail "save names the tmpl_ id"
sbx --cloud template save tsrc t-disk; want_rc 1 "a taken template name"; [[ "$ERR" == *alreadyExists* ]] || fail "taken name text"
sbx --cloud template save tsrc t-mem --capture-mode all -d "with memory"; want_rc 0 "save with memory"
FAKE_SBX_CLOUD_NO_MEMORY_CAPTURE=1 sbx --cloud template save tsrc t-no --capture-mode all; want_rc 1 "no memory capture"
[[ "$ERR" == *"--capture-mode disk"* ]] || fail "says to use disk"
sbx --cloud ls --json; jtrue '[s for s in J["sandboxes"] if s["id"] == "'"$TSRC"'"][0]["status"] == "running"' || fail "a save leaves the sandbox running"
sbx --cloud template ls --json
jtrue 'sorted((t["name"], t["capture_mode"], t["cpus"]) for t in J["templates"]) == [("t-disk","disk",4),("t-mem","all",4)] and all(t["id"].startswith("tmpl_") and t["size"] > 1 << 30 for t in J["templates"])' \
  || fail "template ls"
sbx --cloud create --template t-mem shell; want_rc 1 "an agent with --template"
sbx --cloud create --template t-mem --cpus 2; want_rc 1 "--cpus with --template"
sbx --cloud create --template nope; want_rc 1 "an unknown template"; [[ "$ERR" == *notFound* ]] || fail "unknown template text"
sbx --cloud create --name tmem -t t-mem; want_rc 0 "create from the memory template"; TMEM=$OUT
sbx --cloud create --name tdisk --template t-disk; want_rc 0 "create from the disk template"; TDISK=$OUT
sbx --cloud exec tdisk cat note.txt; want_out kept "the disk came along"
sbx --cloud ls --json; jtrue '[s for s in J["sandboxes"] if s["id"] == "'"$TMEM"'"][0]["cpus"] == 4' || fail "the size came from the template"
t0=$(wc -l < "$CS/$TMEM/home/workspace/ticks" 2>/dev/null || echo 0); sleep 1
t1=$(wc -l < "$CS/$TMEM/home/workspace/ticks"); [ "$t1" -gt "$t0" ] || fail "memory template: the process runs on ($t0 -> $t1)"
d0=$(wc -l < "$CS/$TDISK/home/workspace/ticks"); sleep 1
[ "$(wc -l < "$CS/$TDISK/home/workspace/ticks")" = "$d0" ] || fail "disk template: no process came along"
sbx --cloud stop tsrc; sbx --cloud template save tsrc t-stopped; want_rc 1 "a stopped sandbox is not saved"
[[ "$ERR" == *failedPrecondition* ]] || fail "stopped refusal text"
sbx --cloud template rm t-disk; want_rc 1 "rm without --force"
sbx --cloud template rm -f t-disk; want_rc 0 "template rm by name"
sbx --cloud template rm -f t-disk; want_rc 1 "rm of a gone template"
sbx --cloud template ls --json; jtrue '[t["name"] for t in J["templates"]] == ["t-mem"]' || fail "rm removed it"
cleanup_cloud
sbx --cloud template rm -f t-mem; want_rc 0 "template rm"
ok "--cloud template: save of a running sandbox (disk, all), ls, rm, create --template with its processes, refusals"

# sbx move (README "Move", reference/sbx-cloud.md §6): the filesystem to the other side, a new name.
sbx create --quiet --name mover --memory 6g shell "$WS"; want_rc 0 "create the sandbox to move"
sbx exec mover sh -c 'echo moved-file > "$HOME/note.txt"'; want_rc 0 "a file in HOME"
run bash -c "'$BIN' move mover --to cloud </dev/null"; want_rc 1 "a move without a terminal or --force"; [[ "$ERR" == *"--force"* ]] || fail "says --force"
sbx --cloud move mover --to cloud; want_rc 1 "move under --cloud"
FAKE_SBX_MOVE_OUTPUT=quiet sbx move mover --to cloud --force --ttl 5s; want_rc 1 "a ttl under 15s"
meta mover 'M["status"] == "running"' || fail "a refused move leaves the source as it was"
sbx move mover --to cloud --force --name moved; want_rc 0 "move to the cloud"
[[ "$ERR" == *"does not move"* ]] || fail "warns that the workspace stays"
sbx --cloud ls --json; jtrue 'len(J["sandboxes"]) == 1 and J["sandboxes"][0]["name"].startswith("moved-") and J["sandboxes"][0]["size"] == "medium"' || fail "the destination: a suffixed name, memory rounded up to a size"
MOVED=$(jget 'J["sandboxes"][0]["id"]')
meta mover 'M["status"] == "stopped"' || fail "the local source stopped and kept"
sbx --cloud exec "$MOVED" cat note.txt; want_out moved-file "HOME travelled"
FAKE_SBX_MOVE_CLOUD_PLATFORM=linux/arm64 sbx move "$MOVED" --to local --force; want_rc 1 "platform mismatch"
sbx move "$MOVED" --to local --force --ttl 1h; want_rc 1 "--ttl to local"
sbx move "$MOVED" --to local --force --name mover; want_rc 0 "move back"
sbx ls --json; BACK=$(jget '[s["name"] for s in J["sandboxes"] if s["name"].startswith("mover-")][0]')
[ -n "$BACK" ] || fail "a taken local name gets a suffix"
sbx exec "$BACK" cat note.txt; want_out moved-file "HOME came back"
sbx --cloud ls --json; jtrue 'J["sandboxes"][0]["status"] == "stopped"' || fail "the cloud source stopped after the move"
FAKE_SBX_MOVE_CRASH=after-create sbx move "$BACK" --to cloud --force --name crashed; want_rc 137 "crash after the destination exists"
sbx --cloud ls --json; jtrue 'any(s["name"].startswith("crashed-") for s in J["sandboxes"])' || fail "a crashed move left its destination"
# A local sandbox holds at most 32 GiB (= xl): limits above it come from a newer sbx, modelled in meta.json.
sbx create --quiet --name huge --memory 32g shell "$WS"
"$PY" -c 'import json,sys; p=sys.argv[1]; M=json.load(open(p)); M["memory"]="64g"; json.dump(M, open(p, "w"))' "$SBXS/huge/meta.json"
sbx move huge --to cloud --force; want_rc 1 "over xl"
[[ "$ERR" == *"largest cloud size"* ]] || fail "over xl text"
sbx rm --force huge; sbx rm --force "$BACK"; sbx rm --force mover
cleanup_cloud
ok "move: --force without a terminal, refusals before capture, HOME both ways, names, sources stopped, crash"

echo "PASS: $PASS checks"
