#!/usr/bin/env python3
"""Issue 22 figures (not timed tests): the server's memory under a 1 GiB POST, and the event-loop
time of edit's replace_all on 200k matches.

  bench/hardening.py [--build DIR] [--gib 1]

DIR defaults to build/release, or build/dev when only that one is built (an ASan build: its RSS
includes the sanitizers' shadow memory, so the figure is an upper bound).

Prints one JSON object per figure on stdout. Goals: peak RSS growth under the POST below 64 MB;
replace_all on 200k matches below 200 ms.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import Build, Serve, find_build_dir  # noqa: E402


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def post_memory(serve, total_bytes, chunked):
    """Streams `total_bytes` of body at the server; returns the RSS figures and what it answered."""
    pid = serve.proc.pid
    baseline = rss_kb(pid)
    peak = [baseline]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], rss_kb(pid))
            except OSError:
                return
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    s = socket.create_connection(("127.0.0.1", serve.port))
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{serve.port}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\n")
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {total_bytes}\r\n\r\n"
    s.sendall(head.encode())
    block = b" " * (1 << 20)
    sent = 0
    t0 = time.monotonic()
    try:
        while sent < total_bytes:
            data = (b"%x\r\n" % len(block)) + block + b"\r\n" if chunked else block
            s.sendall(data)
            sent += len(block)
    except OSError:
        pass   # the server refused and closed: what we want
    answer = b""
    s.settimeout(5)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    except OSError:
        pass
    s.close()
    time.sleep(0.2)
    stop.set()
    sampler.join()
    return {"bench": "post_memory", "chunked": chunked, "body_bytes": total_bytes, "sent_bytes": sent,
            "seconds": round(time.monotonic() - t0, 2), "answer": answer.split(b"\r\n", 1)[0].decode("latin-1"),
            "rss_baseline_mb": round(baseline / 1024, 1), "rss_peak_mb": round(peak[0] / 1024, 1),
            "rss_growth_mb": round((peak[0] - baseline) / 1024, 1), "goal_growth_mb": 64}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=None, help="build tree (default: build/release, else build/dev)")
    ap.add_argument("--gib", type=float, default=1.0)
    args = ap.parse_args()
    build = Build(find_build_dir(args.build), need_loadgen=False)
    extra = {}
    if build.kind != "release":
        # ASan keeps freed blocks in a 256 MB quarantine, which alone would look like a leak of every
        # byte read and dropped: without it the RSS is live memory plus the sanitizers' shadow.
        extra["ASAN_OPTIONS"] = "detect_leaks=0:quarantine_size_mb=0"
    print(json.dumps({"bench": "build", "dir": build.dir, "kind": build.kind, "env": extra}), flush=True)
    serve = Serve(build, extra_env=extra)
    try:
        serve.start()
        for chunked in (False, True):
            print(json.dumps(post_memory(serve, int(args.gib * (1 << 30)), chunked)), flush=True)
        healthy = subprocess.run(["curl", "-sf", f"http://127.0.0.1:{serve.port}/healthz"],
                                 stdout=subprocess.DEVNULL).returncode == 0
        print(json.dumps({"bench": "post_memory_after", "server_healthy": healthy}), flush=True)
    finally:
        serve.destroy()
    edit = os.path.join(build.dir, "bench", "chat2sbx-bench-edit")
    if not os.access(edit, os.X_OK):
        print(json.dumps({"bench": "edit_replace_all", "skipped": f"{edit} is not built"}), flush=True)
        return
    print(subprocess.run([edit], capture_output=True, text=True, check=True).stdout.strip(), flush=True)


if __name__ == "__main__":
    main()
