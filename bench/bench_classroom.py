"""A classroom: 30 learners on one server, each opening the app, going to the training view and
clicking Step K times. Loopback only; bounded in sessions, clicks and time.

    python bench/bench_classroom.py                         # 30 sessions × 5 Steps (~3–5 min)
    python bench/bench_classroom.py --sessions 10 --clicks 3
    python bench/bench_classroom.py --loads-at-once 5       # let more pages load at the same time
    python bench/bench_classroom.py --server-threads 1      # start the server with OMP_NUM_THREADS=1

One Chromium (Debian's, through Playwright's async API), one browser context per learner (its own
cookies, so its own Streamlit session). The class arrives first: every learner opens the app and
the training view, at most ``--loads-at-once`` pages loading at a time (30 pages loading Streamlit's
frontend at once on a 2-core machine take minutes, all of it in Chromium). Every page stays open,
so the server holds all 30 sessions. Then everyone clicks Step K times, each click as soon as the
previous one was served plus a random think time of up to ``--think`` seconds. Each Step is timed
inside the page, from ``button.click()`` until the server has served it: the stage (in a shadow
root under ``.st-key-stage``; bench_browser.py's ``__stage()``) has taken new data and its step
counter shows the new step, and Streamlit is idle (no status widget, nothing stale, the script not
running). The stage's glide to the new picture (320 ms of ``requestAnimationFrame``) is left out:
30 pages in one Chromium share 2 cores and a page in the background may not get animation frames,
so waiting for it would time the browser's scheduling, not the server; bench_browser.py times the
glide on one page.

One learner opens the app first (not counted) so the server has imported torch, scikit-learn and
plotly before the class arrives. The browsers share this machine's CPUs with the server: on a
2-core box the 30 renderers, not the server, are most of the wait (compare the server's CPU
seconds with the wall time); in a real classroom each learner's browser has its own machine.

Recorded: page loads and clicks served, click-to-served p50/p95/max, the time from opening the
page to a usable training view, the server's RSS (VmRSS of the streamlit process, sampled every
0.25 s) and CPU seconds, websocket messages, and errors (exceptions shown on a page, page script
errors, clicks that were never served).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CHROMIUM, CHROMIUM_ARGS, ROOT, launch_args, Server, cpu_seconds, fmt_bytes, fmt_ms, machine_note, rss_bytes, summary, table  # noqa: E402
from bench_browser import IN_VIEW, LIB, section_button  # noqa: E402

CLICK_TIMEOUT_MS = 90_000
LOAD_TIMEOUT_MS = 180_000

# A Step click, timed inside the page until the server has served it: the stage took new data
# (its ``data-updates`` counter went up) and its step counter shows the new step, and Streamlit is
# idle. The glide that follows (320 ms of requestAnimationFrame) is not waited for: see the docstring.
STEP_JS = """
async ({button, want, timeoutMs}) => {
  const s0 = __stage(), btn = document.querySelector(button);
  if (!s0 || !btn) return {error: s0 ? 'no button ' + button : 'no stage on the page'};
  const before = Number(s0.dataset.updates || 0), t0 = performance.now();
  const served = () => {
    const s = __stage();
    return !!s && (s !== s0 || Number(s.dataset.updates || 0) > before) && __stepText(s) === want && __idle();
  };
  return await new Promise(resolve => {
    // mutations of the page and of the stage's shadow root (a body observer does not see inside it)
    const observers = [document.body, s0].map(node => {
      const o = new MutationObserver(() => served() && end({served: performance.now() - t0}));
      o.observe(node, {subtree: true, childList: true, characterData: true, attributes: true});
      return o;
    });
    const limit = setTimeout(() => end({error: 'timeout: the stage shows step ' + __stepText(__stage())}), timeoutMs);
    const end = (res) => { observers.forEach(o => o.disconnect()); clearTimeout(limit); resolve(res); };
    btn.click();
  });
}
"""


class Sampler(threading.Thread):
    """The server's RSS every ``period`` seconds, until stopped."""

    def __init__(self, pid: int, period: float = 0.25):
        super().__init__(daemon=True)
        self.pid, self.period = pid, period
        self.samples: list[int] = []
        self.stop_event = threading.Event()

    def run(self) -> None:
        while not self.stop_event.is_set():
            self.samples.append(rss_bytes(self.pid))
            self.stop_event.wait(self.period)

    def stop(self) -> None:
        self.stop_event.set()
        self.join(timeout=5)


async def learner(i: int, browser, url: str, clicks: int, stats: dict, load_gate: asyncio.Semaphore,
                  all_ready: asyncio.Event, ready_count: list, sessions: int, deadline: float, think: float) -> None:
    """Arrive (at most ``load_gate`` pages loading at once), open the training view, wait for the
    whole class, then click Step ``clicks`` times, each as soon as the previous one was served
    (plus a think time of up to ``think`` seconds)."""
    import random

    rnd = random.Random(i)
    ctx = await browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    await ctx.add_init_script(LIB)  # __stage(), __idle(), __stepText(): the stage is in a shadow root
    page = await ctx.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda e: page_errors.append(str(e)[:160]))
    page.on("websocket", lambda ws: (ws.on("framesent", lambda _: stats.__setitem__("ws_sent", stats["ws_sent"] + 1)),
                                     ws.on("framereceived", lambda _: stats.__setitem__("ws_received", stats["ws_received"] + 1))))
    ready = False
    try:
        async with load_gate:
            t0 = time.perf_counter()
            await page.goto(url, timeout=LOAD_TIMEOUT_MS)
            await page.wait_for_selector(".st-key-section", timeout=LOAD_TIMEOUT_MS)
            await page.locator(section_button("train")).first.click(timeout=LOAD_TIMEOUT_MS)
            await page.wait_for_function(f"() => __idle() && !!__stage() && ({IN_VIEW['train']})()",
                                         timeout=LOAD_TIMEOUT_MS, polling=100)
            stats["ready"].append(time.perf_counter() - t0)
            stats["loads_ok"] += 1
            ready = True
    except Exception as e:  # noqa: BLE001 - a failed learner is a result, not a crash
        stats["errors"].append(f"learner {i} loading: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
    finally:
        ready_count[0] += 1
        if ready_count[0] >= sessions:
            all_ready.set()
    try:
        if ready:
            await asyncio.wait_for(all_ready.wait(), timeout=max(1.0, deadline - time.monotonic()))
            stats["class_started"] = stats["class_started"] or time.perf_counter()
            for k in range(1, clicks + 1):
                if time.monotonic() > deadline:
                    stats["errors"].append(f"learner {i}: time limit reached before click {k}")
                    break
                await asyncio.sleep(rnd.uniform(0, think))
                stats["clicks_tried"] += 1
                res = await page.evaluate(STEP_JS, {"button": ".st-key-step button", "want": str(k),
                                                    "timeoutMs": CLICK_TIMEOUT_MS})
                if res.get("served") is None:
                    stats["errors"].append(f"learner {i} click {k}: {res.get('error') or 'never served'}")
                    break
                stats["clicks"].append(res["served"] / 1e3)
                stats["clicks_ok"] += 1
            stats["class_ended"] = time.perf_counter()
            shown = await page.locator("[data-testid='stException']").count()
            if shown:
                stats["errors"].append(f"learner {i}: {shown} exception box(es) on the page")
    except Exception as e:  # noqa: BLE001
        stats["errors"].append(f"learner {i}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
    finally:
        stats["errors"] += [f"learner {i} page error: {e}" for e in page_errors]
        stats["pending_close"].append(ctx)


async def classroom(url: str, sessions: int, clicks: int, loads_at_once: int, think: float, budget_s: float,
                    on_all_done=None, chromium_args: list[str] = CHROMIUM_ARGS) -> dict:
    from playwright.async_api import async_playwright

    stats = {"ready": [], "clicks": [], "errors": [], "loads_ok": 0, "clicks_ok": 0, "clicks_tried": 0,
             "ws_sent": 0, "ws_received": 0, "class_started": None, "class_ended": None, "pending_close": []}
    deadline = time.monotonic() + budget_s
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=chromium_args)
        try:
            gate = asyncio.Semaphore(loads_at_once)
            all_ready = asyncio.Event()
            count = [0]
            tasks = [asyncio.create_task(learner(i, browser, url, clicks, stats, gate, all_ready, count, sessions,
                                                 deadline, think)) for i in range(sessions)]
            done, pending = await asyncio.wait(tasks, timeout=budget_s + 120)
            for t in pending:
                t.cancel()
                stats["errors"].append("a learner was cancelled at the time limit")
            stats["rss_all_connected"] = on_all_done() if on_all_done else None
            for ctx in stats.pop("pending_close"):
                await ctx.close()
        finally:
            await browser.close()
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--clicks", type=int, default=5, help="Step clicks per learner")
    ap.add_argument("--loads-at-once", type=int, default=3, help="most pages loading at the same time while the class arrives")
    ap.add_argument("--think", type=float, default=1.0, help="most seconds a learner waits between Steps (uniform)")
    ap.add_argument("--budget", type=float, default=270, help="seconds after which no new click starts")
    ap.add_argument("--server-threads", type=int, default=0,
                    help="start the server with OMP_NUM_THREADS/MKL_NUM_THREADS set to this (0: unset)")
    args = ap.parse_args()
    sessions = max(1, min(args.sessions, 60))
    env = {"OMP_NUM_THREADS": str(args.server_threads), "MKL_NUM_THREADS": str(args.server_threads)} if args.server_threads else None
    print(f"# bench_classroom: {sessions} learners × {args.clicks} Steps on one server\n\n{machine_note()}\n")
    chromium_args = launch_args()  # the tests' switches (support/browser.py), read before the event loop runs
    t0 = time.perf_counter()
    with Server(ROOT / "app.py", env=env) as srv:
        rss_cold = srv.rss()
        warm = asyncio.run(classroom(srv.url, 1, 1, 1, 0.0, 120, chromium_args=chromium_args))  # one page first: the server imports torch & co.
        rss0, cpu0 = srv.rss(), cpu_seconds(srv.pid)
        sampler = Sampler(srv.pid)
        sampler.start()
        stats = asyncio.run(classroom(srv.url, sessions, args.clicks, args.loads_at_once, args.think, args.budget,
                                      on_all_done=srv.rss, chromium_args=chromium_args))
        wall = time.perf_counter() - t0
        sampler.stop()
        time.sleep(2)
        rss_end, cpu_end = srv.rss(), cpu_seconds(srv.pid)
        alive = srv.proc.poll() is None
    stats["errors"] += [f"warm-up: {e}" for e in warm["errors"]]
    peak = max(sampler.samples or [0])
    c, r = summary(stats["clicks"]), summary(stats["ready"])
    runs = 2 * stats["loads_ok"] + stats["clicks_ok"]  # each learner: page load + switch to training, then Steps
    class_s = (stats["class_ended"] - stats["class_started"]) if stats["class_started"] and stats["class_ended"] else float("nan")
    rows = [
        ["learners (browser contexts, one Chromium)", f"{sessions}, all kept open; ≤ {args.loads_at_once} loading at once"],
        ["pages loaded to a usable training view", f"{stats['loads_ok']} / {sessions}"],
        ["open page → training view usable, p50 / max", f"{fmt_ms(r['p50'])} / {fmt_ms(r['max'])} ms"],
        ["Step clicks served (the stage shows the new step)", f"{stats['clicks_ok']} / {stats['clicks_tried']} tried, {sessions * args.clicks} planned"],
        ["click-to-served p50", f"{fmt_ms(c['p50'])} ms"],
        ["click-to-served p95", f"{fmt_ms(_q(stats['clicks'], 0.95))} ms"],
        ["click-to-served max", f"{fmt_ms(c['max'])} ms"],
        ["the class (everyone clicking) lasted", f"{class_s:.1f} s → {stats['clicks_ok'] / class_s:.2f} Steps served per second"
         if class_s == class_s and class_s > 0 else "–"],
        ["script runs served (loads + section switches + Steps)", str(runs)],
        ["websocket messages (browser→server / server→browser)", f"{stats['ws_sent']} / {stats['ws_received']}"],
        ["server RSS: started → after a warm-up learner (imports) → all learners connected → peak → end",
         f"{fmt_bytes(rss_cold)} → {fmt_bytes(rss0)} → {fmt_bytes(stats.get('rss_all_connected') or 0)} → "
         f"{fmt_bytes(peak)} → {fmt_bytes(rss_end)}"],
        ["server RSS per learner ((all connected − after warm-up) / learners)",
         fmt_bytes(((stats.get("rss_all_connected") or rss0) - rss0) / sessions)],
        ["server CPU seconds (user+sys) over the run", f"{cpu_end - cpu0:.1f} s in {wall:.0f} s wall"],
        ["server CPU per script run (static files and websocket work included)", f"{fmt_ms((cpu_end - cpu0) / max(1, runs))} ms"],
        ["server alive at the end", "yes" if alive else "NO"],
        ["errors", str(len(stats["errors"]))],
    ]
    print(table(["measure", "value"], rows))
    if stats["errors"]:
        print("\nErrors (first 15):\n" + "\n".join(f"- {e}" for e in stats["errors"][:15]))
    print(f"\n{machine_note()}; wall {wall:.0f} s")


def _q(xs: list[float], q: float) -> float:
    from _common import quantile

    return quantile(xs, q)


if __name__ == "__main__":
    main()
