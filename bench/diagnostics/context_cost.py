"""What a new browser context costs the machine, with Playwright's default switches and with the
browser tests' (support/browser.py: ``launch_args``, which also disables UNSEEN_UI), interleaved.

    python bench/diagnostics/context_cost.py --rounds 3 --contexts 6

Two browsers side by side, one per set of switches. Each round, each in turn: ``--contexts`` new
contexts, each opening about:blank and then, with ``--app``, the app's page (its own server on
127.0.0.1, first-visit guide off) until the stage has drawn and the page is idle. Measured: the
whole machine's busy CPU seconds per context (``/proc/stat`` through psutil), and which pages of its
own the browser opened beside the test's (CDP ``Target.getTargets``: type ``browser_ui``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import machine_note  # noqa: E402
from ab_page_open import busy_cpu  # noqa: E402  (this folder: the whole machine's busy CPU seconds)
from support.browser import CHROMIUM, LAUNCH_ARGS, launch_args  # noqa: E402
from support.server import NO_WATCHER, Server  # noqa: E402
from tests.e2e.helpers import VIEWPORT, open_app, wait_idle  # noqa: E402


def own_pages(browser) -> list[str]:
    cdp = browser.new_browser_cdp_session()
    try:
        return sorted(t["url"] for t in cdp.send("Target.getTargets")["targetInfos"] if t["type"] == "browser_ui")
    finally:
        cdp.detach()


def contexts(browser, n: int, url: str | None, settle_s: float) -> tuple[float, list[str]]:
    """Machine CPU seconds per context over ``n`` new ones, and the browser's own pages seen in the last."""
    seen: list[str] = []
    before = busy_cpu()
    for _ in range(n):
        ctx = browser.new_context(locale="ko-KR", viewport=dict(VIEWPORT))
        page = ctx.new_page()
        if url:
            open_app(page, url)
            wait_idle(page)
        else:
            page.goto("about:blank")
            time.sleep(settle_s)  # the window's own pages load after the test's; this is what they cost
        seen = own_pages(browser)
        ctx.close()
    return (busy_cpu() - before) / n, seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--contexts", type=int, default=6)
    ap.add_argument("--app", action="store_true", help="open the app's page in each context (else about:blank)")
    ap.add_argument("--settle", type=float, default=1.0, help="seconds each about:blank context stays open")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(__file__).resolve().parents[2]
    server = Server(root / "app.py", extra=NO_WATCHER) if args.app else None
    try:
        with sync_playwright() as p:
            variants = {"Playwright's defaults": LAUNCH_ARGS, "the tests' (launch_args)": launch_args(p)}
            browsers = {name: p.chromium.launch(executable_path=CHROMIUM, args=a) for name, a in variants.items()}
            url = server.url if server else None
            if url:
                contexts(next(iter(browsers.values())), 1, url, 0)  # the server's first page: imports, warm-up
            print(f"# context_cost: {args.rounds} rounds × {args.contexts} contexts, "
                  f"{'the app' if url else 'about:blank'}\n\n{machine_note()}\n")
            per: dict[str, list[float]] = {name: [] for name in browsers}
            pages: dict[str, list[str]] = {}
            for r in range(args.rounds):
                for name, b in browsers.items():
                    cost, pages[name] = contexts(b, args.contexts, url, args.settle)
                    per[name].append(cost)
                print(f"round {r + 1}: " + "  ".join(f"{v[-1]:.2f}" for v in per.values()), flush=True)
            for b in browsers.values():
                b.close()
    finally:
        if server:
            server.stop()
    first = statistics.median(next(iter(per.values())))
    print("\nmachine CPU-s per new context\n| switches | per round | median | ratio | the browser's own pages |\n"
          "| --- | --- | --- | --- | --- |")
    for name, v in per.items():
        print(f"| {name} | {' / '.join(f'{x:.2f}' for x in v)} | {statistics.median(v):.2f} | "
              f"{statistics.median(v) / first:.2f} | {', '.join(pages[name]) or 'none'} |")


if __name__ == "__main__":
    main()
