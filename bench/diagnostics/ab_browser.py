"""Browser A/B: the Step click of experimental page variants side by side, each against the bare page.

    python bench/diagnostics/ab_browser.py                               # app, no_charts (~2 min)
    python bench/diagnostics/ab_browser.py --variants app,static_tables,no_modebar --clicks 14
    python bench/diagnostics/ab_browser.py --variants app,no_charts --preset reviews_ko

A diagnostic, not in run_all.py. Each variant is ``_variant_app.py`` beside this script (page.main()
with the changes named in ``BENCH_VARIANT``; ``app`` is the page as it is) served by its own
``streamlit run``; one Chromium opens a page on each and on the bare page. Clicks go round: variant
1, bare, variant 2, bare, … so machine noise hits all of them, and each variant's ratio is the
median of its clicks' ratios to the bare click taken right after. Settled is measured as in
bench_browser.py (status widget gone, the gradient summary "Step N:" shown, the charts drawn for
this click, the last websocket message handled); a variant without charts waits for no chart.
With several servers and pages running at once the machine is busier than in bench_browser.py,
so compare the variants with each other, in one run, not with that script's figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(HERE))
from _common import Server, fmt_ratio, launch_chromium, machine_note, ms_cells, summary, table  # noqa: E402
from _variant_app import VARIANTS  # noqa: E402  (only names: its main() runs under streamlit)
from bench_browser import Page, app_page  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="app,no_charts",
                    help="comma-separated: app, or a '+'-joined set of " + ", ".join(VARIANTS))
    ap.add_argument("--clicks", type=int, default=12)
    ap.add_argument("--preset", default="chapter")
    args = ap.parse_args()
    variants = args.variants.split(",")
    for v in variants:
        unknown = set(v.split("+")) - set(VARIANTS) - {"app"}
        if unknown:
            raise SystemExit(f"unknown variant {sorted(unknown)}; known: app, {', '.join(VARIANTS)}")
    from playwright.sync_api import sync_playwright

    print(f"# ab_browser: Step click-to-settled of page variants vs the bare page ({args.preset})\n\n{machine_note()}\n")
    t0 = time.perf_counter()
    servers = {}
    try:
        for v in variants:
            flags = "" if v == "app" else v.replace("+", ",")
            servers[v] = Server(HERE / "_variant_app.py", env={"BENCH_VARIANT": flags})
        servers["bare"] = Server(BENCH / "bare_app.py")
        with sync_playwright() as p:
            browser = launch_chromium(p)
            try:
                bare = Page(browser, servers["bare"].url)
                bare.wait_idle(".st-key-click button")
                pages = {v: app_page(browser, servers[v].url, args.preset, charts="no_charts" not in v) for v in variants}
                times = {v: [] for v in variants}
                ratios = {v: [] for v in variants}
                errors: list[str] = []
                n_bare = 0
                for i in range(1, args.clicks + 1):
                    for v, pg in pages.items():
                        charts = [] if "no_charts" in v else [f"Loss (now at step {i})", f"W at step {i} "]
                        a = pg.click(".st-key-step button", f"Step {i}:", charts)
                        n_bare += 1
                        b = bare.click(".st-key-click button", f"clicks: {n_bare}", [f"bare chart {n_bare}"])
                        if a.get("error") or b.get("error"):
                            errors.append(f"{v} click {i}: {a.get('error') or b.get('error')}")
                            continue
                        times[v].append(a["full"] / 1e3)
                        ratios[v].append(a["full"] / b["full"])
                        print(f"  {v} click {i}: {a['full']:.0f} ms, bare {b['full']:.0f} ms", file=sys.stderr)
                for v, pg in pages.items():
                    errors += [f"{v} page error: {e}" for e in pg.errors]
            finally:
                browser.close()
    finally:
        for srv in servers.values():
            srv.stop()
    rows = []
    for v in variants:
        if not times[v]:
            rows.append([v, "—", "—", "—", "—", "0"])
            continue
        r = summary(ratios[v])
        rows.append([v, *ms_cells(times[v])[:2], fmt_ratio(r["p50"]), f"{fmt_ratio(r['p10'])}–{fmt_ratio(r['p90'])}",
                     str(len(times[v]))])
    print(table(["variant", "settled p50 ms", "settled p10–p90", "/ bare p50", "/ bare p10–p90", "n clicks"], rows))
    if errors:
        print("\nErrors:\n" + "\n".join(f"- {e}" for e in errors))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
