"""Fixtures for the browser tests: one `streamlit run` and one Chromium per session, a fresh context per page.

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


@pytest.fixture
def new_page(browser, app_url):
    """Factory: a page in a fresh browser context (its own Streamlit session), with the app loaded."""
    contexts = []

    def make(locale: str = "ko-KR", url: str | None = None, load: bool = True):
        ctx = browser.new_context(locale=locale, viewport=dict(VIEWPORT), accept_downloads=True)
        ctx.set_default_timeout(30_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.e2e_js_errors = []
        page.on("pageerror", lambda err: page.e2e_js_errors.append(str(err)))
        record_sent(page)
        if load:
            open_app(page, url or app_url)
        return page

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def ko_page(new_page):
    """The app as a browser set to Korean sees it (the default language follows the locale)."""
    return new_page("ko-KR")


@pytest.fixture
def en_page(new_page):
    return new_page("en-US")
