"""The keeper in Chromium: work survives a reload, an outage and a server restart.

Runs tests/e2e/keeper_app.py on one fixed loopback port (localStorage belongs to an origin, and the
restarted server must be the same origin). The W the page shows after a restore is checked
against a fresh torch computation (the default example trained the same steps), by its sha256.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time

import pytest

from .conftest import _health
from .helpers import ARTIFACTS, ROOT, stop_server, unavailable_reason

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)

PORT = 8631  # fixed: the origin (and so the localStorage) must survive the restart
URL = f"http://127.0.0.1:{PORT}/"
STEPS = 3
CODE = "[data-testid='stCode']"
OFFER = ".st-key-keeper_restore button"
BANNER = ".st-key-keeper .keeper-banner"


def start_server(log_name: str) -> subprocess.Popen:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / log_name, "wb")
    cmd = [sys.executable, "-m", "streamlit", "run", "tests/e2e/keeper_app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(PORT), "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while _health(f"{URL}_stcore/health") != "ok":
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_server(proc)
            pytest.fail(f"keeper_app did not start on port {PORT}", pytrace=False)
        time.sleep(0.25)
    return proc


def answer_key(steps: int) -> str:
    """sha256 of W after ``steps`` steps of the default example, computed afresh in this process."""
    from assets import presets
    from core.explorer import Explorer

    ex = Explorer.from_preset(presets.load(presets.DEFAULT))
    ex.run(steps)
    return hashlib.sha256(ex.lab.weight.detach().contiguous().numpy().tobytes()).hexdigest()


def shown(page) -> str:
    return page.locator(CODE).inner_text().strip()


def wait_shown(page, steps: int, timeout: float = 60_000) -> str:
    page.wait_for_function("([sel, want]) => { const e = document.querySelector(sel);"
                           " return e !== null && e.innerText.trim().startsWith(want); }",
                           arg=[CODE, f"steps={steps} "], timeout=timeout, polling=100)
    return shown(page)


def stored_steps(page):
    return page.evaluate("() => { const r = localStorage.getItem('nn-embedding-explorer.work');"
                         " return r === null ? null : JSON.parse(r).steps; }")


@pytest.fixture
def server():
    holder = {"proc": start_server("e2e-keeper-1.log")}
    yield holder
    if holder["proc"].poll() is None:
        stop_server(holder["proc"])


def test_work_survives_reload_outage_and_restart(server, browser):
    want = f"steps={STEPS} w={answer_key(STEPS)}"
    # The session's one Chromium (tests/conftest.py); a context of its own keeps localStorage apart.
    ctx = browser.new_context(locale="ko-KR", viewport={"width": 1000, "height": 900})
    try:
        ctx.set_default_timeout(60_000)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(URL)
        wait_shown(page, 0)
        assert page.locator(OFFER).count() == 0  # a fresh browser has nothing to offer
        for n in range(1, STEPS + 1):
            page.locator(".st-key-keeper_step button").click()
            wait_shown(page, n)
        assert shown(page) == want  # the app's W is torch's W
        page.wait_for_function("(n) => { const r = localStorage.getItem('nn-embedding-explorer.work');"
                               " return r !== null && JSON.parse(r).steps === n; }", arg=STEPS)

        # 1. reload: the page starts over, and offers the work back
        page.reload()
        wait_shown(page, 0)
        offer = page.locator(OFFER)
        offer.wait_for(state="visible")
        assert f"{STEPS}단계" in offer.inner_text()
        assert stored_steps(page) == STEPS  # not overwritten by the fresh page
        offer.click()
        assert wait_shown(page, STEPS) == want
        page.locator(OFFER).wait_for(state="detached")

        # 2. outage: the banner says the work is kept here
        stop_server(server["proc"])
        banner = page.locator(BANNER)
        banner.wait_for(state="visible", timeout=30_000)
        text = banner.inner_text()
        assert "이 브라우저에 저장되어" in text and f"{STEPS}단계" in text

        # 3. restart, then reload: offered again, restored again
        server["proc"] = start_server("e2e-keeper-2.log")
        page.locator(BANNER).wait_for(state="hidden", timeout=60_000)  # reconnected
        page.reload()
        wait_shown(page, 0)
        page.locator(OFFER).wait_for(state="visible")
        page.locator(OFFER).click()
        assert wait_shown(page, STEPS) == want

        # 4. restart without a reload: the first click lands in a new session at step 0, and the
        # kept work (not overwritten by that click) is offered on the spot
        stop_server(server["proc"])
        page.locator(BANNER).wait_for(state="visible", timeout=30_000)
        server["proc"] = start_server("e2e-keeper-3.log")
        page.locator(BANNER).wait_for(state="hidden", timeout=60_000)
        page.locator(".st-key-keeper_step button").click()
        wait_shown(page, 1)
        page.locator(OFFER).wait_for(state="visible")
        assert f"{STEPS}단계" in page.locator(OFFER).inner_text() and stored_steps(page) == STEPS
        page.locator(OFFER).click()
        assert wait_shown(page, STEPS) == want
        assert errors == []
    finally:
        ctx.close()
