#!/usr/bin/env python3
"""The tray's own figures, on a desktop of its own (bench/tray.sh runs this inside
tests/desktop/desktop-session.sh: Xvfb, openbox, trayer's XEmbed tray). Prints each figure with its
goal (issue "The tray where its users are", item 7) as met or MISSED, and writes them as JSON.

  idle RSS of `chat2sbx tray` (fake sbx, a fresh home)   <= 1.5x a bare QSystemTrayIcon program
  the popup painted after opening, 100 sandboxes        <= 100 ms (median of 7)
  memory given back when the popup closes              back within 5 MiB of before it opened
  the icon in the tray after the start                 <= 1 s
"""
import json, os, subprocess, sys, tempfile, time

build = sys.argv[1]
out_path = sys.argv[2] if len(sys.argv) > 2 else None
bench_tray = os.path.join(build, "bench", "chat2sbx-bench-tray")
chat2sbx = os.path.join(build, "app", "chat2sbx")
fake_sbx = os.path.join(build, "fakes", "sbx", "sbx")


def run_json(*args):
    return json.loads(subprocess.run([bench_tray, *args], check=True, capture_output=True, text=True,
                                     timeout=300).stdout.strip().splitlines()[-1])


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return -1.0


def icon_in_tray():
    tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True).stdout
    return '"chat2sbx"' in tree


def real_tray():
    root = tempfile.mkdtemp(prefix="chat2sbx-bench-tray-")
    home = os.path.join(root, "home")
    os.makedirs(home)
    env = dict(os.environ)
    env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
                "CHAT2SBX_DATA_ROOT": os.path.join(home, ".chat2sbx"), "CHAT2SBX_PORT": "0",
                "CHAT2SBX_ENABLE_TUNNEL": "0", "CHAT2SBX_SBX": fake_sbx,
                "FAKE_SBX_STATE": os.path.join(root, "sbx-state"), "CHAT2SBX_SBX_ENV": "FAKE_SBX_*",
                "CHAT2SBX_WARM_SANDBOXES": "0", "QT_LOGGING_RULES": "*.debug=false"})
    t0 = time.monotonic()
    proc = subprocess.Popen([chat2sbx, "tray"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    registered = None
    try:
        while time.monotonic() - t0 < 30:
            if icon_in_tray():
                registered = time.monotonic() - t0
                break
            time.sleep(0.02)
        time.sleep(5)   # idle: the server up, nothing asked
        return {"icon_registered_s": registered, "rss_mib": rss_mib(proc.pid)}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


bare = run_json("bare")
popup100 = run_json("popup", "100")
popup1000 = run_json("popup", "1000")
tray = real_tray()
figures = {"bare": bare, "popup_100": popup100, "popup_1000": popup1000, "tray": tray}

goals = [
    ("tray idle RSS / bare QSystemTrayIcon", tray["rss_mib"] / bare["rss_mib"], 1.5, "x",
     f"{tray['rss_mib']:.1f} MiB / {bare['rss_mib']:.1f} MiB"),
    ("popup open to painted, 100 sandboxes (median)", popup100["open_to_painted_ms_median"], 100.0, " ms", ""),
    ("popup open to painted, 1000 sandboxes (median)", popup1000["open_to_painted_ms_median"], 100.0, " ms", ""),
    ("memory kept after the popup closed, 100 sandboxes", popup100["rss_mib_after_close"] - popup100["rss_mib_before"], 5.0,
     " MiB", f"{popup100['rss_mib_before']:.1f} -> open {popup100['rss_mib_open']:.1f} -> closed {popup100['rss_mib_after_close']:.1f}"),
    ("tray icon registered after the start", tray["icon_registered_s"] if tray["icon_registered_s"] is not None else 99.0, 1.0, " s", ""),
]
for name, value, goal, unit, note in goals:
    verdict = "met" if value <= goal else "MISSED"
    print(f"{name:52s} {value:8.2f}{unit:4s} goal <= {goal:g}{unit}  {verdict}  {note}")
if out_path:
    with open(out_path, "w") as f:
        json.dump(figures, f, indent=1)
