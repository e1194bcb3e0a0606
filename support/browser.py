"""Debian's Chromium through Playwright (never ``playwright install``), for the browser tests and benchmarks."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
               "--disable-component-update", "--no-first-run"]

# Browser-interface pages that headless Chromium loads into every window it opens, one window per
# browser context: the address bar's WebUI popups. No page of the app is among them and no test
# looks at them, but every new context paid for rendering them.
UNSEEN_UI = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
FEATURES_SWITCH = "--disable-features="

# A JavaScript function that finds the stage's root inside its shadow root (components/stage/js),
# or null: for the page-side helpers of the browser tests and benchmarks.
FIND_STAGE_JS = """() => {
  const host = document.querySelector('.st-key-stage');
  if (!host) return null;
  for (const e of host.querySelectorAll('*')) {
    const s = e.shadowRoot && e.shadowRoot.querySelector('[data-testid="stage"]');
    if (s) return s;
  }
  return null;
}"""


def unavailable_reason() -> str | None:
    """Why a real browser cannot run here, or None."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium fonts-noto-cjk)"
    if importlib.util.find_spec("playwright") is None:
        return "browser tests need the playwright Python package (pip install -r requirements-dev.txt)"
    try:
        import playwright.sync_api  # noqa: F401
    except Exception as e:  # a broken install
        return f"playwright is not importable: {e!r}"
    return None


def launch(playwright):
    """A Chromium from Playwright's sync API object, with this path and ``launch_args``."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=launch_args(playwright))


_args: list[str] | None = None  # launch_args' answer: the same for every browser this process launches


def launch_args(playwright=None) -> list[str]:
    """LAUNCH_ARGS and one ``--disable-features`` switch naming Playwright's own features and UNSEEN_UI.

    Chromium reads only the last ``--disable-features`` switch, and Playwright's comes first, so ours
    repeats Playwright's list; that list is read from a browser Playwright launches with its defaults
    (once per process; ``playwright`` is a sync API object, or one is started here). Where the
    browser's command line cannot be read, LAUNCH_ARGS alone: the windows' popups cost time, not
    correctness.
    """
    global _args
    if _args is None:
        if playwright is None:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                return launch_args(p)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            theirs = features_disabled_by(browser_command_lines())
        finally:
            browser.close()
        _args = LAUNCH_ARGS if theirs is None else LAUNCH_ARGS + [FEATURES_SWITCH + ",".join(theirs + list(UNSEEN_UI))]
    return list(_args)


def browser_command_lines() -> list[list[str]]:
    """The command lines of the Chromium browser processes running now (not their renderers or
    helpers), read from /proc; none where there is no /proc."""
    lines = []
    for entry in Path("/proc").glob("[0-9]*") if Path("/proc").is_dir() else ():
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # the process ended meanwhile, or is not ours to read
            continue
        if argv and "chromium" in Path(argv[0]).name and "--remote-debugging-pipe" in argv \
                and not any(a.startswith("--type=") for a in argv):
            lines.append(argv)
    return lines


def disabled_features(argv: list[str]) -> list[list[str]]:
    """The features each ``--disable-features`` switch of a command line names, in order."""
    return [[f for f in a[len(FEATURES_SWITCH):].split(",") if f] for a in argv if a.startswith(FEATURES_SWITCH)]


def features_disabled_by(command_lines: list[list[str]]) -> list[str] | None:
    """The features Playwright disables: the first ``--disable-features`` switch of a browser it
    launched (its own switches come before the caller's), or None when none is found."""
    return next((switches[0] for switches in map(disabled_features, command_lines) if switches), None)
