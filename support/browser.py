"""Debian's Chromium through Playwright (never ``playwright install``), for the browser tests and benchmarks."""

from __future__ import annotations

import importlib.util
import os

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
               "--disable-component-update", "--no-first-run"]

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
    """A Chromium from Playwright's sync or async API object (``p.chromium.launch`` with this path and flags)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
