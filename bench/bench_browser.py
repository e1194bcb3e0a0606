"""Click-to-settled in a real browser: the app's Step button (training view, drawn by the stage)
versus the bare page's button (bench/bare_app.py), each served by its own ``streamlit run``; and
Play on the app's own page.

    python bench/bench_browser.py                      # chapter example, then the 40-review preset, Step and Play (~3 min)
    python bench/bench_browser.py --clicks 5 --presets chapter --no-play
    python bench/bench_browser.py --presets large --alone 3 --clicks 3   # 100k × 300: every interaction, the app alone (~3 min)

Playwright drives Debian's Chromium (/usr/bin/chromium; never ``playwright install``) at a
projector's 1280×720. The click and the wait happen inside the page (one ``page.evaluate``), so
each time is the browser's own ``performance.now()`` from ``button.click()`` to:

- **drawn**: the stage (components/stage/js/, in a shadow root under ``.st-key-stage``) has
  taken the new data (its ``data-updates`` counter went up) with the new step in its step counter
  (``[data-testid="stage-step"]``), timed at the next animation frame, the first that paints it;
- **settled**: drawn, the glide over (``data-animating`` "0" and ``data-step`` the new step),
  Streamlit idle (no status widget, no stale element, the script not running), and the page has
  handled the last websocket message of the click (a wrapper around the page's WebSocket, waiting
  400 ms for stragglers). Mutations are seen by MutationObservers on the page and on the stage;
- **glide**: from the moment the stage started moving the points (``data-animating`` "1") to
  its end. A single update glides for a fixed 320 ms (``TWEEN_MS`` in components/stage/js/motion.mjs, eased) plus at
  most one frame; ``settled − glide`` is what the page itself costs.

The bare page is settled when the status widget is gone, its text "clicks: N" is shown, its chart
"bare chart N" is drawn by plotly.js and its last message is handled; it has no animation.

Step clicks alternate between the two pages (app, bare, app, bare, …), and each ratio is the
median of the paired ratios (each app click divided by the bare click taken right after it). The
bytes column is what the server sent over the websocket per click. Goal (issue 14): Step click →
settled ≤ 1.5× the bare page; see bench/README.md for which column answers it.

Play (on the app's page, after the Step clicks): the Play button (key ``play``, read back from
its label) at each of ``--play-speeds`` (``play_speed``; default 10, the app's default, and 20
steps/s), watched for ``--play-seconds`` (default 10) after a warm-up of 15 shown steps: changes of
the stage's step counter per second, how far the step advanced per second, the longest time one
step stayed on screen, ``requestAnimationFrame`` callbacks per second (the page's frame rate) and
frames the stage itself drew per second (``data-frames``). Goal: ≥ 10 steps/s and ≥ 30 fps.

``--alone N`` measures the app with nothing else running (no bare server, no second page), as one
learner uses it, over N page loads, each interaction timed from its click until the page is settled
(the stage done too): load the preset, switch to the training view, the first Step after loading,
the later Steps, switch back to the lookup view. Goal: every interaction < 2 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (ROOT, Server, fmt_bytes, fmt_ms, fmt_ratio, goal, launch_chromium, machine_note,  # noqa: E402
                     summary, table)
from support.browser import FIND_STAGE_JS  # noqa: E402  (after _common, which puts the root on the path)

GOAL = 1.5
PLAY_GOALS = (10.0, 30.0)  # steps shown per second, frames per second
TIMEOUT_MS = 120_000
VIEWPORT = {"width": 1280, "height": 720}  # a classroom projector (issue 14)
TWEEN_MS = 320  # components/stage/js/motion.mjs: a single update glides this long

# Installed before the page's scripts: the time each websocket message reaches the page's code.
WS_PROBE = """
window.__wsTimes = [];
window.__wsSizes = [];
window.__wsStage = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new NativeWebSocket(...args);
  ws.addEventListener('message', (e) => {
    window.__wsTimes.push(performance.now());
    const d = e.data;
    window.__wsSizes.push(d ? (d.byteLength !== undefined ? d.byteLength : d.size !== undefined ? d.size : d.length || 0) : 0);
    // the message that carries the training stage's data (its JSON names the scatter)
    let stage = false;
    try { stage = d instanceof ArrayBuffer && new TextDecoder().decode(d).includes('"scatter"'); } catch (err) {}
    window.__wsStage.push(stage);
  });
  return ws;
};
window.WebSocket.prototype = NativeWebSocket.prototype;
Object.assign(window.WebSocket, NativeWebSocket);
"""
TRAILING_MS = 400  # after the page looks settled, how long to wait for messages still on their way

# Page-side helpers, installed as globals before the page's scripts: the stage's root inside its
# shadow root, Streamlit being idle, the stage's step counter, a markdown text on the page.
LIB = r"""
""" + "window.__stage = " + FIND_STAGE_JS + ";\n" + r"""window.__idle = () => {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-script-state') !== 'running'
    && !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-stale="true"]');
};
window.__stepText = (s) => { const n = s && s.querySelector('[data-testid="stage-step"]'); return n ? n.textContent : null; };
window.__markdown = (t) => [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
    .some(e => e.textContent.includes(t));
"""

# A click on the app's Step button, timed to drawn, glide start/end and settled (see the docstring).
APP_CLICK_JS = """
async ({button, want, timeoutMs}) => {
  const s0 = __stage();
  if (!s0) return {error: 'no stage on the page'};
  const btn = document.querySelector(button);
  if (!btn) return {error: 'no button ' + button};
  const before = Number(s0.dataset.updates || 0);
  return await new Promise(resolve => {
    let drawnSeen = null, drawn = null, animStart = null, animEnd = null, settled = null, renderMs = null, done = false;
    const t0 = performance.now();
    window.__clickT0 = t0;
    window.__wsTimes = []; window.__wsSizes = []; window.__wsStage = [];
    const check = () => {
      if (done) return;
      const now = performance.now() - t0;
      const s = __stage();
      if (!s) return;
      const updated = s !== s0 || Number(s.dataset.updates || 0) > before;  // a remounted stage counts afresh
      if (drawnSeen === null && updated && __stepText(s) === want) {
        drawnSeen = now;
        renderMs = Number(s.dataset.renderMs);
        requestAnimationFrame(() => { drawn = performance.now() - t0; check(); });
      }
      if (drawnSeen !== null && animStart === null && s.dataset.animating === '1') animStart = now;
      if (drawnSeen !== null && animEnd === null && s.dataset.animating === '0' && s.dataset.step === want) animEnd = now;
      if (drawn !== null && animEnd !== null && settled === null && __idle() && __stepText(s) === want) settled = now;
      if (settled !== null) finish(null);
      else if (now > timeoutMs) finish('timeout');
    };
    const pageObs = new MutationObserver(check), stageObs = new MutationObserver(check);
    const timer = setInterval(check, 25);
    const finish = (error) => {
      done = true; pageObs.disconnect(); stageObs.disconnect(); clearInterval(timer);
      resolve({drawn, settled, error, renderMs,
               glide: animStart === null ? 0 : (animEnd - animStart)});
    };
    pageObs.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
    stageObs.observe(s0, {subtree: true, childList: true, characterData: true, attributes: true});
    btn.click();
  });
}
"""

# The bare page's click: its text and its chart's title show this click, and Streamlit is idle.
BARE_CLICK_JS = """
async ({button, text, chart, timeoutMs}) => {
  const hasText = () => [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
      .some(e => e.textContent.startsWith(text));
  const hasChart = () => [...document.querySelectorAll('.gtitle')].some(e => e.textContent.startsWith(chart));
  const btn = document.querySelector(button);
  if (!btn) return {error: 'no button ' + button};
  return await new Promise(resolve => {
    let done = false;
    const t0 = performance.now();
    window.__clickT0 = t0;
    window.__wsTimes = []; window.__wsSizes = []; window.__wsStage = [];
    const check = () => {
      if (done) return;
      const now = performance.now() - t0;
      if (__idle() && hasText() && hasChart()) finish(now, null);
      else if (now > timeoutMs) finish(null, 'timeout');
    };
    const obs = new MutationObserver(check);
    const timer = setInterval(check, 25);
    const finish = (settled, error) => {
      done = true; obs.disconnect(); clearInterval(timer);
      resolve({drawn: settled, settled, error, glide: 0});
    };
    obs.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
    btn.click();
  });
}
"""

# Any other interaction: click, then wait (rAF by rAF) for ``ready(arg)`` and a settled stage.
ACT_JS = """
async ({button, ready, arg, timeoutMs}) => {
  const ok = new Function('arg', 'return (' + ready + ')(arg);');
  const btn = button;
  if (!btn) return {error: 'no button'};
  const t0 = performance.now();
  window.__clickT0 = t0;
  window.__wsTimes = []; window.__wsSizes = []; window.__wsStage = [];
  btn.click();
  await new Promise(r => setTimeout(r, 30));  // let the rerun start before the first check
  while (performance.now() - t0 < timeoutMs) {
    const s = __stage();
    if (__idle() && s && s.dataset.animating === '0' && ok(arg)) return {settled: performance.now() - t0, renderMs: Number(s.dataset.renderMs)};
    await new Promise(r => requestAnimationFrame(r));
  }
  return {error: 'timeout'};
}
"""


class Page:
    """One browser page on one server, counting the websocket bytes it receives."""

    def __init__(self, browser, url: str):
        self.ctx = browser.new_context(locale="en-US", viewport=VIEWPORT)
        self.ctx.set_default_timeout(TIMEOUT_MS)
        self.ctx.add_init_script(WS_PROBE + LIB)
        self.page = self.ctx.new_page()
        self.bytes = 0
        self.errors: list[str] = []
        self.page.on("websocket", self._ws)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)[:200]))
        self.page.goto(url, timeout=TIMEOUT_MS)

    def _ws(self, ws) -> None:
        ws.on("framereceived", lambda payload: setattr(self, "bytes", self.bytes + len(payload)))

    def wait(self, predicate: str, arg=None, timeout: float = TIMEOUT_MS) -> None:
        """Until ``predicate(arg)`` (LIB's helpers in scope), Streamlit idle and the stage still, for 300 ms."""
        js = f"(arg) => {{ const s = __stage(); return __idle() && s && s.dataset.animating === '0' && ({predicate})(arg); }}"
        self.page.wait_for_function(js, arg=arg, timeout=timeout, polling=50)
        self.page.wait_for_timeout(300)
        self.page.wait_for_function(js, arg=arg, timeout=timeout, polling=50)

    def _finish(self, res: dict) -> dict:
        self.page.wait_for_timeout(TRAILING_MS)  # messages still arriving after the page looked settled
        msgs = self.page.evaluate("() => window.__wsTimes.map((t, i) => [t - window.__clickT0, window.__wsSizes[i], window.__wsStage[i]])")
        last = max((m[0] for m in msgs), default=None)
        res["last_msg"] = last
        res["first_msg"] = min((m[0] for m in msgs), default=None)
        stage = [t for t, _, is_stage in msgs if is_stage]
        res["big_msg"] = stage[0] if stage else None  # when the stage's data arrived
        res["n_msgs"] = len(msgs)
        if res.get("settled") is not None:
            res["full"] = max(res["settled"], last or 0.0)
        return res

    def app_step(self, want: int) -> dict:
        before = self.bytes
        res = self.page.evaluate(APP_CLICK_JS, {"button": ".st-key-step button", "want": str(want), "timeoutMs": TIMEOUT_MS})
        res = self._finish(res)
        res["bytes"] = self.bytes - before
        return res

    def bare_click(self, n: int) -> dict:
        before = self.bytes
        res = self.page.evaluate(BARE_CLICK_JS, {"button": ".st-key-click button", "text": f"clicks: {n}",
                                                 "chart": f"bare chart {n}", "timeoutMs": TIMEOUT_MS})
        res = self._finish(res)
        res["bytes"] = self.bytes - before
        return res

    def act(self, button: str, ready: str, arg=None) -> dict:
        """Click ``button`` and time it until ``ready(arg)`` holds on a settled page (and its last message)."""
        handle = self.page.locator(button).first.element_handle()
        res = self.page.evaluate(ACT_JS, {"button": handle, "ready": ready, "arg": arg, "timeoutMs": TIMEOUT_MS})
        return self._finish(res)


def preset_shape(preset: str) -> tuple[int, int]:
    """(V, E) of a preset, for checking that the page really shows it."""
    from assets import presets

    if preset == "large":
        return presets.LARGE_V, presets.LARGE_E
    p = presets.load(preset)
    return len(p["vocab"]), p.get("config", {}).get("embedding_dim", 3)


def shape_text(preset: str) -> str:
    """The start of the lookup view's "Stored weights: V × E = …" line for this preset (English)."""
    v, e = preset_shape(preset)
    return f"V × E = {v:,} × {e} "


IN_VIEW = {"lookup": "(a) => __stage().dataset.mode === 'lookup' && __markdown(a)",
           "train": "(a) => __stage().dataset.mode === 'train' && !!document.querySelector('.st-key-step button')"}


def section_button(name: str) -> str:
    """The view switch's button for ``name`` (Playwright's text selector, the app's English label)."""
    from components.i18n import t

    return f".st-key-section button:has-text({t('en', f'section.{name}')!r})"


def open_app(browser, url: str) -> Page:
    pg = Page(browser, url)
    pg.wait(IN_VIEW["lookup"], "V × E = ")
    return pg


def load_preset(pg: Page, preset: str) -> dict:
    """Pick ``preset`` in the sidebar and click Load, timed from the click until the lookup view
    shows its table's shape, settled."""
    from assets import presets

    title = presets.titles("en")[preset]
    for attempt in range(3):  # a click that lands while a rerun is running can be lost
        pg.page.locator(".st-key-preset [role='combobox']").first.click()
        pg.page.get_by_role("option", name=title, exact=True).click()
        pg.wait(f"() => document.querySelector('.st-key-preset input').value === {title!r}")
        res = pg.act(".st-key-load_preset button", IN_VIEW["lookup"], shape_text(preset))
        if not res.get("error"):
            return res
    return res


def to_section(pg: Page, name: str) -> dict:
    arg = "V × E = " if name == "lookup" else None
    return pg.act(section_button(name), IN_VIEW[name], arg)


def app_page(browser, url: str, preset: str) -> Page:
    """A page on the app's training view at ``preset``, settled, as a learner's is before a click."""
    pg = open_app(browser, url)
    if preset != "chapter":
        r = load_preset(pg, preset)
        if r.get("error"):
            raise RuntimeError(f"could not load {preset}: {r['error']}")
    r = to_section(pg, "train")
    if r.get("error"):
        raise RuntimeError(f"could not open the training view: {r['error']}")
    pg.page.wait_for_timeout(500)
    return pg


def set_playing(pg: Page, on: bool) -> None:
    """Click Play (or Pause) until the button says the other one: a click during a rerun can be lost."""
    from components.i18n import t

    want = t("en", "train.pause_button" if on else "train.play_button")
    button = pg.page.locator(".st-key-play button").first
    for _ in range(4):
        if want in button.inner_text():
            break
        button.click()
        try:
            pg.page.wait_for_function("([b, w]) => b.innerText.includes(w)", arg=[button.element_handle(), want],
                                      timeout=10_000, polling=100)
        except Exception:  # noqa: BLE001 - look again and click again
            continue
    if not on:
        pg.wait("() => true")


def play(pg: Page, seconds: float, speed: int) -> dict:
    """Play at ``speed`` steps/s for ``seconds`` after a warm-up; then Pause."""
    from components.i18n import t

    pg.page.locator(".st-key-play_speed [role='combobox']").first.click()
    label = t("en", "train.speed_value", n=speed)
    pg.page.get_by_role("option", name=label, exact=True).click()
    pg.wait("(a) => document.querySelector('.st-key-play_speed input').value === a", label)
    pg.page.evaluate("""() => {
        window.__shown = []; window.__raf = 0;
        if (window.__playProbe) return;  // installed once per page: the counters are reset above
        window.__playProbe = true;
        const s = __stage();
        const seen = () => {  // the counter is rewritten every frame: log a change of its value only
          const v = Number(__stepText(__stage())), log = window.__shown;
          if (!log.length || log[log.length - 1][1] !== v) log.push([performance.now(), v]);
        };
        // The whole stage, not its counter node: a re-layout (a new preset, a scrollbar that changes
        // the stage's width) replaces that node, and an observer of the old one would see nothing.
        new MutationObserver(seen).observe(s, {childList: true, characterData: true, subtree: true});
        const count = () => { window.__raf++; requestAnimationFrame(count); }; requestAnimationFrame(count);
    }""")
    set_playing(pg, True)
    pg.page.wait_for_function("() => window.__shown.length >= 15", timeout=TIMEOUT_MS, polling=100)  # warmed up, playing
    start = pg.page.evaluate("() => { window.__raf = 0; window.__from = window.__shown.length; const s = __stage();"
                             " return {t: performance.now(), frames: Number(s.dataset.frames || 0), step: Number(__stepText(s))}; }")
    pg.page.wait_for_timeout(seconds * 1e3)
    end = pg.page.evaluate("() => { const s = __stage(); return {t: performance.now(), frames: Number(s.dataset.frames || 0),"
                           " step: Number(__stepText(s)), raf: window.__raf, shown: window.__shown.slice(window.__from)}; }")
    set_playing(pg, False)
    secs = (end["t"] - start["t"]) / 1e3
    times = [start["t"]] + [x[0] for x in end["shown"]] + [end["t"]]
    gaps = [b - a for a, b in zip(times, times[1:])]
    return {"speed": speed, "secs": secs, "shown": len(end["shown"]) / secs, "advanced": (end["step"] - start["step"]) / secs,
            "raf": end["raf"] / secs, "frames": (end["frames"] - start["frames"]) / secs, "gap_max": max(gaps) / 1e3}


def cells(xs: list[float]) -> str:
    s = summary(xs)
    return f"{fmt_ms(s['p50'])} ({fmt_ms(s['p10'])}–{fmt_ms(s['p90'])})"


def rcells(r: dict) -> str:
    return f"{fmt_ratio(r['p50'])} ({fmt_ratio(r['p10'])}–{fmt_ratio(r['p90'])})"


def run(presets: list[str], clicks: int, play_s: float, play_speeds: list[int]) -> tuple[list, list, list, list[str]]:
    from playwright.sync_api import sync_playwright

    rows, prows, wrows, errors = [], [], [], []
    with Server(ROOT / "app.py") as app_srv, Server(Path(__file__).resolve().parent / "bare_app.py") as bare_srv, \
            sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            bare = Page(browser, bare_srv.url)
            bare.page.wait_for_selector(".st-key-click button")
            bare.page.wait_for_timeout(500)
            n_bare = 0
            for preset in presets:
                app = app_page(browser, app_srv.url, preset)
                got = {k: [] for k in ("drawn", "settled", "glide", "net", "render", "bare", "app_bytes", "bare_bytes",
                                       "app_first", "app_big", "app_last", "bare_first", "bare_last")}
                pairs = {"drawn": [], "settled": [], "net": []}
                for i in range(1, clicks + 1):
                    a = app.app_step(i)
                    n_bare += 1
                    b = bare.bare_click(n_bare)
                    for who, r in (("app", a), ("bare", b)):
                        if r.get("error"):
                            errors.append(f"{preset} {who} click {i}: {r['error']}")
                    if a.get("error") or b.get("error"):
                        continue
                    net = a["full"] - a["glide"]
                    got["drawn"].append(a["drawn"] / 1e3)
                    got["settled"].append(a["full"] / 1e3)
                    got["glide"].append(a["glide"] / 1e3)
                    got["net"].append(net / 1e3)
                    got["render"].append((a.get("renderMs") or float("nan")) / 1e3)
                    got["bare"].append(b["full"] / 1e3)
                    got["app_bytes"].append(a["bytes"])
                    got["bare_bytes"].append(b["bytes"])
                    for who, r in (("app", a), ("bare", b)):
                        got[f"{who}_first"].append((r["first_msg"] if r["first_msg"] is not None else float("nan")) / 1e3)
                        got[f"{who}_last"].append((r["last_msg"] if r["last_msg"] is not None else float("nan")) / 1e3)
                    got["app_big"].append((a["big_msg"] if a["big_msg"] is not None else float("nan")) / 1e3)
                    for k, v in (("drawn", a["drawn"]), ("settled", a["full"]), ("net", net)):
                        pairs[k].append(v / b["full"])
                    print(f"  {preset} click {i}: app drawn {a['drawn']:.0f} settled {a['full']:.0f} (glide {a['glide']:.0f}) ms,"
                          f" bare {b['full']:.0f} ms", file=sys.stderr)
                if got["bare"]:
                    r_d, r_s, r_n = (summary(pairs[k]) for k in ("drawn", "settled", "net"))
                    rows.append([preset, str(len(got["bare"])), cells(got["drawn"]), cells(got["settled"]), cells(got["glide"]),
                                 cells(got["net"]), cells(got["bare"]), rcells(r_d), rcells(r_s), goal(r_s["p50"] <= GOAL),
                                 rcells(r_n), goal(r_n["p50"] <= GOAL), fmt_ms(summary(got["render"])["p50"]),
                                 fmt_bytes(summary(got["app_bytes"])["p50"]), fmt_bytes(summary(got["bare_bytes"])["p50"])])
                    p50 = lambda k: fmt_ms(summary(got[k])["p50"])  # noqa: E731
                    wrows.append([preset, p50("app_first"), p50("app_big"), p50("drawn"), p50("app_last"), p50("settled"),
                                  p50("bare_first"), p50("bare_last"), p50("bare")])
                for speed in play_speeds if play_s > 0 else ():
                    try:
                        pr = play(app, play_s, speed)
                        # one step either way is the window's edge, not the app: at 10 steps/s over 10 s, 99 counts as 10/s
                        met = pr["shown"] >= min(PLAY_GOALS[0], speed) - 1 / pr["secs"] and pr["raf"] >= PLAY_GOALS[1]
                        prows.append([preset, str(speed), f"{pr['secs']:.1f}", f"{pr['shown']:.1f}", f"{pr['advanced']:.1f}",
                                      fmt_ms(pr["gap_max"]), f"{pr['raf']:.1f}", f"{pr['frames']:.1f}",
                                      goal(met) if speed >= PLAY_GOALS[0] else "–"])
                        print(f"  {preset} play: {pr}", file=sys.stderr)
                    except Exception as e:  # noqa: BLE001 - a failed measurement is a result
                        errors.append(f"{preset} play at {speed}/s: {type(e).__name__}: {str(e)[:200]}")
                errors += [f"{preset} app page error: {e}" for e in app.errors]
                app.ctx.close()
            errors += [f"bare page error: {e}" for e in bare.errors]
        finally:
            browser.close()
    return rows, prows, wrows, errors


def run_alone(presets: list[str], loads: int, clicks: int) -> tuple[list[list[str]], list[str]]:
    """Every interaction of the app with no bare server or page: ``loads`` fresh pages, ``clicks`` Steps each."""
    from playwright.sync_api import sync_playwright

    rows, errors = [], []
    with Server(ROOT / "app.py") as app_srv, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            for preset in presets:
                got: dict[str, list[float]] = {}
                drawn: dict[str, list[float]] = {}
                js: dict[str, list[float]] = {}  # the stage's own render() of its last data
                for load in range(loads):
                    pg = open_app(browser, app_srv.url)
                    steps: list[tuple[str, callable]] = []
                    if preset != "chapter":
                        steps.append(("load the preset (lookup view drawn)", lambda: load_preset(pg, preset)))
                    steps.append(("switch lookup→train (step 0)", lambda: to_section(pg, "train")))
                    for i in range(1, clicks + 1):
                        name = "first Step after loading" if i == 1 else "later Steps"
                        steps.append((name, lambda i=i: pg.app_step(i)))
                    steps.append((f"switch train→lookup (step {clicks})", lambda: to_section(pg, "lookup")))
                    for name, call in steps:
                        r = call()
                        if r.get("error"):
                            errors.append(f"{preset} load {load + 1} {name}: {r['error']}")
                            continue
                        got.setdefault(name, []).append(r["full"] / 1e3)
                        js.setdefault(name, []).append((r.get("renderMs") or float("nan")) / 1e3)
                        if r.get("drawn") is not None:
                            drawn.setdefault(name, []).append(r["drawn"] / 1e3)
                        print(f"  {preset} load {load + 1} {name}: {r['full']:.0f} ms"
                              + (f" (drawn {r['drawn']:.0f}, glide {r['glide']:.0f})" if "drawn" in r else ""), file=sys.stderr)
                    errors += [f"{preset} app page error: {e}" for e in pg.errors]
                    pg.ctx.close()
                for name, xs in got.items():
                    s = summary(xs)
                    d = drawn.get(name)
                    rows.append([preset, name, fmt_ms(s["p50"]), f"{fmt_ms(s['min'])}–{fmt_ms(s['max'])}",
                                 fmt_ms(summary(d)["p50"]) if d else "–", fmt_ms(summary(js[name])["p50"]), str(s["n"]),
                                 goal(s["max"] < 2.0)])
        finally:
            browser.close()
    return rows, errors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clicks", type=int, default=10, help="Step clicks per preset (and as many bare clicks)")
    ap.add_argument("--presets", default="chapter,reviews_ko")
    ap.add_argument("--play-seconds", type=float, default=10.0, help="seconds of Play watched per preset and speed (0: none)")
    ap.add_argument("--play-speeds", default="10,20", help="Play speeds (steps/s, of the app's choices) to watch")
    ap.add_argument("--no-play", action="store_true", help="no Play measurement")
    ap.add_argument("--alone", type=int, default=0, metavar="N",
                    help="every interaction of the app alone (no bare server or page) over N page loads; no ratio")
    args = ap.parse_args()
    t0 = time.perf_counter()
    if args.alone:
        print(f"# bench_browser: every interaction, the app alone\n\n{machine_note()}\n")
        rows, errors = run_alone(args.presets.split(","), args.alone, args.clicks)
        print(table(["preset", "interaction (click → settled)", "p50 ms", "min–max ms", "stage drawn p50 ms",
                     "stage JS (render) p50 ms", "n", "goal < 2 s (every one)"], rows))
    else:
        print(f"# bench_browser: Step click → settled, app vs the bare page; Play\n\n{machine_note()}\n")
        rows, prows, wrows, errors = run(args.presets.split(","), args.clicks, 0 if args.no_play else args.play_seconds,
                                  [int(x) for x in args.play_speeds.split(",") if x])
        print(f"Step click, {VIEWPORT['width']}×{VIEWPORT['height']}: p50 (p10–p90) ms; ratios are medians (p10–p90) of "
              f"paired ratios to the bare click taken next to it. The glide is the stage's animation ({TWEEN_MS} ms, eased).\n")
        print(table(["preset", "pairs", "app drawn", "app settled", "glide", "app settled − glide", "bare settled",
                     "drawn/bare", "settled/bare", f"≤ {GOAL}× (settled)", "(settled − glide)/bare",
                     f"≤ {GOAL}× (settled − glide)", "stage JS ms", "app bytes/click", "bare bytes/click"], rows))
        print("\nWhere a Step's time goes (p50 ms from the click): the first websocket message (the server has "
              "started answering), the one with the stage's data, the stage drawn, the last message, settled.\n")
        print(table(["preset", "app first msg", "app stage data msg", "app drawn", "app last msg", "app settled",
                     "bare first msg", "bare last msg", "bare settled"], wrows))
        if prows:
            print("\nPlay on the app's page (the stage glides through each tick's steps):\n")
            print(table(["preset", "speed (steps/s asked)", "seconds", "steps shown/s", "steps advanced/s",
                         "longest gap between shown steps ms", "rAF/s (fps)", "frames the stage drew/s",
                         f"goal ≥ {PLAY_GOALS[0]:.0f} steps/s, ≥ {PLAY_GOALS[1]:.0f} fps"], prows))
            print("\nSteps shown/s: changes of the stage's step counter per second; advanced/s: (last − first step) / "
                  "seconds; a window's edge can cost one step, so the goal counts 10/s as met from 10 − 1/seconds.")
    if errors:
        print("\nErrors:\n" + "\n".join(f"- {e}" for e in errors))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
