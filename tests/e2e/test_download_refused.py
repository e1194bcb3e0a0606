"""A download the server refuses when it is clicked (a busy server: server.budget found no lane) says
so under its button in the page's language, with what to do, instead of Streamlit's "Failed to
generate file for download" (components/widget_text.py rewrites it), and the page goes on working.
"""

from __future__ import annotations

import pytest

from support.server import NO_WATCHER, Server

from .helpers import ARTIFACTS, VIEWPORT, label, open_app, section, unavailable_reason, wait_js

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

STREAMLITS = "Failed to generate file for download"


@pytest.fixture(scope="module")
def busy_url():
    with Server("tests/e2e/busy_app.py", timeout=180, extra=NO_WATCHER, env={"EXPLORER_GUIDE": "off"},
                log=ARTIFACTS / "e2e-busy.log") as server:
        yield server.url


@pytest.mark.parametrize("lang,locale", [("ko", "ko-KR"), ("en", "en-US")])
def test_a_refused_download_says_why_and_what_to_do_in_the_pages_language(browser, busy_url, lang, locale):
    ctx = browser.new_context(locale=locale, viewport=dict(VIEWPORT), accept_downloads=True)
    try:
        page = ctx.new_page()
        open_app(page, busy_url)
        section(page, lang, "share")
        page.locator(".st-key-export_w_csv").get_by_role("button", name=label(lang, "share.export_w_csv")).click()
        error = page.locator(".st-key-export_w_csv [data-testid='stDownloadButtonError']")
        error.wait_for(timeout=30_000)
        wait_js(page, "(s) => { const e = document.querySelector(\"[data-testid='stDownloadButtonError']\");"
                      " return e && e.textContent.trim() === s; }", label(lang, "chrome.download_failed"))
        assert STREAMLITS not in page.inner_text("body")
        section(page, lang, "train")  # the page still works: the training view draws
    finally:
        ctx.close()
