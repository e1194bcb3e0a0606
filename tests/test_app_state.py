"""Export, import and share link through the running app (AppTest), with torch as the answer key."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from core.share_link import to_query_params
from core.state import export_state, parse_state
from core.training import replay
from tests.apptest_helpers import errors, id_matrix, stage_w, start
from support.labs import make_lab

ROWS = [("<PAD>", 0, "pad"), ("a", 1, ""), ("b", 2, ""), ("<UNK>", 3, "unk"), ("c", 4, "")]
TEXT = "a b a | pos\nc zz | neg\nb | pos"


def trained_state(steps: int = 9) -> tuple[bytes, torch.Tensor]:
    lab = make_lab(ROWS, TEXT, ("neg", "pos"), embedding_dim=4, seed=12, optimizer="momentum", lr=0.2, batch_size=2)
    lab.run(steps)
    lab.set_pad_row([0.5, -0.5, 1.0, 0.0])
    lab.run(2)
    return export_state(lab.recipe, TEXT, "en", lab), lab.weight.detach().clone()


def upload(at, data: bytes):
    at.button_group(key="section").set_value("share").run()
    at.file_uploader(key="import_state").set_value(("state.json", data, "application/json")).run()
    return at.button(key="import_apply").click().run()


def test_import_restores_the_same_page_and_bitwise_the_same_weights():
    data, w = trained_state()
    at = upload(start("ko"), data)
    assert not at.exception and not errors(at)
    assert any("11" in i.value for i in at.info)  # "replayed to step 11; bit for bit"
    lab = at.session_state["_ws"].lab
    assert lab.steps == 11 and torch.equal(lab.weight.detach(), w)
    at.run()  # a later rerun keeps the imported lab (the widgets now agree with its recipe)
    assert at.session_state["_ws"].lab is lab
    assert at.text_area(key="sentences").value == TEXT
    assert at.radio(key="lang").value == "en"  # the file's language
    assert at.number_input(key="embedding_dim").value == 4
    # The fresh replay in torch of the same recipe agrees (weights are not just copied in).
    assert torch.equal(replay(lab.recipe, 11, lab.pad_edits).weight.detach(), w)
    at.button_group(key="section").set_value("lookup").run()
    assert id_matrix(at) == [[1, 2, 1], [4, 3, 0], [2, 0, 0]]
    rows, shown = stage_w(at)
    assert rows == list(range(5))
    np.testing.assert_array_equal(shown, w.numpy())


@pytest.mark.parametrize("bad", [
    b"not json", b'{"version": 3}', b"\xff\xfe", b"[]",
    json.dumps({"version": 1, "lang": "ko", "vocab": [["a", 0, "unk"]], "classes": ["x", "y"], "sentences": "a",
                "config": {"lr": -1}, "steps": 0}).encode(),
])
def test_a_malformed_import_is_refused_and_changes_nothing(bad):
    at = start("ko")
    before = at.session_state["_ws"].lab.weight.detach().clone()
    at = upload(at, bad)
    assert not at.exception
    assert errors(at)
    at.run()
    assert errors(at)  # the message stays until the next import attempt
    lab = at.session_state["_ws"].lab
    assert lab.steps == 0 and torch.equal(lab.weight.detach(), before)
    assert at.text_area(key="sentences").value == "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정"


def test_a_share_link_opens_the_same_example_and_replays_the_same_weights():
    data, w = trained_state()
    params = to_query_params(parse_state(data))
    from streamlit.testing.v1 import AppTest
    from tests.apptest_helpers import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    at.run()
    assert not at.exception and not errors(at)
    lab = at.session_state["_ws"].lab
    assert lab.steps == 11 and torch.equal(lab.weight.detach(), w)  # replayed from the seed, bitwise


def test_a_tampered_share_link_says_why_and_opens_the_default():
    from streamlit.testing.v1 import AppTest
    from tests.apptest_helpers import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["s"] = "not-a-valid-state"
    at.run()
    assert not at.exception and errors(at)
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]
