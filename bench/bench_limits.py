"""One learner at every limit beside a class: does the class still step? (issue 26)

    python bench/bench_limits.py                    # 30 learners alone, then beside the learner at every limit, twice (~16 min)
    python bench/bench_limits.py --learners 10 --clicks 3 --tabs 2 --exports 1

Two scenarios, each on a fresh ``streamlit run app.py`` (127.0.0.1, a free port), with the same
learners speaking Streamlit's websocket protocol (bench_load.py's Tab):

1. *alone*: ``--learners`` learners open the training view, wait for each other, and click Step
   ``--clicks`` times each, a think time of up to ``--think`` s before each click.
2. *beside*: the same class, next to one learner at every limit: the expensive address (E = 512,
   LSTM pooling, T = 256 on the English reviews) opened in ``--tabs`` tabs, each clicking Run (50
   steps) again as soon as its last click was served or refused; and a tab that loads the
   100,000 × 300 example, opens ④ and asks for W as CSV ``--exports`` times at once (the download
   button's deferred file, as the browser asks for it, then fetched over HTTP); ``--tsv`` adds the
   Projector's vectors.tsv at 100k beside it; ``--large-opens`` more learners open the page at
   ``?preset=large`` one after another while the class steps (each a fresh session, closed once its
   training view is drawn). The class starts once all of that has been asked for.

Printed: the class's Step p50/p95/max in each scenario and the ratio of the p95s (goal ≤ 1.5);
what the learner at every limit got (Runs served and refused with ``server_busy``, exports built,
their times); the server's peak RSS against what the memory admission lets it reach (its RSS at
start + MemAvailable at start − the reserve, core/cost.py). Prints, asserts nothing. Bounded:
at most 60 learners × 10 clicks, 6 tabs, 3 exports, and nothing starts after ``--budget`` s.
The machine is shared with other work: its load average is printed beside the numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, fmt_bytes, fmt_ms, machine_note, quantile, rss_bytes, table  # noqa: E402
from bench_load import FAULTHANDLER, RunError, StreamlitServer, Tab, check, need_websockets, open_view, step  # noqa: E402

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

GOAL_RATIO = 1.5
EXPENSIVE = "section=train&lang=en&preset=reviews_en&embedding_dim=512&pooling=lstm&pad_mode=fixed&fixed_len=256"
BUSY_TEXT = "The server is busy"  # err.server_busy in English (inside the error box)
_REQUESTS = itertools.count(1)


def mem_available() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


class RssSampler(threading.Thread):
    """The server's RSS every ``period`` s, its peak kept."""

    def __init__(self, pid: int, period: float = 0.25):
        super().__init__(daemon=True)
        self.pid, self.period, self.peak, self._done = pid, period, 0, threading.Event()

    def run(self) -> None:
        while not self._done.wait(self.period):
            self.peak = max(self.peak, rss_bytes(self.pid))

    def stop(self) -> int:
        self._done.set()
        self.join(5)
        return self.peak


async def deferred_downloads(tab: Tab, key: str, n: int, base_url: str, timeout: float) -> list:
    """Ask ``n`` times at once for the deferred file of download button ``key``, as the browser does
    (one websocket, so one reader), then fetch each: (seconds until its URL came back, bytes), or
    the error."""
    el = tab.widgets[key][1][1]
    sent: dict[str, float] = {}
    for _ in range(n):
        msg = BackMsg()
        req = msg.backend_operation_request
        req.request_id = f"bench-{next(_REQUESTS)}"
        req.session_id = tab.session_id
        req.deferred_file.file_id = el.deferred_file_id
        sent[req.request_id] = time.perf_counter()
        await tab.ws.send(msg.SerializeToString())
    results, fetches = [], []
    deadline = time.monotonic() + timeout
    while len(results) + len(fetches) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            results.append(RunError(f"{tab.name}: {key} not built within {timeout:.0f} s"))
            break
        fm = ForwardMsg.FromString(await asyncio.wait_for(tab.ws.recv(), timeout=left))
        resp = fm.backend_operation_response
        if fm.WhichOneof("type") != "backend_operation_response" or resp.request_id not in sent:
            continue
        built = time.perf_counter() - sent[resp.request_id]
        if resp.error_msg:
            results.append(RunError(f"{tab.name}: {key}: {resp.error_msg} after {built:.1f} s"))
            continue
        url = resp.deferred_file.url
        fetches.append((built, asyncio.create_task(asyncio.to_thread(
            _fetch, url if url.startswith("http") else base_url + url))))
    for built, task in fetches:
        try:
            results.append((built, await task))
        except Exception as e:  # noqa: BLE001 - a result
            results.append(e)
    return results


def _fetch(url: str) -> int:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    n = 0
    with opener.open(url, timeout=600) as r:
        while chunk := r.read(1 << 20):
            n += len(chunk)
    return n


async def class_steps(server: StreamlitServer, args, deadline: float, started: asyncio.Event | None = None) -> dict:
    """The class: learners open the training view, then Step; returns their Step times and errors."""
    out = {"steps": [], "errors": [], "tabs": []}
    gate = asyncio.Semaphore(4)
    everyone = asyncio.Barrier(args.learners)

    async def learner(i: int) -> None:
        rnd = random.Random(i)
        tab = Tab(server.ws_url, f"learner {i}", args.click_timeout)
        out["tabs"].append(tab)
        ok = False
        try:
            async with gate:
                await open_view(tab)
            ok = True
        except Exception as e:  # noqa: BLE001 - a result
            out["errors"].append(f"learner {i} opening: {type(e).__name__}: {e}")
        await everyone.wait()
        if started is not None:
            await started.wait()
        for k in range(1, args.clicks + 1):
            if not ok or time.monotonic() > deadline:
                return
            await asyncio.sleep(rnd.uniform(0, args.think))
            try:
                out["steps"].append(await step(tab, k))
            except Exception as e:  # noqa: BLE001
                out["errors"].append(f"learner {i} click {k}: {type(e).__name__}: {e}")
                return

    await asyncio.gather(*(learner(i) for i in range(args.learners)))
    return out


async def opened(opening, name: str, out: dict, ready: asyncio.Barrier) -> bool:
    """Await ``opening``; False (its error kept in ``out``) if it failed. Then wait for the others."""
    try:
        await opening
        return True
    except Exception as e:  # noqa: BLE001 - a result
        out["errors"].append(f"{name} opening: {type(e).__name__}: {e}")
        return False
    finally:
        await ready.wait()


async def at_every_limit(server: StreamlitServer, args, deadline: float, class_done: asyncio.Event,
                         started: asyncio.Event) -> dict:
    """The learner at every limit: ``--tabs`` expensive tabs clicking Run, and ``--exports`` CSVs at 100k."""
    out = {"opens": [], "runs": [], "busy": 0, "exports": [], "large_opens": [], "errors": [], "tabs": []}
    asked = {"runs": 0, "exports": 0}
    ready = asyncio.Barrier(max(1, args.tabs + (1 if args.exports or args.tsv else 0)))

    async def expensive(i: int) -> None:
        tab = Tab(server.ws_url, f"expensive tab {i}", max(args.click_timeout, 300))
        tab.query = EXPENSIVE
        out["tabs"].append(tab)
        async def open_expensive() -> None:
            t0 = time.perf_counter()
            await tab.open()
            _, texts = await tab.run()
            check(tab, texts)
            out["opens"].append(time.perf_counter() - t0)
            tab.widget_id("run_steps")

        if not await opened(open_expensive(), tab.name, out, ready):
            return
        while not class_done.is_set() and time.monotonic() < deadline:
            asked["runs"] += 1
            if asked["runs"] == args.tabs:
                started.set()
            try:
                took, texts = await tab.run("run_steps")
                check(tab, texts)
            except Exception as e:  # noqa: BLE001
                out["errors"].append(f"{tab.name} Run: {type(e).__name__}: {e}")
                return
            if any(BUSY_TEXT in s for s in texts):
                out["busy"] += 1
                await asyncio.sleep(1.0)
            else:
                out["runs"].append(took)

    async def exporter() -> None:
        tab = Tab(server.ws_url, "100k exporter", 600)
        out["tabs"].append(tab)
        async def open_share() -> None:
            await open_view(tab, preset="large")
            from core.url_state import SECTIONS

            _, texts = await tab.run(section=tab.option("section", SECTIONS.index("share")))
            check(tab, texts)
            tab.widget_id("export_w_csv")

        if not await opened(open_share(), tab.name, out, ready):
            return
        asks = [("export_w_csv", args.exports), ("export_projector_vectors", 1 if args.tsv else 0)]
        for key, n in asks:
            if n:
                results = await deferred_downloads(tab, key, n, server.url, 900)
                for r in results:
                    (out["errors"].append(f"{key}: {r}") if isinstance(r, BaseException)
                     else out["exports"].append((key, *r)))

    async def large_opener() -> None:
        """Fresh learners opening ``?preset=large`` one after another while the class steps."""
        await started.wait()
        for i in range(args.large_opens):
            if class_done.is_set() or time.monotonic() > deadline:
                return
            tab = Tab(server.ws_url, f"100k opener {i}", 600)
            tab.query = "preset=large&section=train&lang=en"
            try:
                t0 = time.perf_counter()
                await tab.open()
                _, texts = await tab.run()
                check(tab, texts)
                tab.widget_id("step")
                out["large_opens"].append(time.perf_counter() - t0)
            except Exception as e:  # noqa: BLE001 - a result
                out["errors"].append(f"{tab.name}: {type(e).__name__}: {e}")
            finally:
                await tab.close()

    jobs = [expensive(i) for i in range(args.tabs)] + ([exporter()] if args.exports or args.tsv else [])
    if args.tabs == 0:
        started.set()
    opener = asyncio.create_task(large_opener()) if args.large_opens else None
    await asyncio.gather(*jobs)
    started.set()
    if opener is not None:
        await opener
    return out


async def scenario(beside: bool, args) -> dict:
    server = StreamlitServer(ROOT / "app.py", env=FAULTHANDLER, extra=["--server.fileWatcherType", "none"])
    rss0, avail0 = server.rss(), mem_available()
    sampler = RssSampler(server.pid)
    sampler.start()
    deadline = time.monotonic() + args.budget
    try:
        if not beside:
            result = await class_steps(server, args, deadline)
            heavy = None
        elif args.hog:
            hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            try:
                result = await class_steps(server, args, deadline)
            finally:
                hog.kill()
                hog.wait()
            heavy = None
        else:
            class_done, started = asyncio.Event(), asyncio.Event()
            heavy_task = asyncio.create_task(at_every_limit(server, args, deadline, class_done, started))
            result = await class_steps(server, args, deadline, started)
            class_done.set()
            heavy = await asyncio.wait_for(heavy_task, timeout=args.budget + 900)
        for tab in result["tabs"] + (heavy["tabs"] if heavy else []):
            await tab.close()
    finally:
        try:
            peak = sampler.stop()
            alive = server.proc.poll() is None
            tail = "" if alive else server.log_tail()
        finally:
            server.stop()
    return {"class": result, "heavy": heavy, "rss0": rss0, "avail0": avail0, "peak": peak, "alive": alive, "tail": tail}


def main() -> None:
    need_websockets()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--learners", type=int, default=30)
    ap.add_argument("--clicks", type=int, default=6)
    ap.add_argument("--think", type=float, default=1.0)
    ap.add_argument("--tabs", type=int, default=4)
    ap.add_argument("--exports", type=int, default=2)
    ap.add_argument("--hog", action="store_true", help="beside: only a separate process burning one core (the "
                    "floor for heavy work moved out of the server's process)")
    ap.add_argument("--tsv", action="store_true", help="also ask for vectors.tsv at 100k")
    ap.add_argument("--large-opens", type=int, default=0, help="fresh learners opening ?preset=large while the class steps")
    ap.add_argument("--budget", type=float, default=240.0, help="no click starts after this many seconds")
    ap.add_argument("--click-timeout", type=float, default=120.0)
    ap.add_argument("--rounds", type=int, default=2, help="alone/beside pairs, interleaved")
    args = ap.parse_args()
    args.rounds = max(1, min(args.rounds, 3))
    args.learners, args.clicks = max(1, min(args.learners, 60)), max(1, min(args.clicks, 10))
    args.tabs, args.exports = max(0, min(args.tabs, 6)), max(0, min(args.exports, 3))
    args.large_opens = max(0, min(args.large_opens, 10))
    from server.budget import default_lanes
    from server.admission import RESERVE_BYTES

    print(machine_note(), flush=True)
    pairs = []
    for r in range(args.rounds):  # alone, beside, alone, beside: each pair sees the same hour's load
        alone = asyncio.run(scenario(False, args))
        print(f"round {r + 1} alone done: " + machine_note(), flush=True)
        beside = asyncio.run(scenario(True, args))
        print(f"round {r + 1} beside done: " + machine_note(), flush=True)
        pairs.append((alone, beside))
    rows = []
    for r, (alone, beside) in enumerate(pairs, 1):
        for name, res in (("alone", alone), ("beside the learner at every limit", beside)):
            xs = res["class"]["steps"]
            rows.append([str(r), name, str(len(xs)), fmt_ms(quantile(xs, 0.5)), fmt_ms(quantile(xs, 0.95)),
                         fmt_ms(max(xs) if xs else float("nan")), str(len(res["class"]["errors"])), fmt_bytes(res["peak"]),
                         fmt_bytes(res["rss0"] + res["avail0"] - RESERVE_BYTES)])
    ratios = [quantile(b["class"]["steps"], 0.95) / quantile(a["class"]["steps"], 0.95) for a, b in pairs]
    print(f"\n{args.learners} learners × {args.clicks} Steps; beside: the expensive address in {args.tabs} tabs "
          f"clicking Run, {args.exports} CSV exports{' and vectors.tsv' if args.tsv else ''} at 100,000 × 300, "
          f"{args.large_opens} page opens at ?preset=large; {default_lanes()} lane(s) of the budget\n")
    print(table(["round", "class", "Steps served", "p50 ms", "p95 ms", "max ms", "errors", "server peak RSS",
                 "admission lets it reach"], rows))
    ratio = max(ratios)
    print(f"\nStep p95 beside / alone, each round: {', '.join(f'{x:.2f}×' for x in ratios)} "
          f"(goal ≤ {GOAL_RATIO}×: {'met' if ratio <= GOAL_RATIO else 'MISSED'} in the worst round)")
    for h in (b["heavy"] for _, b in pairs):
        if not h:
            continue
        print(f"learner at every limit: page opens {', '.join(f'{x:.1f}' for x in h['opens'])} s; "
              f"Runs served {len(h['runs'])} ({', '.join(f'{x:.1f}' for x in h['runs'])} s), refused busy {h['busy']}; "
              f"exports {', '.join(f'{k} built {b:.1f} s, {fmt_bytes(n)}' for k, b, n in h['exports']) or 'none'}; "
              f"100k page opens {', '.join(f'{x:.1f}' for x in h['large_opens']) or 'none'} s")
        for e in h["errors"][:5]:
            print("  heavy error:", e)
    for name, res in ((n, x) for pair in pairs for n, x in zip(("alone", "beside"), pair)):
        for e in res["class"]["errors"][:5]:
            print(f"  {name} error:", e)
        if not res["alive"]:
            print(f"  {name}: the server died:\n{res['tail']}")
    print("\n" + machine_note())


if __name__ == "__main__":
    main()
