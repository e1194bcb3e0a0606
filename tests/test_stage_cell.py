"""A cell of the stage's id matrix, selected (issue 37, #3): the output follows that cell's sentence,
for every sentence, and torch says what its rows are."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from support.labs import chapter_w
from tests.apptest_helpers import stage, start

CHAPTER_IDS = [[2, 0, 3], [2, 4, 1]]


def torch_out(b: int) -> np.ndarray:
    emb = torch.nn.Embedding.from_pretrained(torch.from_numpy(chapter_w()), padding_idx=1)
    return emb(torch.tensor(CHAPTER_IDS))[b].detach().numpy()


@pytest.mark.parametrize("b,t", [(1, 1), (1, 0), (1, 2), (0, 2)])
def test_a_cell_picked_on_the_stage_shows_its_sentences_output(b, t):
    at = start("ko")
    i = CHAPTER_IDS[b][t]
    at.session_state["stage"] = {"cell": {"id": i, "b": b, "t": t, "n": 1}}
    at.run()
    assert not at.exception
    data = stage(at)
    assert data["selected"] == i and data["out"]["b"] == b
    np.testing.assert_array_equal(np.asarray(data["out"]["values"], dtype=np.float32), torch_out(b))
    assert at.session_state["out_sentence"] == b  # the picker below says the same sentence


def test_the_same_cell_again_brings_its_sentence_back_after_the_picker_moved():
    at = start("en")
    at.session_state["stage"] = {"cell": {"id": 4, "b": 1, "t": 1, "n": 1}}
    at.run()
    at.selectbox(key="out_sentence").set_value(0).run()
    assert stage(at)["out"]["b"] == 0
    at.session_state["stage"] = {"cell": {"id": 4, "b": 1, "t": 1, "n": 2}}  # a second click: a new value
    at.run()
    assert stage(at)["out"]["b"] == 1


@pytest.mark.parametrize("cell", [{"id": 3, "b": 1, "t": 1, "n": 1}, {"id": 4, "b": 9, "t": 1, "n": 1},
                                  {"id": 4, "b": "1", "t": 1, "n": 1}, {"id": 4, "b": True, "t": 1, "n": 1}, "b=1"])
def test_a_cell_that_does_not_hold_its_id_changes_nothing(cell):
    at = start("en")
    at.session_state["stage"] = {"cell": cell}
    at.run()
    assert not at.exception
    assert stage(at)["out"]["b"] == 0 and stage(at)["selected"] is None


@pytest.mark.parametrize("section, token", [("lookup", 3), ("train", 4)])
def test_a_token_the_stage_sends_before_the_run_is_followed_and_a_later_pick_elsewhere_stands(section, token):
    """docs/scripting.md's `stage` row: a script sets the stage's state before run(), and AppTest fires
    no component callback, so the views apply it before they are drawn, once per new value."""
    at = start("en")
    at.button_group(key="section").set_value(section).run()
    at.session_state["stage"] = {"selected": token}
    at.run()
    assert not at.exception
    assert at.session_state["_ws"].selected_token == token and stage(at)["selected"] == token
    if section == "train":
        assert at.selectbox(key="selected_token").value == token  # the picker shows it
        at.selectbox(key="selected_token").set_value(2).run()  # picked elsewhere: the stage's last click stays put
    else:
        at.session_state["stage"] = {"selected": token, "cell": {"id": 4, "b": 1, "t": 1, "n": 1}}
        at.run()
        assert stage(at)["selected"] == 4  # a cell clicked since: its id, not the stale token
    at.run()
    assert at.session_state["_ws"].selected_token != token
