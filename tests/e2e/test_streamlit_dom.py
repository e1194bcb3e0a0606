"""Every part of Streamlit's page our JavaScript relies on, matched in Chromium on the running app, by
name: each selector by which it finds Streamlit's elements, each attribute of theirs it reads, each
theme variable (all read from the JavaScript itself: tests/streamlit_dom.py), and the Plotly
pictures widget_text.js hides from the accessibility tree. A learner's walk through the views
brings out the ones Streamlit draws only for a moment: the skeletons while the page loads on a slow
network, "Press Enter to apply" while typing, a dropdown's list and a multiselect's tag, the
connection status while Streamlit reconnects. tests/test_streamlit_dom.py checks the names against
Streamlit's frontend source."""

from __future__ import annotations

import pytest

from tests.streamlit_dom import STREAMLIT_ATTRIBUTES, decorative_selectors, streamlit_selectors, streamlit_variables

from .helpers import (JS_LIB, ROOT, VIEWPORT, button, open_app, open_editors, section, unavailable_reason, wait_idle,
                      wait_js)

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)

SELECTORS = streamlit_selectors()
# Drawn where another browser test goes, which names the selector when it stops matching: a download
# the server refuses needs a server with no lane free.
ELSEWHERE = {'[data-testid="stDownloadButtonError"]': "tests/e2e/test_download_refused.py"}
# From the page's first paint: whether each selector ever matched (a class prefix: any class that
# starts with it), and the page's websockets, so that the test can close them.
WATCH_JS = """(probes) => {
  window.__seen = {};
  const look = () => { for (const [name, probe] of probes) if (!window.__seen[name] && document.querySelector(probe)) window.__seen[name] = true; };
  new MutationObserver(look).observe(document, {subtree: true, childList: true, attributes: true}); look();
  const Socket = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Socket { constructor(...a) { super(...a); window.__sockets.push(this); } };
}"""


def probe(selector: str) -> str:
    """What matches ``selector`` in the page: itself, or for a class prefix (``.st-key-``) a class that starts with it."""
    if selector.startswith(".") and selector.endswith("-"):
        return f'[class^="{selector[1:]}"], [class*=" {selector[1:]}"]'
    return selector


def seen(page, selector: str) -> bool:
    return bool(page.evaluate("(s) => !!window.__seen[s]", selector))


def wait_seen(page, selector: str, timeout: float = 30_000) -> None:
    """Wait until ``selector`` has matched; a selector that never does fails naming it and its files."""
    try:
        page.wait_for_function("(s) => !!window.__seen[s]", arg=selector, timeout=timeout, polling=50)
    except Exception:
        pytest.fail(f"Streamlit's page no longer matches {selector}, which {SELECTORS[selector]} rely on")


def test_every_selector_is_one_our_javascript_uses():
    assert set(ELSEWHERE) <= set(SELECTORS), sorted(SELECTORS)
    for selector, test in ELSEWHERE.items():
        assert selector.split('"')[1] in (ROOT / test).read_text(encoding="utf-8"), (selector, test)


def test_every_part_of_streamlit_s_page_our_javascript_relies_on_matches_on_the_running_app(browser, app_url):
    ctx = browser.new_context(locale="en-US", viewport=dict(VIEWPORT))
    try:
        page = ctx.new_page()
        page.add_init_script(f"({WATCH_JS})({[[s, probe(s)] for s in sorted(SELECTORS)]!r})")
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        slow = {"offline": False, "latency": 300, "downloadThroughput": -1, "uploadThroughput": -1}
        cdp.send("Network.emulateNetworkConditions", slow)  # the widgets' skeletons stay long enough to be seen
        open_app(page, app_url)
        wait_idle(page)
        cdp.send("Network.emulateNetworkConditions", {**slow, "latency": 0})

        for attribute, (written, element) in STREAMLIT_ATTRIBUTES.items():
            value = page.evaluate("([e, a]) => { const n = document.querySelector(e); return n && n.getAttribute(a); }",
                                  [element, attribute])
            assert value, f"Streamlit's {element} no longer has {attribute}, which our JavaScript reads ({written})"
        assert page.evaluate("() => document.querySelector('[data-testid=\"stApp\"]').dataset.testScriptState") == "notRunning"
        for variable, where in streamlit_variables().items():  # read where the stage reads it: in its shadow root
            value = page.evaluate(f"(v) => {{ {JS_LIB}; return getComputedStyle(__stage()).getPropertyValue(v).trim(); }}",
                                  variable)
            assert value, f"Streamlit's theme no longer sets {variable} in a component, which {where} reads"

        open_editors(page)  # "Press Enter to apply" while the learner types
        page.locator(".st-key-try_sentence input").fill("good movie")
        wait_seen(page, '[data-testid="InputInstructions"]')
        page.keyboard.press("Escape")
        section(page, "en", "train")  # a multiselect's list and its options
        button(page, "predict_step").click()
        page.locator(".st-key-predict_rows input").first.click()
        for selector in ('[role="listbox"]', '[role="option"][aria-selected]'):
            wait_seen(page, selector)
        page.keyboard.press("Escape")
        wait_idle(page)
        section(page, "en", "lessons")
        wait_js(page, "() => document.querySelector('.st-key-lessons .js-plotly-plot .main-svg') !== null")
        hidden = page.evaluate("(sels) => sels.map(s => [s, document.querySelectorAll(s).length,"
                               " [...document.querySelectorAll(s)].every(e => e.getAttribute('aria-hidden') === 'true')])",
                               decorative_selectors())
        unmatched = [s for s, n, _ in hidden if n == 0]
        assert not unmatched, f"Plotly no longer draws {unmatched}, which components/widget_text.js hides (DECORATIVE)"
        assert all(ok for _, _, ok in hidden), hidden
        section(page, "en", "share")
        page.evaluate("() => window.__sockets.forEach(s => s.close())")  # Streamlit shows its status, then reconnects
        wait_seen(page, '[data-testid="stConnectionStatus"]')
        wait_idle(page)

        missing = {s: w for s, w in SELECTORS.items() if s not in ELSEWHERE and not seen(page, s)}
        assert not missing, "Streamlit's page no longer matches " + "; ".join(f"{s} (used by {', '.join(w)})"
                                                                               for s, w in missing.items())
    finally:
        ctx.close()
