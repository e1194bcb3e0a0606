"""The first learner on a fresh server: the first page and each view's first switch, against the bare page and later switches.

    python bench/bench_warm.py                 # 3 fresh servers of each kind, interleaved (~2 min)
    python bench/bench_warm.py --runs 1 --rounds 2

Each run starts a fresh ``streamlit run bench/bare_app.py`` and a fresh ``streamlit run app.py``
(127.0.0.1, a free port), waits for each one's health check to say ok, then opens it in Chromium
(1280×720, English, a new browser context: nothing cached), timed from ``goto`` until the page is
drawn and idle (the bare page: its markdown and chart; the app: the lookup view's stage with W).
A second page (a new context) on the same server gives the warm page load. On the app's first
page it then switches the view to each of the other views and back to the lookup view, ``--rounds``
times: round 1 is each view's first switch, the later rounds are later switches. A switch is timed
in the page from the click until that view's own element is drawn, live (not stale) and
Streamlit idle (and, for the two stage views, the stage in that view's mode and still).

Printed side by side: the app's first page against the bare page's first page (issue 23: at most
1.5×), and each view's first switch against its later switches (at most 2×), beside the same on
a fresh server of bench/floor_views_app.py (the bare page with the app's view switch, each view
drawing the kinds of element the app's does, fed constants): Streamlit's own first-time cost of
those elements, the floor under the switch ratio. The bare page's own
first/second page ratio is the framework's floor for the first page: a fresh browser context fetches
and compiles Streamlit's frontend and opens a websocket, whatever the script does.

Bounded: at most 5 runs and 5 rounds, every wait has a timeout; every server started is stopped
(by its pid) when done. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, Server, fmt_ms, fmt_ratio, goal, launch_chromium, machine_note, table  # noqa: E402
from bench_browser import LIB as BROWSER_LIB  # noqa: E402 - __stage(), __idle()

GOAL_PAGE = 1.5
GOAL_SWITCH = 2.0
START_S = 300  # the app warms before its health check says ok: on a busy machine that takes a while
TIMEOUT_MS = 90_000
VIEWPORT = {"width": 1280, "height": 720}
SETTLE_MS = 500  # after a page is ready, before the next action (not timed)
VIEWS = ("lookup", "train", "lessons", "share")  # core/url_state.SECTIONS
MARKERS = {"lookup": "out_sentence", "train": "step", "lessons": "mode", "share": "import_state"}  # tests/e2e/helpers.py

LIB = BROWSER_LIB + r"""
window.__live = (key) => {
  const el = document.querySelector('.st-key-' + key);
  if (!el || el.offsetParent === null) return false;
  const c = el.closest('[data-testid="stElementContainer"]');
  return !(c && c.getAttribute('data-stale') === 'true');
};
window.__inView = ({view, marker, floor}) => {
  if (!__idle() || !__live(marker)) return false;
  if (floor || (view !== 'lookup' && view !== 'train')) return true;
  const s = __stage();
  return !!s && s.dataset.mode === view && s.dataset.animating !== '1'
    && s.querySelectorAll('.wpanel .wrow:not(.whead)').length > 0;
};
window.__bareReady = () => __idle()
  && [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')].some(e => e.textContent.startsWith('clicks: 0'))
  && [...document.querySelectorAll('.gtitle')].some(e => e.textContent.startsWith('bare chart 0'));
"""

SWITCH_JS = """
async ({label, view, marker, floor, timeoutMs}) => {
  const find = () => [...document.querySelectorAll('.st-key-section button')].find(b => b.textContent.trim() === label);
  const t00 = performance.now();
  while (!(__idle() && find()) && performance.now() - t00 < timeoutMs) await new Promise(r => setTimeout(r, 20));
  const btn = find();
  if (!btn) return {error: 'no button ' + label};
  const t0 = performance.now();
  btn.click();
  await new Promise(r => setTimeout(r, 30));  // let the rerun start before the first check
  while (performance.now() - t0 < timeoutMs) {
    if (__inView({view, marker, floor})) return {ms: performance.now() - t0};
    await new Promise(r => requestAnimationFrame(r));
  }
  return {error: 'timeout'};
}
"""


def open_page(browser, url: str, ready: str, arg=None):
    """A new context's page at ``url``; returns (page, seconds from goto until ``ready(arg)``)."""
    ctx = browser.new_context(locale="en-US", viewport=VIEWPORT)
    ctx.set_default_timeout(TIMEOUT_MS)
    ctx.add_init_script(LIB)
    page = ctx.new_page()
    t0 = time.perf_counter()
    page.goto(url, timeout=TIMEOUT_MS)
    page.wait_for_function(ready, arg=arg, timeout=TIMEOUT_MS, polling=20)
    took = time.perf_counter() - t0
    page.wait_for_timeout(SETTLE_MS)  # a run the first one asked for (the page's address, the keeper) ends
    page.wait_for_function(ready, arg=arg, timeout=TIMEOUT_MS, polling=20)
    return page, took


def switch(page, view: str, floor: bool = False) -> float:
    from components.i18n import t

    res = page.evaluate(SWITCH_JS, {"label": t("en", f"section.{view}"), "view": view, "marker": MARKERS[view],
                                    "floor": floor, "timeoutMs": TIMEOUT_MS})
    if res.get("error"):
        raise RuntimeError(f"switch to {view}: {res['error']}")
    return res["ms"] / 1e3


def switches(page, rounds: int, out: dict, floor: bool = False) -> None:
    for _ in range(rounds):
        for view in VIEWS[1:] + VIEWS[:1]:
            out[view].append(switch(page, view, floor))


def one_run(browser, rounds: int) -> dict:
    out: dict = {"switch": {v: [] for v in VIEWS}, "floor": {v: [] for v in VIEWS}}
    with Server(ROOT / "bench" / "bare_app.py") as bare:
        p, out["bare_first"] = open_page(browser, bare.url, "() => __bareReady()")
        p2, out["bare_second"] = open_page(browser, bare.url, "() => __bareReady()")
        p.context.close()
        p2.context.close()
    with Server(ROOT / "bench" / "floor_views_app.py") as floor:
        p, _ = open_page(browser, floor.url, "(a) => __inView(a)", {"view": "lookup", "marker": MARKERS["lookup"], "floor": True})
        switches(p, rounds, out["floor"], floor=True)
        p.context.close()
    app_ready = "(a) => __inView(a)"
    arg = {"view": "lookup", "marker": MARKERS["lookup"]}
    started = time.perf_counter()
    with Server(ROOT / "app.py", timeout=START_S) as app:  # entered once its health check says ok
        out["health_s"] = time.perf_counter() - started
        p, out["app_first"] = open_page(browser, app.url, app_ready, arg)
        switches(p, rounds, out["switch"])
        p2, out["app_second"] = open_page(browser, app.url, app_ready, arg)
        p.context.close()
        p2.context.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh servers of each kind (at most 5)")
    ap.add_argument("--rounds", type=int, default=3, help="switches to each view per run; the first is the first switch (2–5)")
    args = ap.parse_args()
    runs, rounds = max(1, min(args.runs, 5)), max(2, min(args.rounds, 5))
    from playwright.sync_api import sync_playwright

    print(f"# bench_warm: the first learner on a fresh server\n\n{machine_note()}\n")
    t0 = time.perf_counter()
    results = []
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for _ in range(runs):
                results.append(one_run(browser, rounds))
        finally:
            browser.close()
    rows = []
    for i, r in enumerate(results, 1):
        ratio = r["app_first"] / r["bare_first"]
        rows.append([str(i), f"{r['health_s']:.2f}", fmt_ms(r["bare_first"]), fmt_ms(r["bare_second"]),
                     fmt_ratio(r["bare_first"] / r["bare_second"]), fmt_ms(r["app_first"]), fmt_ms(r["app_second"]),
                     fmt_ratio(ratio), goal(ratio <= GOAL_PAGE)])
    print("### First page (ms, from goto until drawn and idle; each run a fresh server and a fresh browser context)\n")
    print(table(["run", "app: start → health ok (s)", "bare 1st page", "bare 2nd page", "bare 1st/2nd (floor)",
                 "app 1st page", "app 2nd page", f"app 1st / bare 1st (goal ≤ {GOAL_PAGE}×)", "met"], rows))
    rows = []
    for view in VIEWS:
        firsts = [r["switch"][view][0] for r in results]
        laters = [x for r in results for x in r["switch"][view][1:]]
        ratios = [r["switch"][view][0] / statistics.median(r["switch"][view][1:]) for r in results]
        floors = [r["floor"][view][0] / statistics.median(r["floor"][view][1:]) for r in results]
        worst = max(ratios)
        rows.append([view, " / ".join(fmt_ms(x) for x in firsts), fmt_ms(statistics.median(laters)),
                     f"{fmt_ms(min(laters))}–{fmt_ms(max(laters))}", " / ".join(fmt_ratio(x) for x in ratios),
                     goal(worst <= GOAL_SWITCH),
                     " / ".join(f"{fmt_ms(r['floor'][view][0])} vs {fmt_ms(statistics.median(r['floor'][view][1:]))}"
                                for r in results), " / ".join(fmt_ratio(x) for x in floors)])
    print(f"\n### Switching the view (ms, click → that view drawn and idle); first switch of each run vs the later ones "
          f"(the lookup view's first switch is a return to it: the page opened on it)\n")
    print(table(["view", "1st switch, each run", "later p50", "later min–max",
                 f"1st / later p50, each run (goal ≤ {GOAL_SWITCH}×)", "met (every run)",
                 "floor page: 1st vs later p50 (ms)", "floor 1st / later"], rows))
    print(f"\n{machine_note()}; {runs} runs × {rounds} rounds; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
