"""Browser A/B: the Step click of experimental page variants side by side, each against the bare page.

    python bench/diagnostics/ab_browser.py                               # app, and the page with only the bar and the stage (~2 min)
    python bench/diagnostics/ab_browser.py --variants app,no_editors,no_keeper,no_timeline --clicks 14
    python bench/diagnostics/ab_browser.py --variants app,no_details --preset reviews_ko
    python bench/diagnostics/ab_browser.py --variants app,/path/to/worktree   # against another checkout
    python bench/diagnostics/ab_browser.py --variants app,noop_stage,skeleton  # the floors under the goal

A diagnostic, not in run_all.py. Each variant is ``_variant_app.py`` beside this script (page.main()
with the parts named in ``BENCH_VARIANT`` left out; ``app`` is the page as it is; join several with
``+``) served by its own ``streamlit run``; one Chromium opens a page on each and on the bare page.
Clicks go round: variant 1, bare, variant 2, bare, … so machine noise hits all of them, and each
variant's ratios are medians of its clicks' ratios to the bare click taken right after.
``skeleton`` is ``_skeleton_app.py``: the training view's widgets and fragments with no work and a
stage that draws only its step number, fed data of the preset's size. Drawn,
settled and the glide are measured as in bench_browser.py (the stage shows the new step; the glide
over, Streamlit idle, the last websocket message handled). With several servers and pages running
at once the machine is busier than in bench_browser.py, so compare the variants with each other,
in one run, not with that script's figures.
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


def skeleton_page(browser, url: str) -> Page:
    """A page on _skeleton_app.py, its stage drawn at step 0 and Streamlit idle."""
    pg = Page(browser, url)
    pg.wait("() => __stage().dataset.step === '0'")
    return pg


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="app,no_editors+no_keeper+no_timeline+no_captions+no_details",
                    help="comma-separated: app, or a '+'-joined set of " + ", ".join(VARIANTS))
    ap.add_argument("--clicks", type=int, default=12)
    ap.add_argument("--preset", default="chapter")
    args = ap.parse_args()
    variants = args.variants.split(",")
    for v in variants:
        if v.startswith("/") or v == "skeleton":
            continue  # another checkout's app.py (e.g. a git worktree at an earlier commit); the skeleton page
        unknown = set(v.split("+")) - set(VARIANTS) - {"app"}
        if unknown:
            raise SystemExit(f"unknown variant {sorted(unknown)}; known: app, {', '.join(VARIANTS)}")
    from playwright.sync_api import sync_playwright

    print(f"# ab_browser: Step click-to-settled of page variants vs the bare page ({args.preset})\n\n{machine_note()}\n")
    t0 = time.perf_counter()
    servers = {}
    try:
        for v in variants:
            if v.startswith("/"):
                servers[v] = Server(Path(v) / "app.py")
                continue
            if v == "skeleton":
                servers[v] = Server(HERE / "_skeleton_app.py", env={"SKELETON_PRESET": args.preset, "SKELETON_STAGE_CODE": "1"})
                continue
            flags = "" if v == "app" else v.replace("+", ",")
            servers[v] = Server(HERE / "_variant_app.py", env={"BENCH_VARIANT": flags})
        servers["bare"] = Server(BENCH / "bare_app.py")
        with sync_playwright() as p:
            browser = launch_chromium(p)
            try:
                bare = Page(browser, servers["bare"].url)
                bare.page.wait_for_selector(".st-key-click button")
                pages = {v: skeleton_page(browser, servers[v].url) if v == "skeleton" else
                         app_page(browser, servers[v].url, args.preset) for v in variants}
                times = {v: {"drawn": [], "net": [], "full": []} for v in variants}
                ratios = {v: {"drawn": [], "net": [], "full": []} for v in variants}
                errors: list[str] = []
                n_bare = 0
                for i in range(1, args.clicks + 1):
                    for v, pg in pages.items():
                        a = pg.app_step(i)
                        n_bare += 1
                        b = bare.bare_click(n_bare)
                        if a.get("error") or b.get("error"):
                            errors.append(f"{v} click {i}: {a.get('error') or b.get('error')}")
                            continue
                        got = {"drawn": a["drawn"], "net": a["full"] - a["glide"], "full": a["full"]}
                        for k, x in got.items():
                            times[v][k].append(x / 1e3)
                            ratios[v][k].append(x / b["full"])
                        print(f"  {v} click {i}: drawn {a['drawn']:.0f}, settled − glide {got['net']:.0f} ms,"
                              f" bare {b['full']:.0f} ms", file=sys.stderr)
                for v, pg in pages.items():
                    errors += [f"{v} page error: {e}" for e in pg.errors]
            finally:
                browser.close()
    finally:
        for srv in servers.values():
            srv.stop()
    rows = []
    for v in variants:
        if not times[v]["full"]:
            rows.append([v] + ["—"] * 6 + ["0"])
            continue
        r = {k: summary(ratios[v][k]) for k in ratios[v]}
        rows.append([v, ms_cells(times[v]["drawn"])[0], ms_cells(times[v]["net"])[0], ms_cells(times[v]["full"])[0],
                     fmt_ratio(r["drawn"]["p50"]), f"{fmt_ratio(r['net']['p50'])} ({fmt_ratio(r['net']['p10'])}–{fmt_ratio(r['net']['p90'])})",
                     fmt_ratio(r["full"]["p50"]), str(len(times[v]["full"]))])
    print(table(["variant", "drawn p50 ms", "settled − glide p50 ms", "settled p50 ms", "drawn / bare",
                 "(settled − glide) / bare (p10–p90)", "settled / bare", "n clicks"], rows))
    if errors:
        print("\nErrors:\n" + "\n".join(f"- {e}" for e in errors))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
