"""The keeper in Chromium, on the app's training view: work survives a reload, a second tab, a server
restart and a move to another server process, and the page is never left with dead buttons.

The reload, the two tabs and the move start from one `streamlit run app.py` the browser tests share (conftest.py)
(each test has a fresh browser context: its own localStorage, its own sessions); the restart and
the move's second process are started by their tests. localStorage belongs to an origin, so a
restart reuses the port, and the move to another server goes through a small TCP relay
(one origin, two server processes, as behind a load balancer). W after a restore is read from the
lookup view's table (every float32 digit) and its sha256 compared with a fresh torch computation:
the default example stepped as many times in this process.
"""

from __future__ import annotations

import hashlib
import socket
import threading
import urllib.parse
import urllib.request

import numpy as np
import pytest

from support.server import NO_WATCHER, Server as KitServer

from .helpers import (ARTIFACTS, VIEWPORT, label, lookup_tables, section, step_once,
                      unavailable_reason, wait_js, wait_stage, wait_step)

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)

OFFERS = "[class*='st-key-keeper_restore_'] button"
KEPT_JS = """() => { const out = [];
  for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i);
    if (k.startsWith('nn-embedding-explorer.work.')) out.push([k, JSON.parse(localStorage.getItem(k))]); }
  return out; }"""
OFFER_WITHIN_MS = 2_000


class Server(KitServer):
    """One `streamlit run app.py` on a loopback port (a free one unless given), its output in artifacts/."""

    def __init__(self, name: str, port: int | None = None):
        super().__init__("app.py", timeout=180, extra=NO_WATCHER, port=port, log=ARTIFACTS / f"e2e-keeper-{name}.log")

class Relay:
    """A TCP relay from one loopback port to a server's: `move` drops every connection and sends new
    ones to another server, as a load balancer does when a replica goes."""

    def __init__(self, target: int):
        self.target = target
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open |= {client, upstream}
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                self._close(s)

    def _close(self, s: socket.socket) -> None:
        with self.lock:
            self.open.discard(s)
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()

    def move(self, target: int) -> None:
        self.target = target
        with self.lock:
            live = list(self.open)
        for s in live:
            self._close(s)

    def close(self) -> None:
        self.sock.close()
        self.move(self.target)


@pytest.fixture
def servers():
    started: list[Server] = []

    def start(name: str, port: int | None = None) -> Server:
        started.append(Server(name, port))
        return started[-1]

    yield start
    for s in started:
        s.stop()


def healthy(url: str) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"{url}/_stcore/health", timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.fixture
def context(browser):
    ctx = browser.new_context(locale="ko-KR", viewport=dict(VIEWPORT))
    ctx.set_default_timeout(60_000)
    yield ctx
    ctx.close()


def answer_key(steps: int) -> str:
    """sha256 of W after ``steps`` steps of the default example, computed afresh in this process."""
    from assets import presets
    from core.explorer import Explorer

    ex = Explorer.from_preset(presets.load(presets.DEFAULT))
    if steps:
        ex.run(steps)
    return hashlib.sha256(ex.lab.weight.detach().contiguous().numpy().astype("<f4").tobytes()).hexdigest()


def shown_w_sha(page) -> str:
    """sha256 of W as the lookup view's table shows it (every float32 digit); back to the training view."""
    section(page, "ko", "lookup")
    w = lookup_tables(page, "ko")["w"]
    out = hashlib.sha256(np.stack([np.asarray(w[i], dtype="<f4") for i in sorted(w)]).tobytes()).hexdigest()
    section(page, "ko", "train")
    return out


def open_train(page, url: str) -> None:
    errors: list[str] = []
    page.e2e_js_errors = errors
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/?section=train")
    wait_stage(page, "(s) => s.mode === 'train'", timeout=90_000)


def kept(page) -> dict[str, dict]:
    return dict(page.evaluate(KEPT_JS))


def wait_kept(page, steps: int) -> None:
    page.wait_for_function(f"() => ({KEPT_JS})().some(([k, e]) => e.steps === {steps})", timeout=20_000)


def offers(page) -> list[str]:
    return [b.inner_text() for b in page.locator(OFFERS).all()]


def wait_offer(page, timeout: float = OFFER_WITHIN_MS):
    page.locator(OFFERS).first.wait_for(state="visible", timeout=timeout)


def reconnected_shown(page) -> bool:
    return page.get_by_text(label("ko", "keeper.reconnected")).count() > 0


def test_on_the_training_view_a_reload_offers_the_work_and_a_step_first_keeps_it(app_url, context):
    url = app_url
    page = context.new_page()
    open_train(page, url)
    for n in range(1, 6):
        step_once(page, n)
    wait_kept(page, 5)
    before = kept(page)
    assert len(before) == 1

    page.reload()
    wait_stage(page, "(s) => s.mode === 'train'", timeout=60_000)  # the first run drew the training view
    wait_offer(page)  # and the offer follows within OFFER_WITHIN_MS, on the same view
    assert "section=train" in page.url and wait_stage(page)["step"] == "0"
    (text,) = offers(page)
    assert label("ko", "keeper.this_tab") in text and "5단계" in text
    assert kept(page) == before  # the fresh page kept nothing over it

    step_once(page, 1)  # a Step before choosing
    wait_kept(page, 1)
    now = kept(page)
    assert {k: now[k] for k in before} == before  # the kept entry is intact
    assert sorted(e["steps"] for e in now.values()) == [1, 5]  # and the new step is kept beside it
    page.locator(OFFERS).first.wait_for(state="visible")  # still offered

    page.locator(OFFERS).first.click()
    wait_step(page, 5)
    assert shown_w_sha(page) == answer_key(5)  # W bitwise as torch computes it
    assert page.locator(OFFERS).count() == 0
    assert [e["steps"] for e in kept(page).values()].count(5) == 1  # the restored work is kept once
    assert page.e2e_js_errors == []


def test_two_tabs_are_kept_apart_and_offered_apart(app_url, context):
    url = app_url
    a, b = context.new_page(), context.new_page()  # one browser: one localStorage, a sessionStorage each
    open_train(a, url)
    open_train(b, url)
    for n in (1, 2):
        step_once(a, n)
    for n in (1, 2, 3, 4):
        step_once(b, n)
    wait_kept(a, 2)
    wait_kept(b, 4)
    entries = kept(a)
    assert sorted(e["steps"] for e in entries.values()) == [2, 4]  # both kept
    assert len({e["tab"] for e in entries.values()}) == 2

    a.reload()
    wait_stage(a, "(s) => s.mode === 'train'", timeout=60_000)
    wait_offer(a)
    texts = offers(a)
    assert len(texts) == 2
    mine = [t for t in texts if label("ko", "keeper.this_tab") in t]
    theirs = [t for t in texts if label("ko", "keeper.other_tab") in t]
    assert len(mine) == len(theirs) == 1 and "2단계" in mine[0] and "4단계" in theirs[0]
    a.locator(OFFERS, has_text="4단계").click()  # take the other tab's work into this one
    wait_step(a, 4)
    assert shown_w_sha(a) == answer_key(4)
    assert wait_stage(b)["step"] == "4"  # the other tab is untouched
    assert a.e2e_js_errors == [] and b.e2e_js_errors == []


def _after_the_session_is_gone(page, steps: int) -> None:
    """The page was reconnected to a new session: it says so, offers its work, and Step works at
    the first click; restoring gives W bitwise."""
    page.get_by_text(label("ko", "keeper.reconnected")).wait_for(state="visible", timeout=90_000)
    wait_offer(page, timeout=30_000)
    (text,) = offers(page)
    assert label("ko", "keeper.this_tab") in text and f"{steps}단계" in text
    assert wait_stage(page)["step"] == "0"  # the new session's page, drawn afresh
    step_once(page, 1)  # the first click works
    page.locator(OFFERS).first.click()
    wait_step(page, steps)
    assert shown_w_sha(page) == answer_key(steps)
    step_once(page, steps + 1)
    assert not reconnected_shown(page)


def test_a_restart_with_the_page_open_reconnects_it_with_working_buttons(servers, context):
    first = servers("restart-1")
    url = f"http://127.0.0.1:{first.port}"
    page = context.new_page()
    open_train(page, url)
    for n in (1, 2, 3):
        step_once(page, n)
    section(page, "ko", "lookup")
    section(page, "ko", "train")  # the last run was the whole page's: Streamlit asks for no run when it reconnects
    wait_kept(page, 3)
    first.stop()
    page.locator(".st-key-keeper .keeper-banner").wait_for(state="visible", timeout=90_000)
    assert "3단계" in page.locator(".st-key-keeper .keeper-banner").inner_text()
    second = servers("restart-2", port=first.port)  # the same origin, a new process: no session of the page
    _after_the_session_is_gone(page, 3)
    assert "does not exist anymore" not in second.log_text()
    assert page.e2e_js_errors == []


def test_a_move_to_another_server_process_offers_the_work_there(app_url, servers, context):
    a, b = urllib.parse.urlsplit(app_url), servers("replica-b")
    relay = Relay(a.port)  # one origin in front of two server processes
    try:
        page = context.new_page()
        open_train(page, f"http://127.0.0.1:{relay.port}")
        for n in (1, 2, 3):
            step_once(page, n)
        wait_kept(page, 3)
        relay.move(b.port)  # a's connections drop; the page reconnects, to b
        _after_the_session_is_gone(page, 3)
        assert "does not exist anymore" not in b.log_text()
        assert healthy(app_url)  # a still runs: only the route moved
        assert page.e2e_js_errors == []
    finally:
        relay.close()
