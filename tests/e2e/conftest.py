"""Fixtures for the browser tests: one `streamlit run` and one Chromium per session, a fresh context per page.

Everything listens on and talks to 127.0.0.1 only. The fixtures skip (saying why) where Chromium
or playwright is missing; the test modules also skip at import for the same reason.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from .helpers import ARTIFACTS, ROOT, VIEWPORT, open_app, stop_server, unavailable_reason

SERVER_START_S = 180  # the server warms itself before its health check says ok (warm.py)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _health(url: str) -> str:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
    try:
        with opener.open(url, timeout=2) as r:
            return r.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _serve(env: dict[str, str], log_name: str):
    """Start the app on a free loopback port with ``env`` added; yield its URL; stop it at the end."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / log_name
    log = open(log_path, "wb")
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]  # files edited during a run must not reload the app under test
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **env})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while _health(f"{url}/_stcore/health") != "ok":
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                tail = log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
                pytest.fail(f"streamlit did not answer /_stcore/health within {SERVER_START_S} s "
                            f"(exit code {proc.poll()}):\n{tail}", pytrace=False)
            time.sleep(0.25)
        yield url
    finally:
        stop_server(proc)
        log.close()


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
