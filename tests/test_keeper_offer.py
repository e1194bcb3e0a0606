"""The keeper's component and offer through AppTest (tests/e2e/keeper_app.py: the real session, a Step
button, the keeper as page.py mounts it outside every fragment).

What the browser would report is set as the component's state before a run ({"report": …}); what
the browser is handed is read from the component's data. Restored W is compared with a fresh torch
computation (the default example stepped as many times) by the sha256 the app prints.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from assets import presets
from components.i18n import t
from components.safe_text import md_escape
from core.explorer import Explorer
from core.saved import MAX_ENTRIES, MAX_SAVED_CHARS, read_found, restore_found, saved_at_text, summary
from session import Keys
from tests.apptest_helpers import component_data

APP = str(Path(__file__).resolve().parent / "e2e" / "keeper_app.py")


def keeper_data(at: AppTest) -> dict:
    (el,) = [e for e in at.main if type(e).__name__ == "UnknownElement" and e.type == "bidi_component"]
    assert el.proto.component_name == "work_keeper"
    return component_data(el)


def shown(at: AppTest) -> tuple[int, str]:
    steps, w = at.code[0].value.split()
    return int(steps.removeprefix("steps=")), w.removeprefix("w=")


def restore_buttons(at: AppTest) -> list:
    return [b for b in at.button if b.key.startswith(Keys.KEEPER_RESTORE)]


def answer_key(steps: int) -> str:
    ex = Explorer.from_preset(presets.load(presets.DEFAULT))
    if steps:
        ex.run(steps)
    return hashlib.sha256(ex.lab.weight.detach().contiguous().numpy().tobytes()).hexdigest()


def new_app() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    assert not app.exception
    return app


@pytest.fixture
def at():
    return new_app()


def trained(steps: int) -> dict:
    """The entry another page (the one before a reload, or another tab) kept after ``steps`` steps."""
    other = new_app()
    for _ in range(steps):
        other.button(key="keeper_step").click().run()
    return keeper_data(other)["saved"]


def report(n: int, *entries: tuple[str, bool, dict], had: str | None = None) -> dict:
    return {"report": {"n": n, "had": had, "entries": [{"slot": s, "mine": m, **e} for s, m, e in entries]}}


def test_the_browser_is_handed_the_current_state_under_this_sessions_token(at):
    first = keeper_data(at)
    token = first["session"]
    assert first["pristine"] is True and first["saved"]["steps"] == 0  # what the page opened with: nothing to keep
    for _ in range(3):
        at.button(key="keeper_step").click().run()
    data = keeper_data(at)
    assert data["session"] == token and data["pristine"] is False and data["role"] == "watch+write"
    assert data["saved"]["steps"] == 3 == shown(at)[0]
    lab = restore_found(read_found(data["saved"])).lab
    w_sha = hashlib.sha256(lab.weight.detach().contiguous().numpy().tobytes()).hexdigest()
    assert w_sha == shown(at)[1] == answer_key(3)
    assert (data["max_chars"], data["max_entries"]) == (MAX_SAVED_CHARS, MAX_ENTRIES)
    assert data["text"]["kept"] == t("ko", "keeper.offline_kept", steps="{steps}")
    assert new_app().session_state["_own"].keeper_token != token  # another page, another slot


def test_no_offer_without_a_report(at):
    assert not restore_buttons(at) and not at.warning


def test_a_kept_entry_is_offered_with_whose_it_is_and_restored_bitwise(at):
    entry = trained(4)
    at.session_state["keeper"] = report(1, ("slotA", True, entry))  # what the browser reports after a reload
    at.run()
    assert not at.exception
    (offer,) = restore_buttons(at)
    assert offer.key == Keys.KEEPER_RESTORE + "slotA"
    assert offer.label == t("ko", "keeper.offer", whose=t("ko", "keeper.this_tab"), steps=4,
                            at=saved_at_text(entry["at"], None))
    assert md_escape(summary(read_found(entry))) in [c.value for c in at.caption]  # its first sentence, as text
    assert not at.warning  # a reload is no reconnect
    assert shown(at)[0] == 0
    offer.click().run()
    assert not at.exception
    assert shown(at) == (4, answer_key(4))  # same steps, W bitwise torch's
    assert at.info[0].value == t("ko", "keeper.restored", steps=4)
    assert not restore_buttons(at) and not [b for b in at.button if b.key == Keys.KEEPER_FRESH]
    data = keeper_data(at)
    assert data["saved"]["s"] == entry["s"] and data["pristine"] is False  # kept again, in this session's slot


def test_two_tabs_are_offered_apart_newest_first_and_start_fresh_changes_nothing(at):
    mine, theirs = trained(2), trained(5)
    theirs["at"] = mine["at"] + 60_000
    at.session_state["keeper"] = report(1, ("mine1", True, mine), ("theirs1", False, theirs))
    at.run()
    offers = restore_buttons(at)
    assert [b.key for b in offers] == [Keys.KEEPER_RESTORE + "theirs1", Keys.KEEPER_RESTORE + "mine1"]
    assert t("ko", "keeper.other_tab") in offers[0].label and "5단계" in offers[0].label
    assert t("ko", "keeper.this_tab") in offers[1].label and "2단계" in offers[1].label
    at.button(key=Keys.KEEPER_FRESH).click().run()
    assert not at.exception and not restore_buttons(at) and shown(at) == (0, answer_key(0))
    at.button(key="keeper_step").click().run()  # answered: a Step draws no offer again
    assert not restore_buttons(at)
    at.session_state["keeper"] = report(2, ("mine1", True, mine))  # a newer report (after a reconnect) asks again
    at.run()
    assert len(restore_buttons(at)) == 1


def test_a_page_reconnected_to_a_new_session_is_told_so(at):
    entry = trained(3)
    at.session_state["keeper"] = report(1, ("old", True, entry), had="old")
    at.run()
    assert not at.exception
    assert [w.value for w in at.warning] == [t("ko", "keeper.reconnected")]
    assert len(restore_buttons(at)) == 1


def test_a_reconnect_with_nothing_kept_is_told_so_and_answered_with_ok(at):
    at.session_state["keeper"] = report(1, had="gone")
    at.run()
    assert [w.value for w in at.warning] == [t("ko", "keeper.reconnected")]
    ok = at.button(key=Keys.KEEPER_FRESH)
    assert ok.label == t("ko", "keeper.ok")
    ok.click().run()
    assert not at.warning


def test_a_short_loss_of_the_same_session_says_nothing(at):
    at.button(key="keeper_step").click().run()
    token = keeper_data(at)["session"]
    at.session_state["keeper"] = report(1, (token, True, keeper_data(at)["saved"]), had=token)
    at.run()
    assert not at.warning and not restore_buttons(at)  # the page's own state: nothing to offer


def test_an_unreadable_entry_is_named_and_the_others_are_still_offered(at):
    at.button(key="keeper_step").click().run()
    before = shown(at)
    good = trained(2)
    bad = {"s": "eNo9" + "A" * 40, "steps": 500, "at": 0}
    at.session_state["keeper"] = report(1, ("bad", False, bad), ("good", False, good))
    at.run()
    assert not at.exception
    assert [b.key for b in restore_buttons(at)] == [Keys.KEEPER_RESTORE + "good"]
    assert any(c.value.startswith(t("ko", "keeper.unreadable", why="")[:20]) for c in at.caption)
    assert shown(at) == before


@pytest.mark.parametrize("state", [
    None, "x", 7, {"report": None}, {"report": "x"}, {"report": [1]}, {"report": {"n": "1"}},
    {"report": {"n": 1, "entries": [{"slot": "a", "mine": True, "s": "A" * 9000}]}},
    {"report": {"n": 1, "had": "<img src=x>", "entries": []}},
    {"report": {"n": 1, "entries": [{"slot": "a", "mine": True, "s": "eNo9", "steps": [[[[1]]]], "at": {"x": 1}}]}},
])
def test_garbage_reported_by_a_client_never_crashes_the_page(at, state):
    at.session_state["keeper"] = state
    at.run()
    assert not at.exception
    assert not restore_buttons(at) and not at.warning
    assert shown(at)[0] == 0


def test_on_the_apps_training_view_the_page_watches_and_the_stages_fragment_writes():
    """app.py on the training view: the watcher (outside every fragment) only reports, the stage's
    fragment writes; a report draws the offer on that view."""
    page = AppTest.from_file(str(Path(APP).parents[2] / "app.py"), default_timeout=60)
    page.session_state["section"] = "train"
    page.run()
    keepers = {component_data(e)["role"]: component_data(e) for e in page.get("bidi_component")
               if e.proto.component_name == "work_keeper"}
    assert sorted(keepers) == ["watch", "write"]
    assert keepers["watch"]["saved"] is None and keepers["watch"]["keepable"] is True
    assert keepers["write"]["saved"]["steps"] == 0 and keepers["write"]["pristine"] is True
    assert keepers["watch"]["session"] == keepers["write"]["session"]
    page.session_state["keeper"] = report(1, ("x1", False, trained(2)))
    page.run()
    assert not page.exception
    (offer,) = restore_buttons(page)
    assert t("ko", "keeper.other_tab") in offer.label and "2단계" in offer.label
