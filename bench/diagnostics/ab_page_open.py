"""What a page open costs the machine, for two or more versions of the app, interleaved in one run.

    git archive HEAD~1 | tar -x -C /tmp/before              # the version to compare against
    python bench/diagnostics/ab_page_open.py --app /tmp/before/app.py --app app.py --rounds 4

Each ``--app`` gets its own server (127.0.0.1, free port, first-visit guide off), opened once to
warm it. Then, ``--rounds`` times, each app in turn: ``--opens`` fresh browser contexts (a new
learner each, Debian's Chromium) open the page until the lookup stage has drawn W and the page is
idle. Measured: the whole machine's busy CPU seconds (``/proc/stat`` through psutil: Chromium, its
driver and the server together) per page open, and each round's ratio to the first app's. The
browser tests and a class of learners pay this at every page open; on a shared machine the turns
see the same load, so the per-round ratios say more than any one figure.

``--bare`` adds Streamlit's own floor as a further column: a page of one ``st.write`` served the same
way, opened until its text shows (what any Streamlit page costs in this browser).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import machine_note  # noqa: E402
from support.browser import launch  # noqa: E402
from support.server import NO_WATCHER, Server  # noqa: E402
from tests.e2e.helpers import VIEWPORT, open_app, wait_idle  # noqa: E402


def busy_cpu() -> float:
    t = psutil.cpu_times()
    return t.user + t.system + t.nice + t.irq + t.softirq


BARE_TEXT = "bare streamlit page"
BARE_APP = f"import streamlit as st\nst.write({BARE_TEXT!r})\n"


def open_pages(browser, url: str, n: int, bare: bool = False) -> float:
    """Machine CPU seconds per page open, over ``n`` fresh contexts."""
    before = busy_cpu()
    for _ in range(n):
        ctx = browser.new_context(locale="ko-KR", viewport=dict(VIEWPORT))
        page = ctx.new_page()
        if bare:
            page.goto(url)
            page.get_by_text(BARE_TEXT).wait_for(timeout=90_000)
        else:
            open_app(page, url)
        wait_idle(page)
        ctx.close()
    return (busy_cpu() - before) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--app", action="append", required=True, help="an app script (give two or more)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--opens", type=int, default=3, help="page opens per app per round")
    ap.add_argument("--bare", action="store_true", help="add a one-line Streamlit page: the framework's floor")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory() if args.bare else None
    if tmp is not None:
        (Path(tmp.name) / "bare.py").write_text(BARE_APP, encoding="utf-8")
        args.app.append(str(Path(tmp.name) / "bare.py"))
    bare = [tmp is not None and a.startswith(tmp.name) for a in args.app]  # which pages wait for BARE_TEXT
    rounds, opens = max(1, min(args.rounds, 10)), max(1, min(args.opens, 10))
    from playwright.sync_api import sync_playwright

    print(f"# ab_page_open: {' vs '.join(args.app)}, {rounds} rounds × {opens} opens\n\n{machine_note()}\n", flush=True)
    servers = []
    try:
        for a in args.app:  # each started here (Server starts in its constructor)
            servers.append(Server(Path(a).resolve(), extra=NO_WATCHER, env={"EXPLORER_GUIDE": "off"}))
        with sync_playwright() as pw:
            browser = launch(pw)
            for i, s in enumerate(servers):
                open_pages(browser, s.url, 1, bare[i])  # warm: the first run imports torch
            cost = [[] for _ in servers]
            for r in range(rounds):
                for i, s in enumerate(servers):
                    cost[i].append(open_pages(browser, s.url, opens, bare[i]))
                print(f"round {r + 1}: " + "  ".join(f"{c[-1]:.2f}" for c in cost), flush=True)
            browser.close()
    finally:
        for s in servers:
            s.stop()
        if tmp is not None:
            tmp.cleanup()
    print(f"\nmachine CPU-s per page open, {rounds} rounds × {opens} opens, {psutil.cpu_count()} cores")
    print("| app | per round | median | ratio to the first (median of rounds) |\n| --- | --- | --- | --- |")
    for a, c in zip(args.app, cost):
        ratio = statistics.median(x / y for x, y in zip(c, cost[0]))
        print(f"| {a} | {' / '.join(f'{x:.2f}' for x in c)} | {statistics.median(c):.2f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
