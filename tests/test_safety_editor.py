"""The vocabulary editor's slow path (issue 17): a pending edit with too many added rows is refused
before Streamlit applies it, with a message, and the vocabulary stays as it was.

The time it takes is measured in bench/bench_editor_bound.py (300,000 rows), not asserted here.
"""

from __future__ import annotations

import pytest

from components import inputs
from components.i18n import t
from session import editor
from tests.apptest_helpers import errors, start


def rows(n: int) -> list[dict]:
    return [{"token": f"t{i}", "id": 6 + i, "role": "normal"} for i in range(n)]


@pytest.fixture
def at():
    return start("en").run()


def test_an_edit_adding_more_rows_than_the_table_takes_is_refused_and_dropped(at):
    before = at.session_state["_ws"].vocab
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": rows(editor.MAX_ADDED_ROWS + 1), "deleted_rows": []}
    at.run()
    assert not at.exception
    shown = errors(at)
    assert any(str(editor.MAX_ADDED_ROWS + 1) in e and str(editor.MAX_ADDED_ROWS) in e for e in shown), shown
    assert at.session_state["_ws"].vocab == before  # nothing of the edit was applied
    pending = at.session_state["vocab"]
    assert not pending["added_rows"]  # dropped from the session: the next rerun does not pay for it again
    at.run()
    assert at.session_state["_ws"].vocab == before and not at.exception


def test_three_hundred_thousand_added_rows_are_refused_without_being_applied(at, monkeypatch):
    applied = []
    import streamlit.elements.widgets.data_editor as de

    real = de._apply_row_additions
    monkeypatch.setattr(de, "_apply_row_additions", lambda df, added, schema: (applied.append(len(added)), real(df, added, schema)))
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": rows(300_000), "deleted_rows": []}
    at.run(timeout=120)
    assert not at.exception and errors(at)
    assert sum(applied) == 0  # Streamlit never saw the rows


def test_an_edit_within_the_bound_is_still_applied(at):
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": [{"token": "새말", "id": 6, "role": "normal"}],
                                 "deleted_rows": []}
    at.run()
    assert at.session_state["_ws"].vocab.tokens[-1] == "새말" and not errors(at)


@pytest.mark.parametrize("pending,shown,code", [
    ({"added_rows": rows(501)}, 6, "vocab_edit_too_many_rows"),
    ({"added_rows": rows(500)}, 6, None),
    ({"edited_rows": {str(i): {"token": "x"} for i in range(50)}}, 6, "vocab_edit_invalid"),
    ({"deleted_rows": list(range(7))}, 6, "vocab_edit_invalid"),
    ({"deleted_rows": list(range(6))}, 6, None),
    ("not an edit", 6, "vocab_edit_invalid"),
    ({"added_rows": 5}, 6, "vocab_edit_invalid"),
])
def test_edit_sizes_are_judged_from_their_lengths_alone(pending, shown, code):
    problem = editor.edit_size_problem(pending, shown)
    assert (problem.code if problem else None) == code


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_message_says_what_was_refused_and_how_to_load_many_tokens(lang):
    text = t(lang, "err.vocab_edit_too_many_rows", n=300000, max=500)
    assert "300000" in text and "500" in text and "{" not in text


def window_page():
    import pandas as pd
    import streamlit as st

    import page
    import session

    base = pd.DataFrame({"token": [f"t{i}" for i in range(30)], "id": [str(i) for i in range(30)], "role": ["normal"] * 30})  # as session.vocab_frame
    edit = page.vocab_table("en", session.EditorBase(base, None, drawn_start=st.session_state.get("drawn")), locked=False)
    st.session_state["drawn"] = edit.start
    st.session_state["shown_tokens"] = list(edit.whole(base)["token"])


def test_an_edit_arriving_with_a_window_move_is_applied_where_it_was_made(monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(inputs, "EDITOR_MAX_ROWS", 20)  # AppTest runs the page in this process
    monkeypatch.setattr(inputs, "EDITOR_WINDOW", 10)

    at = AppTest.from_function(window_page, default_timeout=30).run()
    assert at.session_state["drawn"] == 0
    at.number_input(key="vocab_start").set_value(11)  # the same message moves the window…
    at.session_state["vocab"] = {"edited_rows": {"0": {"token": "X"}}, "added_rows": [], "deleted_rows": []}  # …and edits row 1
    at.run()
    assert not at.exception
    assert at.session_state["drawn"] == 0  # the window stayed where the edit was made
    assert at.session_state["shown_tokens"][:2] == ["X", "t1"] and at.session_state["shown_tokens"][10] == "t10"
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": [], "deleted_rows": []}  # folded in: nothing pending
    at.number_input(key="vocab_start").set_value(11).run()
    assert at.session_state["drawn"] == 10  # with nothing pending, the window moves
