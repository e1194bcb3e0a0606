"""The work budget through the running app (AppTest): a session's job stops when its session ends,
the preview falls back and says so, an export too large is refused with a message.

Streamlit ends a session's work by asking its script run to stop (a closed tab's websocket:
``SessionManager.disconnect_session`` → ``request_script_stop``). AppTest asks the same when a run
outlasts its timeout, which is how the end of a session is played here: a Run estimated at ~20 s
of CPU (E = 512, LSTM pooling, T = 256 on the English reviews) is clicked with a 2 s timeout.
"""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from components.i18n import problem_text, t
from core import exports, limits
from server.budget import BUDGET
from core.explorer import PREVIEW_STEPS, preview_steps
from core.cost import recipe_step_cost
from tests.apptest_helpers import APP

EXPENSIVE = {"section": "train", "lang": "en", "preset": "reviews_en", "embedding_dim": "512", "pooling": "lstm",
             "pad_mode": "fixed", "fixed_len": "256"}
WAIT_S = 25.0  # bound of the wait for a stopped job to end (one LSTM step at E=512 on a busy machine)


def open_at(params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(params)
    return at.run()


def texts(at: AppTest) -> str:
    return "\n".join(str(el.value) for kind in ("caption", "markdown", "warning", "info", "error")
                     for el in getattr(at, kind))


def test_a_sessions_run_is_cancelled_when_its_session_ends():
    at = open_at(EXPENSIVE)
    ex = at.session_state["_ws"]
    per_step = recipe_step_cost(ex.recipe).seconds
    n = int(limits.MAX_RUN_SECONDS // per_step)  # the longest Run admitted: ~60 s of CPU, twice WAIT_S
    assert n * per_step > 2 * WAIT_S
    at.number_input(key="n_steps").set_value(n)
    with pytest.raises(RuntimeError, match="timed out"):  # AppTest then asks the run to stop
        at.button(key="run_steps").click().run(timeout=2)
    deadline = time.monotonic() + WAIT_S
    while BUDGET.in_flight()["jobs"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert BUDGET.in_flight()["jobs"] == [], "the Run's job is still running after its session ended"
    assert ex.lab.steps < n  # stopped part-way, between two steps
    assert ex.lab.steps in ex.lab.snapshots  # and the lab kept the step it reached


def test_the_preview_falls_back_and_the_page_says_so():
    at = open_at(EXPENSIVE)
    ex = at.session_state["_ws"]
    assert preview_steps(ex.recipe) == 0  # not even PREVIEW_MIN_STEPS fit in a page open's budget
    assert t("en", "proj.cut.costly") in texts(at)
    short = open_at({**EXPENSIVE, "fixed_len": "64"})
    n = preview_steps(short.session_state["_ws"].recipe)
    assert 0 < n < PREVIEW_STEPS
    assert t("en", "proj.cut.short", steps=n, full=PREVIEW_STEPS) in texts(short)


def test_an_export_over_the_size_limit_is_refused_with_a_message(monkeypatch):
    at = open_at({"section": "share", "lang": "ko", "preset": "chapter"})
    ex = at.session_state["_ws"]
    v, e = ex.lab.weight.shape
    size = exports.size_bound("w_csv", v, e, exports.token_bytes(ex.vocab.tokens))
    monkeypatch.setattr(limits, "MAX_EXPORT_BYTES", size - 1)
    at.run()
    problem = exports.export_problem("w_csv", v, e, exports.token_bytes(ex.vocab.tokens))
    assert problem is not None and problem.params["max_mb"] == (size - 1) // 10**6
    assert problem_text("ko", problem) in [w.value for w in at.warning]
    buttons = {el.proto.id.rsplit("-", 1)[-1]: el.proto for el in at.get("download_button")}
    assert buttons["export_w_csv"].disabled  # refused before anyone clicks
    assert not buttons["export_projector_metadata"].disabled  # the others are still offered
