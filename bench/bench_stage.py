"""The stage against a plain st.plotly_chart of the same points, in one run, interleaved.

    python bench/bench_stage.py [--reps 6] [--big-reps 3] [--sizes 10,150,100000]

For each size (chapter ~10 points, review ~150, and 100,000) the script opens two pages of
tests/e2e/stage_app.py in one Chromium: the stage, and `view=plotly` (the same points drawn by
st.plotly_chart, which Streamlit remounts when its figure changes). It clicks "next" on each in
turn and times, in wall-clock from the click (the server's rerun included, alike on both sides):

- stage drawn: the stage has received the new data and drawn its first frame of it;
- stage settled: the glide to the new positions has ended (320 ms of it is the animation itself);
- stage JS: of that, the time the stage's own code spent taking the new data in (render());
- plotly settled: Plotly's full layout shows the new step.

Then 3 s of Play (play=1&auto=1: a timed fragment sends 10 steps per update, 10 steps/s) at the
chapter and review sizes: steps shown per second, requestAnimationFrame callbacks per second, and frames the stage
drew per second.

`--app-reps N` (0: skipped) then opens the real app (app.py) at the large preset (100,000 tokens,
E=300, B=256) and switches the view lookup ↔ training N times: wall-clock from the click to the
stage drawn (two frames after its render()), and the stage's own render() time (data-render-ms).
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import time

from _common import ROOT, Server, fmt_ms, fmt_ratio, launch_chromium, machine_note, summary, table

APP = ROOT / "tests" / "e2e" / "stage_app.py"
STAGE = ".st-key-stage [data-testid='stage']"
VIEWPORT = {"width": 1280, "height": 720}


def open_page(browser, url: str, query: str):
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.set_default_timeout(120_000)
    page = ctx.new_page()
    page.goto(f"{url}/?{query}")
    return page


def stage_ready(page, step: int) -> None:
    page.locator(STAGE).wait_for(timeout=120_000)
    page.wait_for_function("([el, s]) => el.dataset.step === s && el.dataset.animating === '0'",
                           arg=[page.locator(STAGE).element_handle(), str(step)], timeout=120_000)


def plotly_ready(page, step: int) -> None:
    page.wait_for_function("(s) => { const e = document.querySelector('.js-plotly-plot');"
                           " const c = e && e.closest('[data-stale]');"
                           " return e && e._fullLayout && e._fullLayout.title.text.replace(/<[^>]*>/g, '') === s && !(c && c.dataset.stale === 'true'); }",
                           arg=f"step {step}", timeout=120_000, polling="raf")


def click_next(page) -> None:
    page.locator(".st-key-next button").click()


def time_stage(page, step: int) -> tuple[float, float, float]:
    """Seconds from the click to the first frame of the new data, to the end of the glide, and in the stage's JS."""
    el = page.locator(STAGE).element_handle()
    before = int(page.locator(STAGE).get_attribute("data-updates") or 0)
    t0 = time.perf_counter()
    click_next(page)
    page.wait_for_function("([el, n]) => Number(el.dataset.updates || 0) > n", arg=[el, before], timeout=120_000,
                           polling="raf")
    drawn = time.perf_counter() - t0
    stage_ready(page, step)
    return drawn, time.perf_counter() - t0, float(page.locator(STAGE).get_attribute("data-render-ms")) / 1e3


def time_plotly(page, step: int) -> float:
    t0 = time.perf_counter()
    click_next(page)
    plotly_ready(page, step)
    return time.perf_counter() - t0


def updates(browser, url: str, n: int, reps: int) -> list[str]:
    q = f"n={n}&e=8" if n > 10 else "n=10&e=4"
    a, b = open_page(browser, url, q), open_page(browser, url, q + "&view=plotly")
    stage_ready(a, 0)
    plotly_ready(b, 0)
    drawn, settled, js, plain = [], [], [], []
    for step in range(1, reps + 1):  # interleaved: a noisy moment slows both sides alike
        d, s, j = time_stage(a, step)
        drawn.append(d)
        settled.append(s)
        js.append(j)
        plain.append(time_plotly(b, step))
    a.context.close()
    b.context.close()
    sd, ss, sp = summary(drawn), summary(settled), summary(plain)
    return [f"{n:,}", str(reps), fmt_ms(sd["p50"]), fmt_ms(ss["p50"]), fmt_ms(summary(js)["p50"]), fmt_ms(sp["p50"]),
            fmt_ratio(sd["p50"] / sp["p50"]), fmt_ratio(ss["p50"] / sp["p50"]),
            f"{fmt_ms(sp['p10'])}–{fmt_ms(sp['p90'])}"]


def play(browser, url: str, n: int, seconds: float = 3.0) -> list[str]:
    """Play as an app runs it (stage_app's timed fragment sends 10 steps per update, 10 steps/s)."""
    q = f"n={n}&e=8" if n > 10 else "n=10&e=4"
    page = open_page(browser, url, q + "&play=1&auto=1&frames=10&sps=10")
    page.locator(STAGE).wait_for(timeout=120_000)
    el = page.locator(STAGE).element_handle()
    page.evaluate("""(el) => {
        window.__steps = new Set(); window.__raf = 0;
        new MutationObserver(() => window.__steps.add(el.querySelector('.stepnum').textContent))
            .observe(el.querySelector('.stepnum'), {childList: true, characterData: true, subtree: true});
        const count = () => { window.__raf++; requestAnimationFrame(count); }; requestAnimationFrame(count);
    }""", el)
    page.wait_for_function("() => window.__steps.size >= 12", timeout=120_000)  # warmed up and playing
    page.evaluate("() => { window.__raf = 0; window.__steps = new Set(); }")
    f0 = int(page.locator(STAGE).get_attribute("data-frames"))
    t0 = time.perf_counter()
    page.wait_for_timeout(seconds * 1e3)
    secs = time.perf_counter() - t0
    steps = page.evaluate("() => window.__steps.size")
    raf = page.evaluate("() => window.__raf")
    frames = int(page.locator(STAGE).get_attribute("data-frames")) - f0
    page.context.close()
    return [f"{n:,}", f"{secs:.2f}", f"{steps / secs:.1f}", f"{raf / secs:.1f}", f"{frames / secs:.1f}"]


STAGE_JS = """() => { const h = document.querySelector('.st-key-stage'); if (!h) return null;
  for (const e of h.querySelectorAll('*')) { const s = e.shadowRoot && e.shadowRoot.querySelector('[data-testid="stage"]');
    if (s) return {mode: s.dataset.mode, ms: s.dataset.renderMs, busy: s.dataset.animating === '1',
                   w: !!s.querySelector('.wpanel .wrow:not(.whead)')}; }
  return null; }"""


def app_large(browser, url: str, reps: int) -> list[list[str]]:
    """The real app at the large preset: view switches, click → stage drawn, and the stage's render()."""
    page = open_page(browser, url, "preset=large&section=train")
    ready = f"(m) => {{ const s = ({STAGE_JS})(); return s && s.mode === m && s.w && !s.busy; }}"
    page.wait_for_function(ready, arg="train", timeout=240_000)
    page.wait_for_timeout(1000)
    times: dict[str, list[float]] = {"lookup": [], "train": []}
    render: dict[str, list[float]] = {"lookup": [], "train": []}
    for _ in range(reps):
        for i, view in enumerate(("lookup", "train")):
            t0 = time.perf_counter()
            page.locator(".st-key-section button:visible").nth(i).click()  # the views in order: lookup, train, …
            page.wait_for_function(ready, arg=view, timeout=120_000, polling="raf")
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            times[view].append(time.perf_counter() - t0)
            render[view].append(float(page.evaluate(STAGE_JS)["ms"]) / 1e3)
            page.wait_for_timeout(500)
    page.context.close()
    return [[view, str(reps), fmt_ms(summary(times[view])["p50"]), f"{fmt_ms(min(times[view]))}–{fmt_ms(max(times[view]))}",
             fmt_ms(summary(render[view])["p50"]), f"{fmt_ms(min(render[view]))}–{fmt_ms(max(render[view]))}"]
            for view in ("lookup", "train")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=6)
    ap.add_argument("--big-reps", type=int, default=3)
    ap.add_argument("--sizes", default="10,150,100000")
    ap.add_argument("--app-reps", type=int, default=3, help="view switches at the app's large preset (0: skip)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    print(machine_note())
    sizes = [int(s) for s in args.sizes.split(",")]
    with Server(APP) as server, sync_playwright() as p:
        browser = launch_chromium(p)
        rows = [updates(browser, server.url, n, args.big_reps if n > 2000 else args.reps) for n in sizes]
        print("\nData update → picture, wall-clock from the click (medians):\n")
        print(table(["points", "updates", "stage drawn ms", "stage settled ms", "stage JS ms", "plotly settled ms",
                     "drawn / plotly", "settled / plotly", "plotly p10–p90 ms"], rows))
        prows = [play(browser, server.url, n) for n in sizes if n <= 2000]
        print("\nPlay (a timed fragment sends 10 steps per update; 10 steps/s asked):\n")
        print(table(["points", "seconds", "steps shown/s", "rAF/s", "frames drawn/s"], prows))
        browser.close()
    if args.app_reps > 0:
        with Server(ROOT / "app.py") as server, sync_playwright() as p:
            browser = launch_chromium(p)
            arows = app_large(browser, server.url, args.app_reps)
            browser.close()
        print("\nThe app at the large preset (100,000 × 300, B=256): switching the view, click → stage drawn:\n")
        print(table(["view", "switches", "click → drawn ms", "min–max ms", "stage render() ms", "min–max ms"], arows))


if __name__ == "__main__":
    main()
