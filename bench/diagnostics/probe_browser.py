"""Where one Step click's time goes in the browser: a diagnostic, not a benchmark (no ratios, no goal).

    python bench/diagnostics/probe_browser.py                    # chapter example, 3 Step clicks
    python bench/diagnostics/probe_browser.py --preset large     # the 100k×300 preset
    python bench/diagnostics/probe_browser.py --bare             # the bare page's button, for comparison

For each click it prints, in ms from the click: when the page looked settled and drawn (as
bench_browser.py measures them), every ``plotly_afterplot`` event with the chart's title (a chart
drawn twice shows twice), every WebGL context created (each costs a shader setup), the page's long
tasks (main thread busy > 50 ms), and the websocket messages (time, bytes). It shows that
Streamlit 1.67 draws each changed chart twice and remounts it (bench/README.md, "Reading the
numbers").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCH))
import bench_browser  # noqa: E402
from _common import Server, launch_chromium  # noqa: E402

PROBES = """
window.__probe = {afterplot: [], gl: [], long: [], ws: []};
const nativeGetContext = HTMLCanvasElement.prototype.getContext;
HTMLCanvasElement.prototype.getContext = function (...a) {
  if (String(a[0]).includes('webgl')) window.__probe.gl.push([performance.now(), this.className]);
  return nativeGetContext.apply(this, a);
};
new PerformanceObserver(l => { for (const e of l.getEntries()) window.__probe.long.push([e.startTime, e.duration]); })
  .observe({type: 'longtask', buffered: true});
new MutationObserver(() => {
  for (const el of document.querySelectorAll('.js-plotly-plot')) {
    if (!el.__probed && el.on) {
      el.__probed = true;
      el.on('plotly_afterplot', () => window.__probe.afterplot.push(
        [performance.now(), ((el.querySelector('.gtitle') || {}).textContent || '').slice(0, 24)]));
    }
  }
}).observe(document, {subtree: true, childList: true});
const NativeWS = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new NativeWS(...args);
  ws.addEventListener('message', e => window.__probe.ws.push([performance.now(), e.data.byteLength || e.data.size || 0]));
  return ws;
};
window.WebSocket.prototype = NativeWS.prototype;
Object.assign(window.WebSocket, NativeWS);
"""

READ = """() => { const t0 = window.__clickT0, p = window.__probe, r = x => Math.round(x - t0);
  return {afterplot: p.afterplot.filter(e => e[0] >= t0).map(e => [r(e[0]), e[1]]),
          gl: p.gl.filter(e => e[0] >= t0).map(e => [r(e[0]), e[1]]),
          long: p.long.filter(e => e[0] + e[1] >= t0).map(e => [r(e[0]), Math.round(e[1])]),
          ws: p.ws.filter(e => e[0] >= t0).map(e => [r(e[0]), e[1]])}; }"""

RESET = "() => { for (const k of Object.keys(window.__probe)) window.__probe[k] = []; }"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="chapter", help="chapter, reviews_ko, reviews_en or large")
    ap.add_argument("--clicks", type=int, default=3)
    ap.add_argument("--bare", action="store_true", help="probe the bare page's button instead of the app's Step")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    bench_browser.WS_PROBE += PROBES  # installed with bench_browser's own probe, before the page's scripts
    script = BENCH / "bare_app.py" if args.bare else BENCH.parent / "app.py"
    with Server(script) as srv, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            if args.bare:
                page = bench_browser.Page(browser, srv.url)
                page.wait_idle(".st-key-click button")
            else:
                page = bench_browser.app_page(browser, srv.url, args.preset)
            for i in range(1, args.clicks + 1):
                page.page.evaluate(RESET)
                if args.bare:
                    res = page.click(".st-key-click button", f"clicks: {i}", [f"bare chart {i}"])
                else:
                    res = page.click(".st-key-step button", f"Step {i}:", [f"Loss (now at step {i})", f"W at step {i} "])
                seen = page.page.evaluate(READ)
                print(f"\n## click {i}: settled {res.get('full')} ms (text {res.get('settled')}, charts {res.get('drawn')}), "
                      f"{res.get('bytes')} bytes")
                print(f"plotly_afterplot: {seen['afterplot']}")
                print(f"WebGL contexts:   {seen['gl']}")
                print(f"long tasks:       {seen['long']}")
                print(f"websocket:        {seen['ws']}")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
