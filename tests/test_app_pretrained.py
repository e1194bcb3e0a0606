"""Pretrained vectors through the running app (AppTest): `pretrained_file`, `pretrained_apply`,
`pretrained_freeze`, `pretrained_remove`. The answer key is numpy's parse of the file's text and a
fresh nn.Embedding; the app's W is read from its stage and its lab."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from components.i18n import t
from tests.apptest_helpers import errors, shown, stage_w, start
from tests.apptest_helpers import shown as as_text

TEXTS = {"영화": ["0.5", "-1.25", "2", "0.125", "1e-3"], "<PAD>": ["1", "2", "3", "4", "5"],
         "나쁘다": ["-0.30000001192092896", "0.7", "1e-2", "3", "-0"]}
IDS = {"영화": 2, "<PAD>": 1, "나쁘다": 4}  # the chapter's vocabulary
FILE = ("5 5\n" + "".join(f"{t} {' '.join(v)} \n" for t, v in TEXTS.items())
        + "없는말 9 9 9 9 9 \nfoo 1 1 1 1 1 \n").encode("utf-8")


def expected_w() -> np.ndarray:
    """The fresh table (torch.manual_seed(0), nn.Embedding(6, 5, padding_idx=1)) with the file's rows,
    each the float32 of numpy's float64 parse of its text."""
    torch.manual_seed(0)
    w = nn.Embedding(6, 5, padding_idx=1).weight.detach().numpy().copy()
    for token, texts in TEXTS.items():
        w[IDS[token]] = np.array(texts, dtype=np.float64).astype(np.float32)
    return w


def upload(at, files, freeze: bool | None = None):
    if freeze is not None:
        at.toggle(key="pretrained_freeze").set_value(freeze).run()
    at.file_uploader(key="pretrained_file").set_value(files).run()
    return at.button(key="pretrained_apply").click().run()


def w_bits(at) -> np.ndarray:
    return at.session_state["_ws"].lab.weight.detach().numpy().copy().view(np.int32)


def test_a_word2vec_file_gives_rows_bitwise_the_files_float32_values_and_says_how_many():
    at = upload(start("en"), ("vectors.vec", FILE, "text/plain"))
    assert not at.exception and not errors(at)
    lab = at.session_state["_ws"].lab
    np.testing.assert_array_equal(lab.weight.detach().numpy().view(np.int32), expected_w().view(np.int32))
    rows, shown = stage_w(at)  # the stage draws the same W
    np.testing.assert_array_equal(shown, expected_w()[rows])
    notices = " ".join(i.value for i in at.info)
    assert "Read 5 vectors" in notices and "3 take the file's vectors" in notices and "3 are not in the file" in notices
    assert "E changed from 3 to 5" in notices
    assert "3 tokens have no vector in the file: <UNK> · 좋다 · 재미있다." in as_text(notices)  # in id order
    assert at.number_input(key="embedding_dim").value == 5  # the sidebar follows the file
    assert any("3 rows of W come from the file, 3 rows start as in a fresh table" in c.value for c in at.caption)
    assert at.toggle(key="pretrained_freeze").value is True and lab.weight.requires_grad is False


def test_frozen_five_steps_leave_every_row_bitwise_and_the_loss_moves_unfrozen_the_rows_move():
    at = upload(start("ko"), ("vectors.vec", FILE, "text/plain"))
    at.button_group(key="section").set_value("train").run()
    before = w_bits(at)
    for _ in range(5):
        at.button(key="step").click().run()
    lab = at.session_state["_ws"].lab
    assert not at.exception and lab.steps == 5
    np.testing.assert_array_equal(w_bits(at), before)
    assert len(set(lab.losses)) == 5  # the head learns: the loss moves
    said = " ".join(c.value for c in at.caption)  # the page says so, not that the looked-up rows move
    assert t("ko", "watch.frozen") in said and t("ko", "proj.basis.frozen") in said
    at.toggle(key="pretrained_freeze").set_value(False).run()  # a new lab from step 0, same file rows
    lab = at.session_state["_ws"].lab
    assert lab.steps == 0 and lab.weight.requires_grad and at.session_state["_ws"].recipe.pretrained.freeze is False
    np.testing.assert_array_equal(w_bits(at), before)
    for _ in range(5):
        at.button(key="step").click().run()
    said = " ".join(c.value for c in at.caption)
    assert t("ko", "watch.frozen") not in said and t("ko", "proj.basis.frozen") not in said
    moved = (w_bits(at) != before).any(axis=1)
    assert moved[[0, 2, 3, 4]].all() and not moved[1]  # looked-up rows move; PAD keeps the file's vector
    np.testing.assert_array_equal(at.session_state["_ws"].lab.weight.detach().numpy()[1], [1, 2, 3, 4, 5])


@pytest.mark.parametrize("name, data", [
    ("nan.vec", "영화 0.1 nan 0.3\n".encode()),
    ("dim.vec", "영화 0.1 0.2 0.3\n좋다 1 2\n".encode()),
    ("wide.vec", ("영화 " + " ".join(["0"] * 1_000_000) + "\n").encode()),
    ("junk.vec", bytes(range(256)) * 64),  # binary junk under a name the uploader takes
], ids=["nan", "dimension", "million_columns", "binary"])
def test_a_hostile_file_is_refused_with_a_message_and_changes_nothing(name, data):
    at = start("ko")
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    ex = at.session_state["_ws"]
    lab, before = ex.lab, w_bits(at)
    at = upload(at, (name, data, "text/plain"))
    assert not at.exception
    box = at.get("error")
    assert any("줄" in e.value for e in box)  # names the line
    # Shown under the inputs box with the page's other input errors, not folded inside it (where
    # the inputs box's own scrolling would keep it out of view), saying nothing of the file was applied.
    assert not [e for x in at.expander for e in x.get("error")], [x.label for x in at.expander if x.get("error")]
    assert all(e.value.endswith(t("ko", "err.kept_file")) for e in box), [e.value for e in box]
    assert at.session_state["_ws"].lab is lab and lab.steps == 1
    np.testing.assert_array_equal(w_bits(at), before)
    assert at.number_input(key="embedding_dim").value == 3 and ex.recipe.pretrained is None
    assert at.text_area(key="sentences").value == "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정"


def test_an_exported_state_carries_the_rows_and_remove_goes_back_to_a_fresh_table():
    from core.state import export_state, parse_state, restore

    at = upload(start("en"), ("vectors.vec", FILE, "text/plain"), freeze=False)
    ex = at.session_state["_ws"]
    assert ex.recipe.pretrained.freeze is False
    restored = restore(parse_state(export_state(ex.recipe, ex.text, "en", ex.lab)))
    np.testing.assert_array_equal(restored.lab.weight.detach().numpy().view(np.int32), expected_w().view(np.int32))
    at.button(key="pretrained_remove").click().run()
    assert not at.exception and at.session_state["_ws"].recipe.pretrained is None
    torch.manual_seed(0)
    fresh = nn.Embedding(6, 5, padding_idx=1).weight.detach().numpy()
    np.testing.assert_array_equal(at.session_state["_ws"].lab.weight.detach().numpy(), fresh)


def test_a_hostile_file_name_and_token_are_shown_as_text():
    at = start("en")
    data = "**s** 1 2 3\n[x](http://e.x/l) 1 2 3\n**s** 4 5 6\n".encode()
    at = upload(at, ("[l](http://e.x/l).vec", data, "text/plain"))
    shown = [e.value for e in at.get("error")]
    assert any("line 3" in v for v in shown)
    assert not any("](http" in v or "**s**" in v for v in shown)  # escaped, never a link or bold


def test_a_vocabulary_token_without_a_vector_is_named_as_text():
    at = start("en")
    at.text_area(key="token_list").set_value("<UNK>\n<PAD>\n영화\n**굵게**\n[x](http://e.x/l)").run()
    at.button(key="token_list_load").click().run()
    at = upload(at, ("v.vec", "1 2\n영화 1 2 \n".encode(), "text/plain"))
    notice = next(i.value for i in at.info if "no vector in the file" in i.value)
    assert "4 tokens have no vector in the file: <UNK> · <PAD> · **굵게** · [x](http://e.x/l)." in shown(notice)
    assert "**굵게**" not in notice and "](http" not in notice  # escaped: never bold, never a link


@pytest.mark.parametrize("lang, says", [("ko", "서버가 다른 학습자들의 큰 계산을 처리하고 있어서"),
                                        ("en", "The server is busy with other learners' heavy work")])
def test_reading_a_file_is_a_job_of_the_servers_budget_refused_when_it_is_exhausted(monkeypatch, lang, says):
    import threading

    from core import cost
    from server.budget import BUDGET

    monkeypatch.setattr(cost, "VECTOR_FILE_S", 1e-2)  # this small file estimated as a heavy read (over a second)
    monkeypatch.setattr(BUDGET, "wait_seconds", 0.2)
    at = start(lang)
    ex = at.session_state["_ws"]
    lab, before = ex.lab, w_bits(at)
    taken, release = threading.Barrier(BUDGET.lanes + 1), threading.Event()

    def hold_a_lane():  # another learner's heavy work
        with BUDGET.job("run", 60.0, owner="other", alive=lambda: True):
            taken.wait(30)
            release.wait(60)

    holders = [threading.Thread(target=hold_a_lane, daemon=True) for _ in range(BUDGET.lanes)]
    for h in holders:
        h.start()
    try:
        taken.wait(30)  # every lane is someone else's
        at = upload(at, ("vectors.vec", FILE, "text/plain"))
    finally:
        release.set()
        for h in holders:
            h.join(30)
    assert not at.exception
    assert any(says in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["_ws"].lab is lab and ex.recipe.pretrained is None  # nothing changed
    np.testing.assert_array_equal(w_bits(at), before)
    at = at.button(key="pretrained_apply").click().run()  # the lanes free again: the same file is read
    assert not at.exception and not errors(at) and ex.recipe.pretrained is not None
