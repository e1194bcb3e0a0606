"""Undoing a restart: an edit that restarted training can be taken back, steps and all.

torch is the answer key: after the undo, W and the losses are those of a fresh torch loop of the
recipe from before the edit (support.torch_reference.PlainLoop), and training goes on from there as
that loop does; the page's widgets show the earlier inputs again, in both languages.
"""

from __future__ import annotations

import numpy as np
import pytest

from assets import presets
from core import undo
from core.explorer import Explorer
from core.vocab import Vocab
from support.torch_reference import PlainLoop
from tests.apptest_helpers import shown, start

EDITED = "재미있다 영화 | 긍정\n나쁘다 | 부정\n팝콘 팝콘 팝콘 좋다 | 긍정"


def fresh(recipe, steps: int) -> PlainLoop:
    return PlainLoop(recipe).run(steps)


def test_an_undone_restart_is_bitwise_the_training_it_replaced_and_trains_on_as_torch_does():
    ex = Explorer.from_preset(presets.load("chapter"))
    recipe, text = ex.recipe, ex.text
    assert ex.run(7) == []
    ex.select(3)
    assert ex.apply_text(EDITED) == []
    assert ex.lab.steps == 0 and ex.before is not None and ex.before.steps == 7
    assert not [n for n in ex.notices if n[0] == "notice.restarted"]  # the page offers the undo instead

    assert ex.undo_restart() is True
    loop = fresh(recipe, 7)
    assert ex.recipe == recipe and ex.text == text and ex.selected_token == 3 and ex.before is None
    assert ex.lab.steps == 7
    assert ex.lab.weight.detach().numpy().tobytes() == loop.weight.tobytes()
    assert list(ex.lab.losses) == loop.losses
    assert ex.step() == []
    loop.run(1)
    assert ex.lab.weight.detach().numpy().tobytes() == loop.weight.tobytes()
    assert ex.undo_restart() is False  # one undo per restart


def test_an_edit_made_in_two_goes_still_undoes_to_the_trained_lab_and_a_new_training_replaces_it():
    ex = Explorer.from_preset(presets.load("chapter"))
    recipe = ex.recipe
    ex.run(5)
    assert ex.apply_text(EDITED) == []
    assert ex.apply_config({**ex.config_values(), "embedding_dim": 4}) == []  # the untrained lab restarts again
    assert ex.before is not None and ex.before.steps == 5 and ex.before.lab.recipe == recipe
    ex.run(2)  # the new inputs trained: a restart now replaces these two steps
    edited = ex.recipe
    assert ex.apply_config({**ex.config_values(), "seed": 1}) == []
    assert ex.before.steps == 2 and ex.before.lab.recipe == edited
    assert ex.undo_restart()
    assert ex.recipe == edited and ex.config.embedding_dim == 4
    np.testing.assert_array_equal(ex.lab.weight.detach().numpy(), fresh(edited, 2).weight)


def test_a_refused_edit_or_an_unchanged_one_keeps_no_undo_and_an_untrained_restart_has_none():
    ex = Explorer.from_preset(presets.load("chapter"))
    assert ex.apply_text(EDITED) == [] and ex.before is None  # nothing trained: nothing to bring back
    ex.run(3)
    assert ex.apply_text("영화 | ") != []
    assert ex.before is None and ex.lab.steps == 3  # refused: the lab is as it was
    assert ex.apply_text(ex.text) == [] and ex.before is None and ex.lab.steps == 3


def test_a_lab_above_the_kept_size_is_let_go_and_the_restart_is_said(monkeypatch):
    ex = Explorer.from_preset(presets.load("chapter"))
    ex.run(3)
    monkeypatch.setattr(undo, "KEPT_MAX_BYTES", ex.lab.held_bytes() - 1)
    assert ex.apply_vocab(Vocab.from_token_list("<UNK>\n<PAD>\n영화\n좋다")) == []
    assert ex.before is None and ex.undo_restart() is False
    assert ("notice.restarted", {}) in ex.notices


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_page_offers_undo_after_an_edit_and_shows_the_earlier_inputs_again(lang):
    at = start(lang)
    at.button_group(key="section").set_value("train").run()
    ex = at.session_state["_ws"]
    recipe, text = ex.recipe, at.text_area(key="sentences").value
    at.number_input(key="n_steps").set_value(6).run()
    at.button(key="run_steps").click().run()
    at.number_input(key="embedding_dim").set_value(5).run()
    at.text_area(key="sentences").set_value(EDITED).run()
    ex = at.session_state["_ws"]
    assert ex.lab.steps == 0 and ex.config.embedding_dim == 5
    offer = [shown(m.value) for m in at.info]
    assert any(("6단계" if lang == "ko" else "6 steps") in m for m in offer), offer
    at.button(key="undo_restart").click().run()

    ex = at.session_state["_ws"]
    loop = fresh(recipe, 6)
    assert ex.lab.steps == 6 and ex.lab.weight.detach().numpy().tobytes() == loop.weight.tobytes()
    assert at.text_area(key="sentences").value == text
    assert at.number_input(key="embedding_dim").value == recipe.config.embedding_dim
    assert not at.error and not [b for b in at.button if b.key == "undo_restart"]
    assert any(("6단계" if lang == "ko" else "6 steps") in shown(m.value) for m in at.info)
    at.button(key="step").click().run()  # the undone lab trains on as torch does
    assert at.session_state["_ws"].lab.weight.detach().numpy().tobytes() == loop.run(1).weight.tobytes()


def test_the_offer_leaves_as_soon_as_the_new_inputs_are_trained():
    """The offer is drawn above the views, before a Step's click is carried out (in the browser the
    Step is the training view's fragment run): that run then reruns the page, which no longer offers
    it, so an offer never stands beside a trained lab. The undo itself is kept until the next restart."""
    at = start()
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    at.text_area(key="sentences").set_value(EDITED).run()
    assert [b for b in at.button if b.key == "undo_restart"] and at.session_state["_own"].undo_offered
    at.button(key="step").click().run()
    ex = at.session_state["_ws"]
    assert ex.lab.steps == 1 and ex.before is not None and ex.before.steps == 1
    assert not [b for b in at.button if b.key == "undo_restart"] and not at.session_state["_own"].undo_offered
    at.button(key="reset").click().run()  # the new inputs back at step 0: a Reset, not a restart to undo
    assert at.session_state["_ws"].lab.steps == 0 and not [b for b in at.button if b.key == "undo_restart"]


def test_undoing_a_vocabulary_edit_shows_the_earlier_table_and_it_stays():
    at = start("en")
    at.button_group(key="section").set_value("train").run()
    recipe = at.session_state["_ws"].recipe
    at.button(key="step").click().run()
    at.button(key="step").click().run()
    at.session_state["editors"] = True  # the inputs box open, as it is right after an edit
    at.session_state["vocab"] = {"edited_rows": {"5": {"token": "재밌다"}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert "재밌다" in at.session_state["_ws"].vocab.tokens and at.session_state["_ws"].lab.steps == 0
    at.button(key="undo_restart").click().run()
    ex = at.session_state["_ws"]
    assert ex.recipe == recipe and ex.lab.steps == 2
    assert not (at.session_state["vocab"] if "vocab" in at.session_state else {}).get("edited_rows")
    at.run()  # a later run of the page applies nothing: the edit is gone with the undo
    ex = at.session_state["_ws"]
    assert ex.recipe == recipe and ex.lab.steps == 2
