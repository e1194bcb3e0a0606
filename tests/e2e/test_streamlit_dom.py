"""Streamlit's own elements that our JavaScript finds by ``data-testid``, matched in Chromium on the
running app (tests/streamlit_dom.py reads the names from our JavaScript; tests/test_streamlit_dom.py
checks every one against Streamlit's frontend source, including those only drawn in a passing state:
the connection status while offline, a download's error, the input instructions while typing), and
the Plotly pictures widget_text.js hides from the accessibility tree, matched on the lessons view's chart."""

from __future__ import annotations

import pytest

from tests.streamlit_dom import decorative_selectors, streamlit_test_ids

from .helpers import VIEWPORT, open_app, section, unavailable_reason, wait_idle, wait_js

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)

NAMES = streamlit_test_ids()
ON_THE_PAGE = ("stApp", "stHeader", "stWidgetLabel", "stMarkdownContainer", "stSkipToContent")
ON_THE_SHARE_VIEW = ("stFileUploaderDropzone",)
# Recorded from the page's first paint: whether an element with each name was ever in the page.
SEEN_JS = """(names) => {
  window.__seen = window.__seen || {};
  const look = () => { for (const n of names) if (document.querySelector('[data-testid="' + n + '"]')) window.__seen[n] = true; };
  new MutationObserver(look).observe(document, {subtree: true, childList: true}); look();
}"""


def test_every_name_checked_here_is_one_our_javascript_uses():
    assert set(ON_THE_PAGE + ON_THE_SHARE_VIEW + ("stSkeleton",)) <= set(NAMES), NAMES


def test_streamlit_s_elements_match_on_the_running_page(browser, app_url):
    """Each name is matched where Streamlit draws it; a skeleton is caught while the page loads on a
    slow network (the guide waits for the last one to go)."""
    ctx = browser.new_context(locale="en-US", viewport=dict(VIEWPORT))
    try:
        page = ctx.new_page()
        page.add_init_script(f"({SEEN_JS})({sorted(NAMES)!r})")
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 300, "downloadThroughput": -1,
                                                      "uploadThroughput": -1})
        open_app(page, app_url)
        wait_idle(page)
        seen = page.evaluate("() => window.__seen")
        missing = [n for n in ON_THE_PAGE + ("stSkeleton",) if not seen.get(n)]
        assert not missing, f"Streamlit's page no longer has data-testid {missing}, which {[NAMES[n] for n in missing]} rely on"
        assert page.evaluate("() => document.querySelector('[data-testid=\"stApp\"]').dataset.testScriptState") == "notRunning"
        section(page, "en", "share")
        seen = page.evaluate("() => window.__seen")
        missing = [n for n in ON_THE_SHARE_VIEW if not seen.get(n)]
        assert not missing, f"the share view no longer has data-testid {missing}, which {[NAMES[n] for n in missing]} rely on"
        section(page, "en", "lessons")
        wait_js(page, "() => document.querySelector('.st-key-lessons .js-plotly-plot .main-svg') !== null")
        hidden = page.evaluate("(sels) => sels.map(s => [s, document.querySelectorAll(s).length,"
                               " [...document.querySelectorAll(s)].every(e => e.getAttribute('aria-hidden') === 'true')])",
                               decorative_selectors())
        unmatched = [s for s, n, _ in hidden if n == 0]
        assert not unmatched, f"Plotly no longer draws {unmatched}, which components/widget_text.js hides (DECORATIVE)"
        assert all(ok for _, _, ok in hidden), hidden
    finally:
        ctx.close()
