"""A class through the load balancer: 1 replica against 2 behind deploy/haproxy.cfg, at 100 and 200 learners.

    python bench/bench_lb.py                       # 100 and 200 learners × 3 Steps, 1 and 2 replicas (~10 min)
    python bench/bench_lb.py --sessions 50 --clicks 2

Runs what deploy/compose.yaml runs, on loopback and without Docker (as tests/e2e/test_balancers.py
does): two ``streamlit run app.py`` replicas on free ports and Debian's HAProxy with deploy/haproxy.cfg,
its addresses given through the environment variables the file reads. "1 replica" is the same
file with both server lines naming the first replica; "2 replicas" names both. For each class
size the two are run one after the other in this one run (a shared machine slows both alike), each
class as bench_load.py's (``classroom``: websocket learners open the page, switch to the training
view and click Step K times, each click checked), through HAProxy's address (``--url`` in
bench_load.py terms). Server CPU per click sums the replicas' processes.

Bounded: at most 250 learners, 10 clicks, a time budget per class; every process started here is
stopped by its pid. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, Server, fmt_ms, fmt_ratio, free_port, machine_note, quantile, table  # noqa: E402
import bench_load  # noqa: E402

CFG = ROOT / "deploy" / "haproxy.cfg"
START_S = 300  # each replica warms before its health check says ok (server/warm.py)
HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")


class Balancer:
    """HAProxy with deploy/haproxy.cfg on a free loopback port, in front of ``backends`` (host:port, two)."""

    def __init__(self, backends: tuple[str, str], timeout: float = 60.0):
        self.port, stats = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = os.environ | {"LB_BIND": f"127.0.0.1:{self.port}", "STATS_BIND": f"127.0.0.1:{stats}",
                            "APP1": backends[0], "APP2": backends[1]}
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([HAPROXY, "-db", "-f", str(CFG)], env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:  # HAProxy answers once a replica it checked is up
            try:
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                        self.url + "_stcore/health", timeout=2) as r:
                    if r.read().decode().strip() == "ok":
                        break
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("HAProxy did not come up in front of the replicas")
            time.sleep(0.25)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)
        self.log.close()


def one_class(lb: Balancer, pids: list[int], n: int, args) -> dict:
    target = bench_load.RemoteApp(lb.url, pids)
    cpu0, t0 = target.cpu(), time.perf_counter()
    s = asyncio.run(bench_load.classroom(target.ws_url, False, n, args.clicks, args.loads_at_once, args.think,
                                         args.budget, args.click_timeout, cpu=target.cpu))
    s["cpu_class_end"] = target.cpu()
    asyncio.run(bench_load.close_all(s.pop("tabs")))
    s["wall"] = time.perf_counter() - t0
    s["cpu"] = target.cpu() - cpu0
    return s


def row(label: str, n: int, s: dict, clicks: int) -> list[str]:
    c = s["clicks"]
    per_click = (s["cpu_class_end"] - s.get("cpu_class_start", float("nan"))) / len(c) if c else float("nan")
    return [label, str(n), f"{len(c)} / {n * clicks}", fmt_ms(quantile(c, 0.5)), fmt_ms(quantile(c, 0.95)),
            fmt_ms(max(c) if c else float("nan")), str(len(s["errors"])), fmt_ms(quantile(s["ready"], 0.5)),
            f"{s['cpu']:.0f} s / {s['wall']:.0f} s", fmt_ms(per_click)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[100, 200], help="class sizes")
    bench_load.class_arguments(ap)
    args = ap.parse_args()
    if HAPROXY is None:
        raise SystemExit("bench_lb needs Debian's haproxy (apt-get install haproxy)")
    bench_load.need_websockets()
    sizes = [max(1, min(n, bench_load.MAX_SESSIONS)) for n in args.sessions]
    args.clicks = max(1, min(args.clicks, bench_load.MAX_CLICKS))
    print(f"# bench_lb: a class through HAProxy (deploy/haproxy.cfg), 1 replica vs 2\n\n{machine_note()}\n")
    t0 = time.perf_counter()
    rows, results = [], {}
    with Server(ROOT / "app.py", timeout=START_S) as a, Server(ROOT / "app.py", timeout=START_S) as b:
        one = f"127.0.0.1:{a.port}"
        for n in sizes:
            for label, backends, pids in (("1 replica", (one, one), [a.pid]),
                                          ("2 replicas", (one, f"127.0.0.1:{b.port}"), [a.pid, b.pid])):
                lb = Balancer(backends)
                try:
                    asyncio.run(bench_load.classroom(bench_load.RemoteApp(lb.url).ws_url, False, 2, 1, 2, 0, 60, 120))
                    s = one_class(lb, pids, n, args)
                finally:
                    lb.stop()
                results[(label, n)] = s
                rows.append(row(label, n, s, args.clicks))
    print(table(["replicas", "learners", "clicks served", "p50 ms", "p95 ms", "max ms", "errors", "open→view p50 ms",
                 "servers' CPU / wall", "servers' CPU ms per click"], rows))
    print("\n### 2 replicas against 1, same class size (ratios of the 1-replica figure to the 2-replica one)\n")
    ratio_rows = []
    for n in sizes:
        one_s, two_s = results[("1 replica", n)], results[("2 replicas", n)]
        ratio_rows.append([str(n)] + [fmt_ratio(quantile(one_s["clicks"], q) / quantile(two_s["clicks"], q))
                                      for q in (0.5, 0.95)])
    print(table(["learners", "p50: 1 replica / 2", "p95: 1 replica / 2"], ratio_rows))
    errors = [f"{k[0]}, {k[1]}: {e}" for k, s in results.items() for e in s["errors"]]
    if errors:
        print("\nErrors (first 10):\n" + "\n".join(f"- {e}" for e in errors[:10]))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
