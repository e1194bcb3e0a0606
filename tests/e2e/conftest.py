"""Fixtures for the browser tests: one `streamlit run` and one Chromium per session, a context per locale lent to one test at a time.

Everything listens on and talks to 127.0.0.1 only. The fixtures skip (saying why) where Chromium
or playwright is missing; the test modules also skip at import for the same reason.
"""

from __future__ import annotations

import os

import pytest

from support.server import NO_WATCHER, Server

from .helpers import ARTIFACTS, VIEWPORT, open_app, record_sent, unavailable_reason

SERVER_START_S = 180  # the server warms itself before its health check says ok (server/warm.py)


def _serve(env: dict[str, str], log_name: str):
    """Start the app on a free loopback port with ``env`` added; yield its URL; stop it at the end."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # one app per pytest-xdist worker: a log each
    if worker:
        log_name = log_name.replace(".log", f"-{worker}.log")
    with Server("app.py", timeout=SERVER_START_S, extra=NO_WATCHER, env=env, log=ARTIFACTS / log_name) as server:
        yield server.url


@pytest.fixture(scope="session")
def app_url():
    """The app every browser test shares, with the first-visit guide turned off as a teacher would
    (EXPLORER_GUIDE=off): every fresh context is a first visit, and the guide would sit over the page."""
    yield from _serve({"EXPLORER_GUIDE": "off"}, "e2e-streamlit.log")


@pytest.fixture(scope="session")
def guided_app_url():
    """The app as a learner meets it on a first visit: the guide on (tests/e2e/test_guide.py)."""
    yield from _serve({}, "e2e-streamlit-guided.log")


@pytest.fixture(scope="session")
def kept_contexts(browser):
    """One browser context per locale for this worker, lent to one test at a time by `new_page`.

    A context keeps its HTTP cache and V8's compiled code between tests, so a page opened in it
    does not fetch and compile Streamlit's bundle again; what a test leaves in it (localStorage,
    cookies) is cleared when the test ends, and a context that cannot be cleared is closed."""
    kept: dict[str, object] = {}
    yield kept
    for ctx in kept.values():
        ctx.close()


def _context(browser, locale: str):
    ctx = browser.new_context(locale=locale, viewport=dict(VIEWPORT), accept_downloads=True)
    ctx.set_default_timeout(30_000)
    return ctx


# Clears what the page's origin keeps in this browser; the count left (0 when cleared).
_CLEAR_JS = "() => { localStorage.clear(); sessionStorage.clear(); return localStorage.length + sessionStorage.length; }"


def _give_back(kept: dict, locale: str, page, app_url: str) -> None:
    """End a test's use of the kept context: its page closed and its storage cleared, or the
    context closed (a page elsewhere than the shared app, a second page, a crash, a failed clear)."""
    ctx = kept[locale]
    try:
        clean = not page.is_closed() and page.url.startswith(app_url) and ctx.pages == [page]
        if clean:  # the app unloaded first (a plain page of its origin), so nothing of it writes after the clear
            page.goto(app_url + "/_stcore/health")
            clean = page.evaluate(_CLEAR_JS) == 0
        if clean:
            page.close()
            ctx.clear_cookies()
    except Exception:  # the page or the context is gone: nothing of it may reach the next test
        clean = False
    if not clean:
        kept.pop(locale)
        try:
            ctx.close()
        except Exception:  # closed already (by the test)
            pass


@pytest.fixture
def new_page(browser, app_url, kept_contexts):
    """Factory: a page (its own Streamlit session) with the app loaded, in a browser with nothing
    kept from another test. The test's first page in a locale is opened in the worker's kept
    context for it (`kept_contexts`); a further page gets a fresh context of its own, so two pages
    of one test are two browsers (their own localStorage), as before."""
    fresh, lent = [], {}

    def make(locale: str = "ko-KR", url: str | None = None, load: bool = True):
        if locale in lent:  # a further page of this test: a browser of its own
            fresh.append(_context(browser, locale))
            page = fresh[-1].new_page()
        else:
            if locale not in kept_contexts:
                kept_contexts[locale] = _context(browser, locale)
            page = lent[locale] = kept_contexts[locale].new_page()
        page.e2e_js_errors = []
        page.on("pageerror", lambda err: page.e2e_js_errors.append(str(err)))
        record_sent(page)
        if load:
            open_app(page, url or app_url)
        return page

    yield make
    for ctx in fresh:
        ctx.close()
    for locale, page in lent.items():
        _give_back(kept_contexts, locale, page, app_url)


@pytest.fixture
def ko_page(new_page):
    """The app as a browser set to Korean sees it (the default language follows the locale)."""
    return new_page("ko-KR")


@pytest.fixture
def en_page(new_page):
    return new_page("en-US")
