"""Two versions of the app under the same class, interleaved in one run: bench_load.py's class, A B A B, beside the bare page.

    git archive main | tar -x -C /tmp/before                # the version to compare against
    python bench/diagnostics/ab_load.py --app /tmp/before/app.py --app app.py --rounds 2

Each ``--app`` gets its own fresh server (127.0.0.1, free port), warmed by one learner; then the
bare page (bench/bare_app.py) and each app take turns, ``--rounds`` times, with the same class
(``--sessions`` learners open the training view and click Step ``--clicks`` times). On a shared
machine the turns see the same load, so the per-round ratios to the bare page say more than any
one figure. Printed: p50, p95 and the server's CPU per click (after the whole class was in) for
each turn, and each app's CPU per click over the bare page's in the same round.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import ROOT, fmt_ms, fmt_ratio, machine_note, quantile, table  # noqa: E402
import bench_load  # noqa: E402


def one_class(server, bare: bool, args) -> dict:
    async def go():
        s = await bench_load.classroom(server.ws_url, bare, args.sessions, args.clicks, args.loads_at_once,
                                       args.think, args.budget, args.click_timeout, cpu=server.cpu)
        s["cpu_class_end"] = server.cpu()
        await bench_load.close_all(s.pop("tabs"))
        return s

    s = asyncio.run(go())
    c = s["clicks"]
    s["per_click"] = (s["cpu_class_end"] - s.get("cpu_class_start", float("nan"))) / len(c) if c else float("nan")
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--app", action="append", required=True, help="an app script (give two or more)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--sessions", type=int, default=100)
    bench_load.class_arguments(ap)
    args = ap.parse_args()
    bench_load.need_websockets()
    rounds = max(1, min(args.rounds, 4))
    args.sessions = max(1, min(args.sessions, bench_load.MAX_SESSIONS))
    print(f"# ab_load: {' vs '.join(args.app)}, {args.sessions} learners × {args.clicks} Steps, {rounds} rounds\n\n"
          f"{machine_note()}\n")
    t0 = time.perf_counter()
    rows = []
    servers = [("bare page", bench_load.StreamlitServer(ROOT / "bench" / "bare_app.py"), True)]
    try:
        for a in args.app:
            servers.append((a, bench_load.StreamlitServer(Path(a).resolve(), env=bench_load.FAULTHANDLER), False))
        for _, server, bare in servers:
            asyncio.run(bench_load.classroom(server.ws_url, bare, 1, 1, 1, 0, 60, 120))  # warmed, not counted
        for r in range(1, rounds + 1):
            bare_cpu = None
            for label, server, bare in servers:
                s = one_class(server, bare, args)
                bare_cpu = s["per_click"] if bare else bare_cpu
                rows.append([str(r), label, f"{len(s['clicks'])} / {args.sessions * args.clicks}",
                             fmt_ms(quantile(s["clicks"], 0.5)), fmt_ms(quantile(s["clicks"], 0.95)),
                             str(len(s["errors"])), fmt_ms(s["per_click"]),
                             "–" if bare else fmt_ratio(s["per_click"] / bare_cpu)])
    finally:
        for _, server, _ in servers:
            server.stop()
    print(table(["round", "page", "clicks served", "p50 ms", "p95 ms", "errors", "server CPU ms per click",
                 "CPU per click / bare's"], rows))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
