"""The health check while a class presses Step: is /_stcore/health queued behind the learners' work?

    python bench/bench_health.py                       # 100 learners × 3 Steps (bench_load.py's class), ~3 min
    python bench/bench_health.py --sessions 30

One `streamlit run app.py` on loopback. A poller asks its health check every 0.1 s (each answer
waited for up to 30 s) for 10 s while the server is idle, then while bench/bench_load.py's class
(``--url`` this server, the large scenario skipped) opens the page and presses Step. Printed: the
health check's latency (p50, p95, p99, max) idle and under the class, beside the class's own
click times from bench_load. A Kubernetes readiness probe's timeout (deploy/kubernetes.yaml)
must stay above the latency under the class, which bounds how long a busy pod answers its probe.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, Server, fmt_ms, machine_note, quantile, table  # noqa: E402

POLL_S = 0.1
IDLE_S = 10.0


def poll(url: str, out: list, stop: threading.Event) -> None:
    """(start, seconds, said ok) of each health check, one after another, until ``stop``."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while not stop.is_set():
        t = time.monotonic()
        try:
            with opener.open(url, timeout=30) as r:
                ok = r.read() == b"ok"
        except OSError:
            ok = False
        out.append((t, time.monotonic() - t, ok))
        time.sleep(POLL_S)


def row(name: str, part: list) -> list[str]:
    lat = [x[1] for x in part]
    return [name, str(len(lat)), str(sum(not x[2] for x in part)),
            *(fmt_ms(quantile(lat, q)) for q in (0.5, 0.95, 0.99)), fmt_ms(max(lat)) if lat else "–"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=100, help="learners (bench_load.py --sessions)")
    ap.add_argument("--clicks", type=int, default=3, help="Steps per learner (bench_load.py --clicks)")
    args = ap.parse_args()
    with Server(ROOT / "app.py") as server:
        samples: list = []
        stop = threading.Event()
        poller = threading.Thread(target=poll, args=(f"{server.url}/_stcore/health", samples, stop), daemon=True)
        poller.start()
        time.sleep(IDLE_S)  # the idle baseline is a fixed span of polls, not a wait for a condition
        idle = len(samples)
        t0 = time.monotonic()
        load = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_load.py"), "--url", f"{server.url}/",
                               "--pids", str(server.pid), "--sessions", str(args.sessions), "--clicks",
                               str(args.clicks), "--skip-large"], cwd=ROOT, capture_output=True, text=True)
        t1 = time.monotonic()
        stop.set()
        poller.join(timeout=35)
    busy = [x for x in samples[idle:] if t0 <= x[0] <= t1]
    print(f"# bench_health: /_stcore/health idle and under {args.sessions} learners × {args.clicks} Steps\n")
    print(machine_note() + "\n")
    print(table(["server", "checks", "not ok", "p50 ms", "p95 ms", "p99 ms", "max ms"],
                [row("idle", samples[:idle]), row(f"{args.sessions} learners pressing Step", busy)]))
    print("\nThe class's clicks, from bench_load.py:\n")
    print("\n".join(l for l in load.stdout.splitlines() if l.startswith("|") or l.startswith("Goal")))
    if load.returncode:
        print(load.stderr[-2000:])


if __name__ == "__main__":
    main()
