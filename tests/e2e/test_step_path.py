"""A Step's way in the browser: how many script runs one click costs, and of which kind.

Counted from the websocket messages Chromium exchanges with the server, as Streamlit sends them:
the browser's ``rerun_script`` requests (BackMsg) and the server's ``script_finished`` messages
(ForwardMsg), whose status says whether the run was the whole page's or a fragment's. AppTest runs
the whole script for every click and never takes the fragment's way, so only a browser can count it.
A click is one script run, a fragment's: the stage's part draws Step into the bar's columns, so the
click reruns that part, and the same run carries it out (sections/training_section.py).
"""

from __future__ import annotations

import time

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from .helpers import button, open_app, unavailable_reason, wait_idle, wait_step

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

FRAGMENT_DONE = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


class Runs:
    """Every script run the server finished for this page (its ``script_finished`` status, in order),
    and every rerun the page asked for (whether it named a fragment)."""

    def __init__(self, page):
        self.page, self.started, self.finished, self.asked = page, 0, [], []
        page.on("websocket", self._watch)

    def _watch(self, ws) -> None:
        ws.on("framereceived", self._received)
        ws.on("framesent", self._sent)

    def _received(self, payload) -> None:
        if not isinstance(payload, bytes):
            return
        msg = ForwardMsg.FromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "new_session":  # a run started
            self.started += 1
        elif kind == "script_finished":
            self.finished.append(msg.script_finished)

    def _sent(self, payload) -> None:
        if isinstance(payload, bytes):
            msg = BackMsg.FromString(payload)
            if msg.WhichOneof("type") == "rerun_script":
                self.asked.append(msg.rerun_script.fragment_id)

    def settled(self, timeout_s: float = 60) -> None:
        """Wait until every run that started has finished and the page is idle (a condition, bounded)."""
        deadline = time.monotonic() + timeout_s
        while self.started > len(self.finished):
            assert time.monotonic() < deadline, f"{self.started} runs started, {len(self.finished)} finished"
            self.page.wait_for_timeout(50)  # lets Playwright deliver the frames it holds
        wait_idle(self.page)


def step_runs(new_page, app_url, steps: int = 3) -> list[list[int]]:
    """Open the training view, click Step ``steps`` times; each click's finished runs (their status).
    Each click sends exactly one request, naming a fragment."""
    page = new_page("ko-KR", load=False)
    runs = Runs(page)
    open_app(page, f"{app_url}/?section=train&lang=ko")
    wait_step(page, 0)
    runs.settled()
    per_click = []
    for n in range(1, steps + 1):
        done, asked = len(runs.finished), len(runs.asked)
        button(page, "step").click()
        wait_step(page, n)
        runs.settled()
        assert len(runs.asked) - asked == 1 and runs.asked[-1], f"Step {n}: the page asked for {runs.asked[asked:]}"
        per_click.append(runs.finished[done:])
    return per_click


def test_each_step_click_is_one_script_run(new_page, app_url):
    """One click, one script run, a fragment's: no run ended early for another, none of the page."""
    for n, finished in enumerate(step_runs(new_page, app_url), start=1):
        assert finished == [FRAGMENT_DONE], f"Step {n}: runs finished {finished} (want one fragment run)"
