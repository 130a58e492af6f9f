#!/usr/bin/env python3
"""The tray's own figures, on a desktop of its own (bench/tray.sh runs this inside
tests/desktop/desktop-session.sh: Xvfb, openbox, trayer's XEmbed tray). Prints each figure with its
goal (issue "The tray where its users are", item 7) as met or MISSED, and writes them as JSON.

  idle RSS of `chat2sbx tray` (fake sbx, a fresh home)   <= 1.5x a bare QSystemTrayIcon program
  the popup made and painted at its first open (the tray makes it then), 100 and 1000 sandboxes
                                                       <= 100 ms
  the popup painted after opening, 100 sandboxes        <= 100 ms (median of 7)
  memory given back when the popup closes              back within 5 MiB of before it opened
  the icon in the tray after the start                 <= 1 s
  a real click on the icon to the popup painted, the real `chat2sbx tray` with 100 sandboxes
                                                       <= 100 ms (median of 7; the tray's own
                                                       "painted" line on the monotonic clock)
"""
import json, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import seed_sleeping_sandboxes  # noqa: E402  (bench.py runs nothing on import)

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


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tray_env(root):
    home = os.path.join(root, "home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ)
    env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
                "CHAT2SBX_DATA_ROOT": os.path.join(home, ".chat2sbx"), "CHAT2SBX_PORT": str(free_port()),
                "CHAT2SBX_ENABLE_TUNNEL": "0", "CHAT2SBX_SBX": fake_sbx,
                "FAKE_SBX_STATE": os.path.join(root, "sbx-state"), "CHAT2SBX_SBX_ENV": "FAKE_SBX_*",
                "CHAT2SBX_WARM_SANDBOXES": "0", "QT_LOGGING_RULES": "*.debug=false;chat2sbx.tray.timing.info=true"})
    return env


def icon_geometry():
    """The tray icon's window (XEmbed, in trayer's panel): its centre on the screen, or None."""
    tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True).stdout
    for line in tree.splitlines():
        m = re.search(r'"chat2sbx".*?(\d+)x(\d+)\+-?\d+\+-?\d+\s+\+(-?\d+)\+(-?\d+)', line)
        if m and 8 <= int(m.group(1)) <= 64 and 8 <= int(m.group(2)) <= 64:
            w, h, x, y = map(int, m.groups())
            return x + w // 2, y + h // 2
    return None


def start_tray(env, log_path):
    log = open(log_path, "ab")
    return subprocess.Popen([chat2sbx, "tray"], env=env, stdout=subprocess.DEVNULL, stderr=log)


def stop_tray(proc):
    proc.terminate()
    proc.wait(timeout=30)


def real_tray():
    root = tempfile.mkdtemp(prefix="chat2sbx-bench-tray-")
    env = tray_env(root)
    t0 = time.monotonic()
    proc = start_tray(env, os.path.join(root, "tray.log"))
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
        stop_tray(proc)


PAINTED = re.compile(rb"popup painted at monotonic (\d+) ms")


def painted_lines(log_path):
    with open(log_path, "rb") as f:
        return [int(m.group(1)) for m in PAINTED.finditer(f.read())]


def click_to_paint(count=100, rounds=7):
    """The real `chat2sbx tray` with `count` sandboxes: a pointer click on its icon (xdotool) to the
    popup's first paint handled, both on the monotonic clock; Escape closes it between rounds."""
    root = tempfile.mkdtemp(prefix="chat2sbx-bench-click-")
    env = tray_env(root)
    log_path = os.path.join(root, "tray.log")
    proc = start_tray(env, log_path)   # once, for its database
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(os.path.join(env["CHAT2SBX_DATA_ROOT"], "state", "chat2sbx.sqlite")) or not icon_in_tray():
            if time.monotonic() > deadline:
                raise RuntimeError("the tray did not come up")
            time.sleep(0.05)
        time.sleep(1)
    finally:
        stop_tray(proc)
    seed_sleeping_sandboxes(env["CHAT2SBX_DATA_ROOT"], env["FAKE_SBX_STATE"], count)
    proc = start_tray(env, log_path)
    times = []
    try:
        deadline = time.monotonic() + 60
        while (centre := icon_geometry()) is None:
            if time.monotonic() > deadline:
                raise RuntimeError("the tray icon did not show")
            time.sleep(0.05)
        time.sleep(3)   # the start's reconciliation and first list are done
        for _ in range(rounds):
            centre = icon_geometry() or centre   # trayer may have moved it since
            seen = len(painted_lines(log_path))
            subprocess.run(["xdotool", "mousemove", str(centre[0]), str(centre[1])], check=True)
            time.sleep(0.2)
            clicked = time.monotonic() * 1000.0
            subprocess.run(["xdotool", "click", "1"], check=True)
            deadline = time.monotonic() + 15
            while len(lines := painted_lines(log_path)) <= seen:
                if time.monotonic() > deadline:
                    windows = [l.strip() for l in subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True,
                                                                 text=True).stdout.splitlines() if "chat2sbx" in l]
                    raise RuntimeError(f"no 'popup painted' line after a click at {centre}; windows: {windows}")
                time.sleep(0.005)
            times.append(lines[seen] - clicked)
            time.sleep(0.5)
            subprocess.run(["xdotool", "key", "Escape"], check=True)
            time.sleep(1.0)
        times.sort()
        return {"sandboxes": count, "click_to_painted_ms": times, "click_to_painted_ms_median": times[len(times) // 2],
                "rss_mib_after": rss_mib(proc.pid)}
    finally:
        stop_tray(proc)


bare = run_json("bare")
popup100 = run_json("popup", "100")
popup1000 = run_json("popup", "1000")
tray = real_tray()
click100 = click_to_paint(100)
figures = {"bare": bare, "popup_100": popup100, "popup_1000": popup1000, "tray": tray, "click_100": click100}

goals = [
    ("tray idle RSS / bare QSystemTrayIcon", tray["rss_mib"] / bare["rss_mib"], 1.5, "x",
     f"{tray['rss_mib']:.1f} MiB / {bare['rss_mib']:.1f} MiB"),
    ("popup made and painted at its first open, 100 sandboxes", popup100["first_open_made_and_painted_ms"], 100.0, " ms", ""),
    ("popup made and painted at its first open, 1000 sandboxes", popup1000["first_open_made_and_painted_ms"], 100.0, " ms", ""),
    ("popup open to painted, 100 sandboxes (median)", popup100["open_to_painted_ms_median"], 100.0, " ms", ""),
    ("popup open to painted, 1000 sandboxes (median)", popup1000["open_to_painted_ms_median"], 100.0, " ms", ""),
    ("memory kept after the popup closed, 100 sandboxes", popup100["rss_mib_after_close"] - popup100["rss_mib_before"], 5.0,
     " MiB", f"{popup100['rss_mib_before']:.1f} -> open {popup100['rss_mib_open']:.1f} -> closed {popup100['rss_mib_after_close']:.1f}"),
    ("real click on the icon to painted, 100 sandboxes (median)", click100["click_to_painted_ms_median"], 100.0, " ms",
     "worst " + f"{click100['click_to_painted_ms'][-1]:.0f} ms"),
    ("tray icon registered after the start", tray["icon_registered_s"] if tray["icon_registered_s"] is not None else 99.0, 1.0, " s", ""),
]
for name, value, goal, unit, note in goals:
    verdict = "met" if value <= goal else "MISSED"
    print(f"{name:52s} {value:8.2f}{unit:4s} goal <= {goal:g}{unit}  {verdict}  {note}")
if out_path:
    with open(out_path, "w") as f:
        json.dump(figures, f, indent=1)
