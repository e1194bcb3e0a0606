"""The first-visit guide under AppTest (components/guide): its reported step shows that step's view,
garbage from the browser is ignored, the sidebar's button opens it again, the teacher's switches turn
it off, and its texts name this page's own example. The browser side: tests/e2e/test_guide.py."""

from __future__ import annotations

import json

import pytest

from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import APP, start


def guide_data(at) -> dict:
    mounts = [json.loads(el.proto.json) for el in at.get("bidi_component") if '"storage"' in el.proto.json]
    assert len(mounts) == 1
    return mounts[0]


def test_the_guide_moves_the_page_to_the_view_of_its_step_and_back():
    at = start("ko")
    assert at.button_group(key="section").value == "lookup"
    at.session_state["guide"] = {"step": 2}  # the guide reports its step as the learner walks it
    at.run()
    assert at.button_group(key="section").value == "lookup"
    at.session_state["guide"] = {"step": 3}  # the learner pressed Next to "Step"
    at.run()
    assert at.button_group(key="section").value == "train"
    at.button_group(key="section").set_value("lessons").run()  # the learner may still go elsewhere
    assert at.button_group(key="section").value == "lessons"
    at.session_state["guide"] = {"step": 1}
    at.run()
    assert at.button_group(key="section").value == "lookup"


def test_a_new_session_keeps_the_view_its_page_asked_for_whatever_step_the_guide_is_on():
    """A page that reconnected to a new session (a restart, another replica) sends the guide's step
    with its first run: that is no move, so the view stays the one the page was on."""
    at = start("ko")
    at.session_state["guide"] = {"step": 0}
    at.button_group(key="section").set_value("train").run()
    assert at.button_group(key="section").value == "train"


@pytest.mark.parametrize("state", [{"step": 9}, {"step": True}, {"step": "3"}, {"step": -1}, "x", None])
def test_garbage_from_the_browser_changes_nothing(state):
    at = start("ko")
    at.session_state["guide"] = state
    at.run()
    assert not at.exception and at.button_group(key="section").value == "lookup"


def test_the_steps_name_this_pages_example_and_the_button_opens_the_guide_again():
    at = start("en")
    ex = at.session_state["_ws"]
    data = guide_data(at)
    assert data["enabled"] is True and data["reopen"] == 0 and data["view"] == "lookup"
    ids = ex.lab.batch.ids
    first = int(ids[0, 0])
    steps = data["steps"]
    assert [s["host"] for s in steps] == ["stage", "stage", "stage", "step", "stage"]
    assert steps[1]["inner"] == f'.wpanel .wrow[data-token="{first}"]'
    assert f"({ids.shape[0]}, {ids.shape[1]})" in steps[0]["text"] and str(ids[0].tolist()) in steps[0]["text"]
    assert f"'{ex.vocab.tokens[first]}', {first}," in steps[1]["text"]
    at.session_state["guide"] = {"step": 4}
    at.run()
    at.button(key="guide_open").click().run()
    assert guide_data(at)["reopen"] == 1
    assert at.button_group(key="section").value == "lookup"  # its first step's view


def test_a_teacher_turns_it_off_for_the_server_or_in_the_address(monkeypatch):
    monkeypatch.setenv("EXPLORER_GUIDE", "off")
    assert guide_data(start("ko"))["enabled"] is False
    monkeypatch.delenv("EXPLORER_GUIDE")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["guide"] = "off"
    at.run()
    assert guide_data(at)["enabled"] is False
