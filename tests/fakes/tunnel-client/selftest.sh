#!/usr/bin/env bash
# Self-test of the fake tunnel-client. Usage: selftest.sh /path/to/tunnel-client
# Starts mcp_responder.py (same folder) as the MCP server. Exits non-zero on the first mismatch.
set -u
BIN=${1:?usage: selftest.sh /path/to/tunnel-client}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/faketunnel-selftest.XXXXXX)
PIDS=()
TID=tunnel_0123456789abcdef0123456789abcdef
KEY=sk-selftest-SECRETKEYVALUE-42
TOKEN=local-token-SECRETTOKEN-7
# Debian's python3, which deps.sh installs: a version manager's shim first on PATH (pyenv's here)
# costs about 0.4 s a call, and these scripts call it a hundred times.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
unset CONTROL_PLANE_TUNNEL_ID CONTROL_PLANE_API_KEY OPENAI_API_KEY MCP_SERVER_URL MCP_EXTRA_HEADERS \
      MCP_DISCOVERY_EXTRA_HEADERS HEALTH_LISTEN_ADDR HEALTH_URL_FILE LOG_LEVEL LOG_FORMAT \
      FAKE_TUNNEL_LOG FAKE_TUNNEL_EXIT_AT_ONCE FAKE_TUNNEL_EXIT_AFTER_S FAKE_TUNNEL_STOP_DELAY_MS \
      FAKE_TUNNEL_IGNORE_SIGTERM FAKE_TUNNEL_PROBE_FAILURES_FILE FAKE_TUNNEL_PROBE_FAILURE FAKE_TUNNEL_POLL_STATUS \
      FAKE_TUNNEL_POLL_MS FAKE_TUNNEL_NO_DOCTOR MCP_COMMAND MCP_STARTUP_WAIT_TIMEOUT TUNNEL_CLIENT_CONFIG \
      TUNNEL_CLIENT_PROFILE TUNNEL_CLIENT_PROFILE_FILE TUNNEL_CLIENT_PROFILE_DIR LOG_FILE

cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

PASS=0
fail() { echo "FAIL: $*" >&2; [ -n "${LAST_ERR:-}" ] && [ -f "$LAST_ERR" ] && sed 's/^/  stderr| /' "$LAST_ERR" >&2; exit 1; }
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }

# wait_until TIMEOUT_S CMD...: polls every 0.1 s
wait_until() {
  local deadline=$(( $(date +%s%N) + ${1%.*} * 1000000000 )); shift
  while :; do
    "$@" && return 0
    [ "$(date +%s%N)" -ge "$deadline" ] && return 1
    sleep 0.1
  done
}
alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }
# http_get URL -> sets CODE and BODY
http_get() { BODY=$(curl -s -m 3 -w '\n%{http_code}' "$1"); CODE=${BODY##*$'\n'}; BODY=${BODY%$'\n'*}; }
ready_is() { http_get "$1/readyz"; [ "$CODE" = "$2" ]; }
# jcheck FILE PYEXPR: `L` is the list of JSON objects in FILE (one per line)
jcheck() {
  "$PY" - "$1" "$2" <<'PY'
import json, sys
L = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if eval('(' + sys.argv[2] + ')') else 1)
PY
}
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_responder NAME MODE -> MCP_URL, MODE_FILE, REC
start_responder() {
  local d=$WORK/$1; mkdir -p "$d"
  MODE_FILE=$d/mode; REC=$d/requests.jsonl; echo "$2" > "$MODE_FILE"; : > "$REC"
  "$PY" "$HERE/mcp_responder.py" "$d/port" "$MODE_FILE" "$REC" 2>"$d/responder.err" &
  PIDS+=($!)
  wait_until 10 test -s "$d/port" || fail "responder did not start"
  MCP_URL="http://127.0.0.1:$(cat "$d/port")/mcp"
}

# start_fake NAME ARGS... (env from caller) -> FPID, HURL (once listening), ERR, EVT
start_fake() {
  local name=$1; shift
  local d=$WORK/$name; mkdir -p "$d"
  ERR=$d/stderr; LAST_ERR=$ERR; EVT=$d/events.jsonl; URLF=$d/health-url
  FAKE_TUNNEL_LOG=$EVT "$BIN" run --control-plane.tunnel-id="$TID" --control-plane.api-key="file:$KEYFILE" \
    --health.listen-addr=127.0.0.1:0 --health.url-file="$URLF" "$@" >"$d/stdout" 2>"$ERR" &
  FPID=$!; PIDS+=($FPID)
  wait_until 10 test -s "$URLF" || fail "$name: health URL file not written"
  HURL=$(cat "$URLF")
}

# run_fake NAME ARGS... : runs to completion -> RC, ERR, OUT
run_fake() {
  local name=$1; shift
  local d=$WORK/$name; mkdir -p "$d"
  ERR=$d/stderr; OUT=$d/stdout; LAST_ERR=$ERR
  timeout 10 "$BIN" "$@" >"$OUT" 2>"$ERR"; RC=$?
}

KEYFILE=$WORK/api-key; printf '  %s\n' "$KEY" > "$KEYFILE"
TOKFILE=$WORK/token; printf '%s\n' "$TOKEN" > "$TOKFILE"
EMPTYFILE=$WORK/empty; printf '  \n' > "$EMPTYFILE"
[ -x "$BIN" ] || fail "$BIN is not executable"

# ---------------------------------------------------------------- version, usage, flag syntax
run_fake version --version
[ "$RC" = 0 ] && grep -q '^0\.0\.13-dev' "$OUT" || fail "--version"
run_fake version2 version
[ "$RC" = 0 ] && [ "$(wc -l < "$OUT")" = 1 ] || fail "version"
ok "--version and version print one version line"

run_fake unknown-flag run --control-plane.tunnel-id="$TID" --no-such-flag=1
[ "$RC" = 1 ] && grep -q 'unknown flag: --no-such-flag' "$ERR" || fail "unknown flag should exit 1"
run_fake unknown-root --bogus
[ "$RC" = 1 ] || fail "unknown root flag should exit 1"
run_fake unknown-cmd frobnicate
[ "$RC" = 1 ] || fail "unknown command should exit 1"
run_fake missing-value run --control-plane.tunnel-id
[ "$RC" = 1 ] && grep -q 'flag needs an argument' "$ERR" || fail "flag without value should exit 1"
run_fake positional run extra-arg
[ "$RC" = 1 ] || fail "positional argument should exit 1"
run_fake run-help run --help
[ "$RC" = 0 ] && grep -q -- '--mcp.extra-headers' "$OUT" || fail "run --help"
ok "unknown flags/commands exit 1 (every error does); run --help works"

# ---------------------------------------------------------------- validation (exit 1, one line, no key)
export FAKE_TUNNEL_EXIT_AT_ONCE=0   # stop right after validation for the accepting cases
U=http://127.0.0.1:9/mcp
expect_invalid() { # NAME PATTERN ARGS...
  local name=$1 pat=$2; shift 2
  run_fake "$name" run "$@"
  [ "$RC" = 1 ] || fail "$name: expected exit 1, got $RC"
  [ "$(wc -l < "$ERR")" = 1 ] || fail "$name: expected one stderr line"
  grep -q -- "$pat" "$ERR" || fail "$name: stderr lacks '$pat'"
}
expect_invalid no-tunnel 'tunnel ID is required' --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
expect_invalid bad-tunnel-upper 'invalid tunnel ID' --control-plane.tunnel-id=tunnel_0123456789ABCDEF0123456789abcdef --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
expect_invalid bad-tunnel-short 'invalid tunnel ID' --control-plane.tunnel-id=tunnel_0123 --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
expect_invalid bad-tunnel-nonhex 'invalid tunnel ID' --control-plane.tunnel-id=tunnel_0123456789abcdefg123456789abcdef --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
expect_invalid no-key 'API key is required' --control-plane.tunnel-id=$TID --mcp.server-url=$U
expect_invalid key-file-missing "$WORK/nope" --control-plane.tunnel-id=$TID --control-plane.api-key="file:$WORK/nope" --mcp.server-url=$U
expect_invalid key-file-empty 'is empty' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$EMPTYFILE" --mcp.server-url=$U
expect_invalid key-env-unset 'FT_KEY_VAR.*not set' --control-plane.tunnel-id=$TID --control-plane.api-key=env:FT_KEY_VAR --mcp.server-url=$U
FT_KEY_VAR= expect_invalid key-env-empty 'FT_KEY_VAR.*is empty' --control-plane.tunnel-id=$TID --control-plane.api-key=env:FT_KEY_VAR --mcp.server-url=$U
FT_KEY_VAR="$KEY with space" expect_invalid key-malformed 'malformed' --control-plane.tunnel-id=$TID --control-plane.api-key=env:FT_KEY_VAR --mcp.server-url=$U
expect_invalid no-mcp-url 'MCP server URL is required' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE"
expect_invalid bad-mcp-url 'invalid mcp.server-url' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=ftp://x/mcp
expect_invalid header-file-missing "$WORK/nofile" --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --mcp.extra-headers="X-Local-Token: file:$WORK/nofile"
expect_invalid header-env-unset 'FT_TOK_VAR' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --mcp.extra-headers="X-Local-Token: env:FT_TOK_VAR"
expect_invalid header-no-colon "expected 'Key: Value'" --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --mcp.extra-headers="X-Local-Token"
expect_invalid bad-health-addr 'invalid health.listen-addr' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --health.listen-addr=nowhere
expect_invalid level-needs-format "requires 'struct-text' or 'json'" --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --log.level=debug
expect_invalid bad-format 'unsupported log format' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --log.format=pretty
expect_invalid literal-key 'must be prefixed' --control-plane.tunnel-id=$TID --control-plane.api-key="$KEY" --mcp.server-url=$U
FAKE_TUNNEL_EXIT_AT_ONCE=abc expect_invalid bad-fault-var 'FAKE_TUNNEL_EXIT_AT_ONCE' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
MCP_COMMAND="npx some-server" expect_invalid mcp-command-env 'duplicate channel "main" from mcp.command' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
HOME=$WORK/home TUNNEL_CLIENT_PROFILE=work expect_invalid profile-env "read config file $WORK/home/.config/tunnel-client/work.yaml" --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
TUNNEL_CLIENT_CONFIG=$WORK/none.yaml expect_invalid config-env "read config file $WORK/none.yaml" --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
expect_invalid bad-startup-wait 'invalid mcp.startup-wait-timeout' --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --mcp.startup-wait-timeout=soon
ok "invalid configurations exit 1 with one line naming the problem (MCP_COMMAND, a missing profile or config file included)"

# accepted forms (exit 0 through FAKE_TUNNEL_EXIT_AT_ONCE=0); check the key source in the event log
expect_accepted() { # NAME SOURCE ARGS...
  local name=$1 src=$2; shift 2
  local evt=$WORK/$name.events
  FAKE_TUNNEL_LOG=$evt run_fake "$name" run "$@"
  [ "$RC" = 0 ] || fail "$name: expected exit 0, got $RC"
  jcheck "$evt" "[e['api_key_source'] for e in L if e['event']=='configured'] == ['$src']" || fail "$name: api_key_source != $src"
}
expect_accepted key-file flag:file --control-plane.tunnel-id $TID --control-plane.api-key "file:$KEYFILE" --mcp.server-url $U
FT_KEY_VAR=$KEY expect_accepted key-env flag:env --control-plane.tunnel-id=$TID --control-plane.api-key=env:FT_KEY_VAR --mcp.server-url=$U
CONTROL_PLANE_TUNNEL_ID=$TID CONTROL_PLANE_API_KEY=$KEY MCP_SERVER_URL=$U OPENAI_API_KEY=other expect_accepted env-fallback env:CONTROL_PLANE_API_KEY
CONTROL_PLANE_TUNNEL_ID=$TID OPENAI_API_KEY=$KEY MCP_SERVER_URL=$U expect_accepted openai-fallback env:OPENAI_API_KEY
expect_accepted url-kv flag:file --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url="url=$U,channel=main"
expect_accepted base-url flag:file --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --control-plane.base-url=https://api.openai.com --log.level=debug --log.format=json
expect_accepted ignored-flag flag:file --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --control-plane.poll-timeout 30s --log.http-raw-unsafe
grep -q 'ignoring --control-plane.poll-timeout' "$ERR" || fail "ignored real flag should be reported"
mkdir -p "$WORK/xdg/tunnel-client"; echo 'config_version: 1' > "$WORK/xdg/tunnel-client/work.yaml"
XDG_CONFIG_HOME=$WORK/xdg TUNNEL_CLIENT_PROFILE=work expect_accepted profile flag:file --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U
jcheck "$WORK/profile.events" "[e['config_file'] for e in L if e['event']=='configured'] == ['$WORK/xdg/tunnel-client/work.yaml']" || fail "profile not loaded"
expect_accepted startup-wait flag:file --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --mcp.startup-wait-timeout=1m30s
jcheck "$WORK/startup-wait.events" "[e['startup_wait_ms'] for e in L if e['event']=='configured'] == [90000]" || fail "startup wait"
ok "key via file:/env:/env fallbacks accepted; a readable profile is loaded; real flags accepted"

unset FAKE_TUNNEL_EXIT_AT_ONCE
FAKE_TUNNEL_EXIT_AT_ONCE=5 FAKE_TUNNEL_LOG=$WORK/at-once.events run_fake exit-at-once5 run --control-plane.tunnel-id=$TID \
  --control-plane.api-key="file:$KEYFILE" --mcp.server-url=$U --health.listen-addr=127.0.0.1:0 --health.url-file="$WORK/at-once-url"
[ "$RC" = 5 ] || fail "FAKE_TUNNEL_EXIT_AT_ONCE=5 exited $RC"
[ ! -e "$WORK/at-once-url" ] || fail "FAKE_TUNNEL_EXIT_AT_ONCE must exit before listening"
jcheck "$WORK/at-once.events" "[e['event'] for e in L] == ['start','configured','exit'] and L[-1]['code']==5" || fail "at-once events"
ok "FAKE_TUNNEL_EXIT_AT_ONCE exits with the code before listening"

# ---------------------------------------------------------------- happy path (JSON answer)
start_responder json json
export FT_TOK_VAR=env-token-value
start_fake happy --mcp.server-url "$MCP_URL" --mcp.extra-headers "X-Local-Token: file:$TOKFILE" \
  --mcp.extra-headers="X-Env-Token: env:FT_TOK_VAR" --mcp.extra-headers "x-literal: plain value" --log.level=info
http_get "$HURL/healthz"
[ "$CODE" = 200 ] && [ "$BODY" = 'live' ] || fail "healthz: $CODE $BODY"
wait_until 5 ready_is "$HURL" 200 || fail "happy: not ready ($CODE $BODY)"
[ "$BODY" = 'ready' ] || fail "readyz body: $BODY"
grep -q 'INFO mcp session initialized protocol_version=2025-06-18' "$ERR" || fail "no 'mcp session initialized' log line"
wait_until 3 jcheck "$REC" "any(e['method']=='DELETE' for e in L)" || fail "happy: the probe session was not closed with DELETE"
jcheck "$REC" "
[(e['method'], e['path']) for e in L if not isinstance(e['body'], dict) and e['method'] != 'DELETE'] ==
  [('POST','/mcp'),('GET','/mcp'),('GET','/.well-known/oauth-protected-resource/mcp'),('GET','/.well-known/oauth-protected-resource')]
" || fail "happy: discovery requests differ from the real client's: $(cat "$REC")"
"$PY" - "$REC" <<'PY' > "$REC.mcp"
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if isinstance(e['body'], dict): print(l.strip())
PY
jcheck "$REC.mcp" "
len(L)==2 and L[0]['method']=='POST' and L[0]['path']=='/mcp'
and L[0]['headers']['accept']=='application/json, text/event-stream'
and L[0]['headers']['content-type']=='application/json'
and L[0]['headers']['x-local-token']=='$TOKEN' and L[0]['headers']['x-env-token']=='env-token-value'
and L[0]['headers']['x-literal']=='plain value'
and L[0]['body']=={'jsonrpc':'2.0','id':1,'method':'initialize','params':{'protocolVersion':'2025-06-18','capabilities':{},'clientInfo':{'name':'tunnel-client-fake','version':'0'}}}
and L[1]['body']=={'jsonrpc':'2.0','method':'notifications/initialized'}
and L[1]['headers']['mcp-session-id']=='sess-0123456789abcdef'
and L[1]['headers']['mcp-protocol-version']=='2025-06-18'
and L[1]['headers']['x-local-token']=='$TOKEN'
and 'authorization' not in L[0]['headers']
" || fail "happy: recorded requests do not match: $(cat "$REC")"
ok "discovery (POST+GET /mcp, both well-known URLs, all 404: optional), initialize + initialized + DELETE; ready"
http_get "$HURL/metrics"
[ "$CODE" = 200 ] && echo "$BODY" | grep -q '^# TYPE commands_poll_last_successful_timestamp_seconds gauge' || fail "metrics: $CODE"
wait_until 5 "$PY" -c '
import re, sys, time, urllib.request
t = urllib.request.urlopen(sys.argv[1] + "/metrics").read().decode()
v = float(re.search(r"^commands_poll_last_successful_timestamp_seconds\{[^}]*\} (\S+)$", t, re.M).group(1))
sys.exit(0 if abs(time.time() - v) < 10 else 1)' "$HURL" || fail "the poll gauge is not recent"
ok "/metrics: Prometheus text; commands_poll_last_successful_timestamp_seconds is recent"
http_get "$HURL/nothing"
[ "$CODE" = 404 ] || fail "unknown path should 404"
jcheck "$EVT" "
[e['event'] for e in L if e['event'] in ('start','configured','listening','ready')] == ['start','configured','listening','ready'] and all(e['pid']==$FPID for e in L)
and L[0]['argv'][1]=='run' and not any('$KEY' in a for a in L[0]['argv'])
and L[1]['extra_header_names']==['X-Local-Token','X-Env-Token','X-Literal']
" || fail "happy: event log: $(cat "$EVT")"
ok "FAKE_TUNNEL_LOG records start (pid, argv, env names), configuration, listening and ready"
kill -TERM $FPID
wait_until 3 dead $FPID || fail "SIGTERM did not stop the fake"
wait $FPID; RC=$?
[ "$RC" = 0 ] || fail "SIGTERM exit code $RC"
jcheck "$EVT" "L[-1]['event']=='exit' and L[-1]['signal']=='SIGTERM' and L[-1]['code']==0" || fail "exit event"
[ ! -e "$URLF" ] || fail "health URL file should be removed on clean stop"
! grep -q -e "$KEY" -e "$TOKEN" "$ERR" "$WORK/happy/stdout" "$EVT" || fail "a secret leaked into output"
ok "SIGTERM: exit 0 promptly, exit event with signal, URL file removed, no secret in output"

# ---------------------------------------------------------------- SSE answers
for m in sse sse-open; do
  start_responder "r-$m" "$m"
  start_fake "fake-$m" --mcp.server-url="$MCP_URL"
  wait_until 5 ready_is "$HURL" 200 || fail "$m: not ready ($CODE $BODY)"
  jcheck "$REC" "[e for e in L if isinstance(e['body'], dict)][1]['headers'].get('mcp-session-id')=='sess-0123456789abcdef'" || fail "$m: requests"
  kill -INT $FPID; wait_until 3 dead $FPID || fail "SIGINT did not stop the fake"
  wait $FPID; RC=$?; [ "$RC" = 0 ] || fail "SIGINT exit code $RC"
  jcheck "$EVT" "L[-1]['event']=='exit' and L[-1]['signal']=='SIGINT'" || fail "SIGINT exit event"
done
ok "SSE initialize answers (closed and held-open streams) accepted; SIGINT exits 0"

# ---------------------------------------------------------------- one probe: a failure is final
for m in error500 nosession rpcerror noversion notify200 garbage; do
  case $m in
    error500) why='HTTP 500' ;; nosession) why='no Mcp-Session-Id' ;; rpcerror) why='JSON-RPC error -32602' ;;
    noversion) why='no protocolVersion' ;; notify200) why='expected 202 or 204' ;; garbage) why='not a JSON object' ;;
  esac
  start_responder "r-$m" "$m"
  start_fake "once-$m" --mcp.server-url="$MCP_URL"
  wait_until 5 grep -q "ERROR failed to connect to mcp error=.*$why" "$ERR" || fail "$m: no 'failed to connect to mcp' log"
  http_get "$HURL/readyz"
  [ "$CODE" = 503 ] && [[ "$BODY" == "mcp probe failed: "*"$why"* ]] || fail "$m: readyz $CODE $BODY"
  kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop $m fake"
done
echo 1 > "$WORK/fail1"
echo json > "$MODE_FILE"
FAKE_TUNNEL_PROBE_FAILURES_FILE=$WORK/fail1 FAKE_TUNNEL_PROBE_FAILURE=http start_fake once-injected --mcp.server-url="$MCP_URL"
wait_until 5 ready_is "$HURL" 503 || fail "injected http failure: ready"
sleep 1.5
ready_is "$HURL" 503 && [[ "$BODY" == "mcp probe failed: POST initialize: HTTP 503"* ]] || fail "injected: $CODE $BODY"
[ "$(cat "$WORK/fail1")" = 0 ] || fail "the failure counter was not consumed"
jcheck "$EVT" "[e['event'] for e in L].count('probe')==1" || fail "the probe was repeated without --mcp.startup-wait-timeout"
ok "a failed start-up probe leaves /readyz at 503 'mcp probe failed: ...' for the life of the process (no retry)"
kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop injected fake"

start_fake refused --mcp.server-url="http://127.0.0.1:$(free_port)/mcp"
sleep 1
ready_is "$HURL" 503 && [[ "$BODY" == "oauth discovery failed: "* || "$BODY" == "mcp probe failed: "* ]] || fail "refused: $CODE $BODY"
kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop refused fake"
ok "unreachable MCP server without a startup wait: not ready, for good"

# ---------------------------------------------------------------- --mcp.startup-wait-timeout
echo 3 > "$WORK/fail3"
FAKE_TUNNEL_PROBE_FAILURES_FILE=$WORK/fail3 start_fake wait-ok --mcp.server-url="$MCP_URL" --mcp.startup-wait-timeout=5s
wait_until 5 ready_is "$HURL" 200 || fail "startup wait: refused probes were not retried ($CODE $BODY)"
[ "$(grep -c 'WARN retrying MCP startup probe' "$ERR")" = 3 ] || fail "startup wait: expected 3 retry lines"
jcheck "$EVT" "[e['event'] for e in L].count('probe')==4" || fail "startup wait: expected 4 attempts"
kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop wait-ok fake"
echo 1 > "$WORK/fail1"
FAKE_TUNNEL_PROBE_FAILURES_FILE=$WORK/fail1 FAKE_TUNNEL_PROBE_FAILURE=http start_fake wait-http --mcp.server-url="$MCP_URL" --mcp.startup-wait-timeout=5s
sleep 0.5
ready_is "$HURL" 503 && [[ "$BODY" == "mcp probe failed: "* ]] || fail "startup wait must not retry an HTTP failure: $CODE $BODY"
kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop wait-http fake"
echo 100 > "$WORK/fail100"
FAKE_TUNNEL_PROBE_FAILURES_FILE=$WORK/fail100 start_fake wait-timeout --mcp.server-url="$MCP_URL" --mcp.startup-wait-timeout=800ms
sleep 1.3
ready_is "$HURL" 503 && [[ "$BODY" == "mcp startup wait failed: "* ]] || fail "startup wait deadline: $CODE $BODY"
kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop wait-timeout fake"
ok "--mcp.startup-wait-timeout retries refused probes until ready or the deadline ('mcp startup wait failed'), never an HTTP failure"

# ---------------------------------------------------------------- control plane: refused key
FAKE_TUNNEL_POLL_STATUS=401 start_fake refused-key --mcp.server-url="$MCP_URL" --log.format=json
wait_until 5 ready_is "$HURL" 200 || fail "refused key: /readyz should still be 200"
count_ge() { [ "$(grep -c -- "$2" "$1")" -ge "$3" ]; }
wait_until 5 count_ge "$WORK/refused-key/stdout" '"msg":"poll failed; backing off"' 3 || fail "refused key: no poll failure lines"
jcheck "$WORK/refused-key/stdout" "all(e['status_code']==401 and e['level']=='WARN' for e in L if e['msg']=='poll failed; backing off')" || fail "refused key: log fields"
http_get "$HURL/metrics"
echo "$BODY" | grep -q '^commands_poll_last_successful_timestamp_seconds{[^}]*} 0$' || fail "refused key: gauge should be 0"
alive $FPID || fail "refused key: the client exited"
kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop refused-key fake"
ok "FAKE_TUNNEL_POLL_STATUS=401: ready, 'poll failed; backing off' (status_code 401) forever, gauge 0, never exits"

# ---------------------------------------------------------------- LOG_FILE moves the log
LOG_FILE=$WORK/client.log start_fake log-file --mcp.server-url="$MCP_URL"
wait_until 5 ready_is "$HURL" 200 || fail "log-file: not ready"
grep -q 'level=INFO msg="mcp session initialized"' "$WORK/client.log" || fail "LOG_FILE: log not in the file"
[ ! -s "$WORK/log-file/stdout" ] && [ ! -s "$WORK/log-file/stderr" ] || fail "LOG_FILE: the log still reached stdout/stderr"
kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop log-file fake"
ok "LOG_FILE: the log goes to the file (struct-text), nothing on stdout/stderr"

# ---------------------------------------------------------------- doctor
run_fake doctor-ok doctor --explain --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url="$MCP_URL" --health.listen-addr=127.0.0.1:0
[ "$RC" = 0 ] && grep -q '^RESULT ok' "$OUT" && grep -q '^CHECK mcp_server_reachable *PASS' "$OUT" || fail "doctor ok: rc $RC $(cat "$OUT")"
run_fake doctor-down doctor --explain --control-plane.tunnel-id=$TID --control-plane.api-key="file:$KEYFILE" --mcp.server-url="http://127.0.0.1:$(free_port)/mcp" --health.listen-addr=127.0.0.1:0
[ "$RC" = 2 ] && grep -q '^RESULT fail' "$OUT" && grep -q '^FAILED_CHECKS .*mcp_server_reachable' "$OUT" && grep -q '^What to do next:' "$OUT" || fail "doctor down: rc $RC"
run_fake doctor-badid doctor --control-plane.tunnel-id=tunnel_x --control-plane.api-key="file:$KEYFILE" --mcp.server-url="$MCP_URL"
[ "$RC" = 2 ] && grep -q '^CHECK tunnel_id *FAIL' "$OUT" || fail "doctor bad id: rc $RC"
FAKE_TUNNEL_NO_DOCTOR=1 run_fake doctor-none doctor --explain
[ "$RC" = 1 ] && grep -q 'unknown command "doctor"' "$ERR" || fail "FAKE_TUNNEL_NO_DOCTOR: rc $RC"
ok "doctor: CHECK lines, RESULT ok (exit 0) / fail (exit 2) with --explain; FAKE_TUNNEL_NO_DOCTOR=1 acts like a client without it"

# ---------------------------------------------------------------- fault modes


start_responder after json
t0=$(date +%s%N)
FAKE_TUNNEL_EXIT_AFTER_S=1.5 start_fake after --mcp.server-url="$MCP_URL"
wait_until 5 ready_is "$HURL" 200 || fail "exit-after: not ready first"
wait $FPID; RC=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$RC" = 3 ] || fail "exit-after: exit code $RC"
[ "$ms" -ge 1400 ] && [ "$ms" -le 4000 ] || fail "exit-after: exited after $ms ms"
jcheck "$EVT" "L[-1]['event']=='exit' and L[-1]['code']==3 and L[-1]['signal'] is None" || fail "exit-after event"
ok "FAKE_TUNNEL_EXIT_AFTER_S=1.5: ready, then exit 3 after ${ms} ms"

FAKE_TUNNEL_IGNORE_SIGTERM=1 start_fake ignore --mcp.server-url="$MCP_URL"
wait_until 5 ready_is "$HURL" 200 || fail "ignore: not ready"
kill -TERM $FPID; sleep 1
alive $FPID || fail "ignore: SIGTERM was not ignored"
http_get "$HURL/healthz"; [ "$CODE" = 200 ] || fail "ignore: stopped serving"
grep -q 'ignoring SIGTERM' "$ERR" || fail "ignore: no log line"
kill -KILL $FPID; { wait $FPID; } 2>/dev/null; dead $FPID || fail "ignore: SIGKILL"
jcheck "$EVT" "L[-1]['event']=='signal_ignored' and not any(e['event']=='exit' for e in L)" || fail "ignore: events"
ok "FAKE_TUNNEL_IGNORE_SIGTERM=1: SIGTERM ignored, SIGKILL needed"

FAKE_TUNNEL_STOP_DELAY_MS=1200 start_fake slow-stop --mcp.server-url="$MCP_URL"
wait_until 5 ready_is "$HURL" 200 || fail "slow-stop: not ready"
t0=$(date +%s%N); kill -TERM $FPID
sleep 0.6; alive $FPID || fail "slow-stop: stopped before its delay"
wait_until 3 dead $FPID || fail "slow-stop: did not stop"
wait $FPID; RC=$?; ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$RC" = 0 ] && [ "$ms" -ge 1100 ] || fail "slow-stop: rc $RC after $ms ms"
ok "FAKE_TUNNEL_STOP_DELAY_MS=1200: a graceful SIGTERM stop takes ${ms} ms, exit 0"

# ---------------------------------------------------------------- health address handling
P=$(free_port)
d=$WORK/fixed; mkdir -p "$d"; LAST_ERR=$d/stderr
"$BIN" run --control-plane.tunnel-id $TID --control-plane.api-key "file:$KEYFILE" --mcp.server-url "$MCP_URL" \
  --health.listen-addr "127.0.0.1:$P" 2>"$d/stderr" & FPID=$!; PIDS+=($FPID)
wait_until 5 ready_is "http://127.0.0.1:$P" 200 || fail "fixed port: not ready"
run_fake in-use run --control-plane.tunnel-id $TID --control-plane.api-key "file:$KEYFILE" --mcp.server-url "$MCP_URL" \
  --health.listen-addr "127.0.0.1:$P"
[ "$RC" = 1 ] && grep -q 'address already in use' "$ERR" || fail "port in use: rc $RC"
kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop fixed fake"
ok "--health.listen-addr host:port honoured; a busy port exits 1"

if ! ss -ltn 2>/dev/null | grep -q '127.0.0.1:8080 \|\*:8080 \|0.0.0.0:8080 '; then
  d=$WORK/default; mkdir -p "$d"; LAST_ERR=$d/stderr
  "$BIN" run --control-plane.tunnel-id $TID --control-plane.api-key "file:$KEYFILE" --mcp.server-url "$MCP_URL" \
    2>"$d/stderr" & FPID=$!; PIDS+=($FPID)
  wait_until 5 ready_is "http://127.0.0.1:8080" 200 || fail "default 127.0.0.1:8080: not ready"
  kill -TERM $FPID; wait_until 3 dead $FPID || fail "stop default fake"
  ok "default health address 127.0.0.1:8080"
else
  echo "skip - port 8080 busy, default health address not checked"
fi

echo "selftest: all $PASS checks passed"
