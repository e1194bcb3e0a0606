"""Large vocabularies: the table shows a window of rows, never all of them, and edits in it still count.

The thresholds are lowered here (monkeypatched; AppTest runs the script in this process) so the
40-review preset (V=37) exercises the windowed table; one test loads the real 100k-token preset.
"""

from __future__ import annotations

import numpy as np
import pytest

from components import inputs
from tests.apptest_helpers import errors, id_matrix, stage, start


def table(at):
    (frame,) = [d.value for d in at.dataframe if list(d.value.columns) == ["token", "id", "role"]]
    return frame


@pytest.fixture
def at(monkeypatch):
    monkeypatch.setattr(inputs, "EDITOR_MAX_ROWS", 20)
    monkeypatch.setattr(inputs, "EDITOR_WINDOW", 10)
    at = start("en")
    at.session_state["editors"] = True  # the inputs box open: its grid is drawn
    at.session_state["preset"] = "reviews_ko"
    return at.button(key="load_preset").click().run()


def test_the_table_shows_a_window_that_moves_by_row_and_by_token(at):
    assert len(table(at)) == 10 and table(at).index.tolist() == list(range(1, 11))
    at.number_input(key="vocab_start").set_value(11).run()
    assert table(at).index.tolist() == list(range(11, 21)) and table(at)["id"].tolist() == [str(i) for i in range(10, 20)]
    vocab = at.session_state["_ws"].vocab
    at.text_input(key="vocab_find").input(vocab.tokens[20]).run()
    assert table(at)["token"].iloc[0] == vocab.tokens[20] and at.number_input(key="vocab_start").value == 21
    at.text_input(key="vocab_find").input(vocab.tokens[33]).run()  # near the end: the window stops at the last row
    assert at.number_input(key="vocab_start").value == 28 and table(at)["token"].iloc[6] == vocab.tokens[33]
    assert not at.exception and not errors(at)


def test_an_edit_in_the_window_changes_that_row_of_the_vocabulary(at):
    ws = at.session_state["_ws"]
    before = ws.vocab
    at.number_input(key="vocab_start").set_value(3).run()
    word = before.tokens[2]  # row 3, the window's first row
    assert word in " ".join(" ".join(s) for s in ws.recipe.sentences)  # a word the sentences use
    at.session_state["vocab"] = {"edited_rows": {"0": {"token": "새말"}}, "added_rows": [], "deleted_rows": []}
    at.run()
    ws = at.session_state["_ws"]
    assert ws.vocab.tokens == before.tokens[:2] + ("새말",) + before.tokens[3:]
    assert not any(at.session_state["vocab"].values())  # folded into the table: nothing pending
    assert table(at)["token"].iloc[0] == "새말"
    ids = id_matrix(at)
    assert 2 not in {i for row in ids for i in row}  # nothing looks the renamed row up now…
    expected = [[ws.vocab.index.get(tok, ws.vocab.unk_id) for tok in s] for s in ws.recipe.sentences]
    assert [row[:len(e)] for row, e in zip(ids, expected)] == expected  # …its word became <UNK>


def test_a_bad_edit_in_the_window_names_the_whole_tables_row_and_keeps_the_window(at):
    ws = at.session_state["_ws"]
    before = ws.vocab
    at.number_input(key="vocab_start").set_value(11).run()
    edit = {"edited_rows": {"3": {"token": before.tokens[2]}}, "added_rows": [], "deleted_rows": []}
    at.session_state["vocab"] = edit
    at.run()
    (message,) = errors(at)
    assert "Row 14" in message and "row 3" in message  # the whole table's row numbers
    assert at.session_state["_ws"].vocab is before  # the last valid vocabulary keeps driving the page
    at.run()
    assert at.number_input(key="vocab_start").disabled and at.session_state["vocab"]["edited_rows"] == edit["edited_rows"]
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": [], "deleted_rows": []}  # undo
    at.run()
    at.run()
    assert not errors(at) and not at.number_input(key="vocab_start").disabled


def test_the_100k_token_preset_sends_a_window_not_the_whole_table():
    at = start("en")
    at.session_state["editors"] = True
    at.session_state["preset"] = "large"
    at.button(key="load_preset").click().run()
    assert at.session_state["_ws"].vocab.size == 100_000
    frame = table(at)
    assert len(frame) == inputs.EDITOR_WINDOW == 200 and frame["id"].tolist() == [str(i) for i in range(200)]
    assert not at.exception


def test_the_100k_token_preset_trains_and_its_scatter_draws_every_looked_up_row():
    at = start("en")
    at.session_state["preset"] = "large"
    at.button(key="load_preset").click().run()
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    assert not at.exception and not errors(at) and at.session_state["_ws"].lab.steps == 1
    lab = at.session_state["_ws"].lab
    used = set(np.flatnonzero(lab.batch.id_counts(lab.recipe.vocab.size).numpy() > 0).tolist())
    scatter = stage(at)["scatter"]
    assert scatter["step"] == 1
    drawn = set(scatter["ids"])
    assert used <= drawn and len(drawn) < 100_000  # every looked-up row; the others thinned
    special = {lab.recipe.vocab.pad_id, lab.recipe.vocab.unk_id}
    plain = 100_000 - len(used | special)
    assert any(f"{plain:,} rows never looked up" in c.value for c in at.caption)  # and the page says so


@pytest.mark.parametrize("start", [None, -5, 10**30, 2.5])  # AppTest itself refuses a str here
def test_a_scripted_window_start_out_of_range_is_brought_into_range(at, start):
    at.session_state["vocab_start"] = start
    at.run()
    assert not at.exception and 1 <= at.number_input(key="vocab_start").value <= 28 and len(table(at)) == 10


def test_a_folded_box_draws_no_grid_until_it_opens_or_holds_an_edit():
    """The grid is most of what a browser does to open the page: a folded box that holds no edit
    leaves it out, and opening the box draws it from the vocabulary (nothing typed was in it)."""
    def grids(at):
        return [d for d in at.dataframe if list(d.value.columns) == ["token", "id", "role"]]

    at = start("en")
    assert grids(at) == [] and at.session_state["_ws"].vocab.size == 6
    at.session_state["vocab"] = {"edited_rows": {"5": {"token": "fun"}}, "added_rows": [], "deleted_rows": []}
    at.run()  # an edit in the folded box (a script's): drawn, and applied
    assert len(grids(at)) == 1 and at.session_state["_ws"].vocab.tokens[5] == "fun"
    at.session_state["vocab"] = {"edited_rows": {"5": {"id": "2.5"}}, "added_rows": [], "deleted_rows": []}
    at.run()  # a wrong edit stays drawn, and the last valid vocabulary drives the page
    assert len(grids(at)) == 1 and at.session_state["vocab"]["edited_rows"] and errors(at)
    assert at.session_state["_ws"].vocab.tokens[5] == "fun"
    opened = start("en")
    opened.session_state["editors"] = True
    opened.run()
    (grid,) = grids(opened)
    assert grid.value["token"].tolist() == list(opened.session_state["_ws"].vocab.tokens) and not opened.exception
