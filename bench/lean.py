"""The lean load series (issue 39): wrk with bench/wrk/mcp.lua drives the servers, so the figures are the
server's and not the Qt client's. Legacy era: one MCP session per connection (initialize,
notifications/initialized, then the workload); modern era (MCP 2026-07-28): no session, the `_meta`
fields on every request and the MCP headers. bench.py's `mcp` benchmark calls lean_series()."""
import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "wrk", "mcp.lua")
MODERN = "2026-07-28"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": MODERN,
               "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
               "io.modelcontextprotocol/clientCapabilities": {}}


def wrk_path():
    return shutil.which("wrk")


def run_wrk(url, connections, seconds, era, method, tool=None, arguments="{}"):
    """One closed-loop run: `connections` connections (one wrk thread each, so one session each)."""
    args = [wrk_path(), "-t", str(connections), "-c", str(connections), "-d", f"{int(seconds)}s", "--timeout", "10s",
            "-s", SCRIPT, url, "--", era, method]
    if tool:
        args += [tool, arguments]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=seconds + 60)
    line = next((l for l in reversed(p.stdout.splitlines()) if l.startswith("{")), None)
    if p.returncode != 0 or not line:
        raise RuntimeError(f"wrk failed ({p.returncode}): {p.stderr.strip()[:500] or p.stdout.strip()[:500]}")
    r = json.loads(line)
    r["errors"] = r["http_errors"] + r["rpc_errors"] + r["socket_errors"] + r["timeouts"]
    return r


def modern_probe(url, method, tool=None, arguments=None):
    """(True, None) when the server answers a modern request with a result; (False, reason) otherwise.
    A 400 is a server of the legacy era: "not supported by this server", which is not a failure."""
    params = {"_meta": MODERN_META}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if tool:
        params.update({"name": tool, "arguments": arguments or {}})
        headers["Mcp-Name"] = tool
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        text = e.read().decode("utf-8", "replace")[:300]
        if e.code == 400:
            return False, f"not supported by this server (HTTP 400 to a {MODERN} request: {text})"
        return False, f"HTTP {e.code} to a {MODERN} request: {text}"
    except OSError as e:
        return False, f"no answer to a {MODERN} request: {e}"
    if text.startswith("event:") or "\ndata:" in text:
        text = "".join(l[5:] for l in text.splitlines() if l.startswith("data:"))
    try:
        answer = json.loads(text)
    except ValueError:
        return False, f"a {MODERN} request got no JSON: {text[:200]}"
    if "result" not in answer or answer["result"].get("isError"):
        return False, f"a {MODERN} request failed: {text[:300]}"
    return True, None


def _load(label, server, era, clients, method, tool, r):
    out = {"benchmark": "mcp_load", "client": "wrk", "server": server, "era": era, "method": method, "tool": tool,
           "clients": clients, "label": label}
    out.update({k: r[k] for k in ("requests", "seconds", "rps", "p50_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms",
                                  "errors", "http_errors", "rpc_errors", "socket_errors", "timeouts")})
    if r.get("failure"):
        out["first_failure"] = r["failure"]
    return out


def _ratio(kind, scenario, clients, a, b, goal):
    t = round(a["rps"] / b["rps"], 2) if b["rps"] else None
    p = round(a["p99_ms"] / b["p99_ms"], 3) if b["p99_ms"] else None
    r = {"benchmark": kind, "client": "wrk", "scenario": scenario, "clients": clients, "throughput_ratio": t,
         "p99_ratio": p, "errors": a["errors"] + b["errors"]}
    r["goal_met"] = bool(t is not None and p is not None and goal(t, p) and r["errors"] == 0)
    return r


def lean_series(serve_url, sdk_url, scenarios, clients, seconds, warmup, machine, log):
    """scenarios: [(label, method, tool or None)]. Returns the result records (see bench/README.md)."""
    if not wrk_path():
        return [{"benchmark": "mcp_lean", "supported": False,
                 "reason": "wrk is not installed (apt-get install wrk)"}]
    results = []
    modern = {}
    for label, method, tool in scenarios:
        ok, why = modern_probe(serve_url, method, tool)
        modern[label] = (ok, why)
        if not ok:
            results.append({"benchmark": "mcp_modern", "scenario": label, "supported": False, "reason": why})
            log(f"mcp (wrk, modern {MODERN}) {label}: {why}")
    for label, method, tool in scenarios:
        for c in clients:
            # The SDK, then chat2sbx legacy and modern twice, alternating: the era comparison is between
            # adjacent runs of the same server (after the SDK's run, node's collector and the audit fold of
            # the previous run could land on whichever came next), each era's better run counts.
            runs = [("sdk", "legacy", sdk_url, 1), ("chat2sbx", "legacy", serve_url, 1)]
            if modern[label][0]:
                runs += [("chat2sbx", "modern", serve_url, 1), ("chat2sbx", "legacy", serve_url, 2),
                         ("chat2sbx", "modern", serve_url, 2)]
            got, best = {}, {}
            for server, era, url, repeat in runs:
                if warmup:
                    run_wrk(url, c, warmup, era, method, tool)
                r = _load(label, server, era, c, method, tool, run_wrk(url, c, seconds, era, method, tool))
                r["loadavg"] = machine()["loadavg"]
                r["repeat"] = repeat
                results.append(r)
                got.setdefault((server, era), r)
                if (server, era) not in best or r["rps"] > best[(server, era)]["rps"]:
                    best[(server, era)] = r
            results.append(_ratio("mcp_ratio", label, c, got[("chat2sbx", "legacy")], got[("sdk", "legacy")],
                                  lambda t, p: t >= 3 and p <= 1 / 3))
            if ("chat2sbx", "modern") in best:
                results.append(_ratio("mcp_modern_ratio", label, c, best[("chat2sbx", "modern")],
                                      best[("chat2sbx", "legacy")], lambda t, p: t >= 0.9 and p <= 1.1))
    log("\n  lean client (wrk)         clients  chat2sbx rps   sdk rps  ratio | chat2sbx p99  sdk p99  ratio  goal"
        "  | modern rps  p99   vs legacy")
    for r in results:
        if r["benchmark"] != "mcp_ratio":
            continue
        pick = {(x["server"], x["era"]): x for x in results if x["benchmark"] == "mcp_load"
                and x["label"] == r["scenario"] and x["clients"] == r["clients"] and x.get("repeat", 1) == 1}
        mr = next((x for x in results if x["benchmark"] == "mcp_modern_ratio" and x["scenario"] == r["scenario"]
                   and x["clients"] == r["clients"]), None)
        a, b, m = pick[("chat2sbx", "legacy")], pick[("sdk", "legacy")], pick.get(("chat2sbx", "modern"))
        line = (f"  {r['scenario']:<25} {r['clients']:>7}  {a['rps']:>12.0f} {b['rps']:>9.0f} {r['throughput_ratio']:>6}"
                f" | {a['p99_ms']:>12.3f} {b['p99_ms']:>8.3f} {r['p99_ratio']:>6}  {'met' if r['goal_met'] else 'MISSED'}")
        if m:
            line += (f"  | {m['rps']:>10.0f} {m['p99_ms']:.3f} {mr['throughput_ratio']:.2f}x (p99 {mr['p99_ratio']:.2f}x, "
                     f"better of 2 each)" if mr else "")
        else:
            line += "  | modern: not supported by this server"
        log(line)
    return results
