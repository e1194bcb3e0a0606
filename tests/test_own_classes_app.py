"""Your own classes through the running app (AppTest): a three-class Korean example typed by hand
trains, is shared by link, survives the keeper's save and restore, and exports a script whose
losses are the app's, bit for bit.

The answer key is plain torch (support/torch_reference.PlainLoop) fed by a recipe this file builds
itself: tokens split on spaces, the classes numbered here in the order their labels first appear.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.parse
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from components.i18n import t
from core.codegen import script_for
from core.training import Config
from core.vocab import Vocab
from session import Keys
from support.torch_reference import PlainLoop
from tests.apptest_helpers import APP, component_data, errors, stage, stage_w, start

TEXT = ("야구 경기 이겼다 | 스포츠\n국회 선거 결과 | 정치\n김치 찌개 맛있다 | 음식\n"
        "축구 경기 졌다 | 스포츠\n대통령 선거 | 정치\n비빔밥 정말 맛있다 | 음식")
NEW_TOKENS = ["야구", "경기", "국회", "선거", "김치", "맛있다", "축구", "대통령", "비빔밥"]
CHAPTER_ROWS = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("영화", 2, ""), ("좋다", 3, ""), ("나쁘다", 4, ""),
                ("재미있다", 5, "")]
STEPS = 3


def answer_key(steps: int) -> PlainLoop:
    """Plain torch on the typed example: the chapter's knobs (E=3, seed 0, Adam, lr 0.01)."""
    rows = CHAPTER_ROWS + [(tok, 6 + i, "") for i, tok in enumerate(NEW_TOKENS)]
    body = [line.split("|") for line in TEXT.splitlines()]
    order: dict[str, int] = {}
    for _, label in body:
        order.setdefault(label.strip(), len(order))
    recipe = SimpleNamespace(vocab=Vocab.from_rows(rows), sentences=[b.split() for b, _ in body],
                             labels=[order[label.strip()] for _, label in body], classes=tuple(order),
                             config=Config(embedding_dim=3, seed=0, optimizer="adam", lr=0.01))
    assert recipe.classes == ("스포츠", "정치", "음식")
    return PlainLoop(recipe).run(steps)


def type_example(at: AppTest) -> AppTest:
    """The vocabulary's new rows and the sentences, as a learner types them into the two editors."""
    at.session_state[Keys.VOCAB] = {"edited_rows": {}, "deleted_rows": [],
                                    "added_rows": [{"token": tok, "id": 6 + i, "role": "normal"}
                                                   for i, tok in enumerate(NEW_TOKENS)]}
    at.run()
    return at.text_area(key=Keys.SENTENCES).input(TEXT).run()


@pytest.fixture(scope="module")
def trained() -> AppTest:
    at = type_example(start("ko"))
    assert not at.exception and not errors(at)
    at.button_group(key=Keys.SECTION).set_value("train").run()
    for _ in range(STEPS):
        at.button(key=Keys.STEP).click().run()
    assert not at.exception and not errors(at)
    return at


def test_typed_labels_define_three_classes_and_train_as_torch_does(trained):
    lab = trained.session_state["_ws"].lab
    assert lab.recipe.classes == ("스포츠", "정치", "음식")
    assert lab.model.head.weight.shape == (3, 3)  # the head's outputs follow the classes
    assert lab.steps == STEPS
    ref = answer_key(STEPS)
    data = stage(trained)
    np.testing.assert_array_equal(np.float32(data["loss"]), np.float32(ref.losses))
    np.testing.assert_array_equal(stage_w(trained)[1], ref.weight)
    assert data["classes"] == ["스포츠", "정치", "음식"]  # the legend's names
    caption = t("ko", "sent.classes", n=3, classes="스포츠 · 정치 · 음식")
    assert caption in [c.value for c in trained.caption]


def test_the_share_link_round_trips_the_classes_and_the_weights(trained):
    trained.button_group(key=Keys.SECTION).set_value("share").run()
    (url,) = [c.value for c in trained.code if "?s=" in c.value]
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    opened = AppTest.from_file(APP, default_timeout=60)
    opened.query_params.update(params)
    opened.run()
    assert not opened.exception and not errors(opened)
    lab = opened.session_state["_ws"].lab
    assert lab.recipe.classes == ("스포츠", "정치", "음식") and lab.steps == STEPS
    ref = answer_key(STEPS)
    assert lab.losses == ref.losses and np.array_equal(lab.weight_numpy(), ref.weight)
    assert opened.text_area(key=Keys.SENTENCES).value == TEXT
    assert opened.query_params["s"] == params["s"]  # the address keeps the link while it shows its lab
    opened.text_area(key=Keys.SENTENCES).input(TEXT + "\n야구 | 1").run()  # 1: the link's second class
    assert not errors(opened) and opened.session_state["_ws"].lab.recipe.labels[-1] == 1


def test_the_keeper_keeps_the_classes_across_a_reload(trained):
    trained.button_group(key=Keys.SECTION).set_value("train").run()
    (write,) = [component_data(e) for e in trained.get("bidi_component")
                if e.proto.component_name == "work_keeper" and component_data(e)["role"] == "write"]
    entry = write["saved"]
    assert entry["steps"] == STEPS
    page = start("ko")  # the page after a reload: a new session, the browser reports what it kept
    page.session_state[Keys.KEEPER] = {"report": {"n": 1, "had": None,
                                                  "entries": [{"slot": "old1", "mine": True, **entry}]}}
    page.run()
    page.button(key=Keys.KEEPER_RESTORE + "old1").click().run()
    assert not page.exception and not errors(page)
    lab = page.session_state["_ws"].lab
    assert lab.recipe.classes == ("스포츠", "정치", "음식") and lab.steps == STEPS
    assert np.array_equal(lab.weight_numpy(), answer_key(STEPS).weight)


def test_the_exported_script_prints_the_apps_losses_bitwise(trained, tmp_path):
    lab = trained.session_state["_ws"].lab
    code = script_for(lab.recipe, lab.steps, lab.pad_edits, lang="ko")
    assert "CLASSES = ['스포츠', '정치', '음식']" in code and "N_CLASSES = 3" in code
    path = tmp_path / "own_classes.py"
    path.write_text(code, encoding="utf-8")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    import json

    printed = json.loads(out.stdout.splitlines()[-1])
    assert printed["losses"] == lab.losses  # Python floats from float32: exact
    assert torch.equal(torch.tensor(printed["W"], dtype=torch.float32), lab.weight.detach())


def test_a_label_over_forty_characters_or_a_21st_class_is_refused_naming_the_line():
    at = start("en")
    long_label = "x" * 41
    at.text_area(key=Keys.SENTENCES).input(f"영화 | a\n영화 | {long_label}").run()
    assert not at.exception
    assert any("Line 2" in e and "41" in e for e in errors(at))
    many = "\n".join(f"영화 | c{i}" for i in range(21))
    at.text_area(key=Keys.SENTENCES).input(many).run()
    assert any("Line 21" in e and "20" in e for e in errors(at))
    assert at.session_state["_ws"].lab.recipe.classes == ("부정", "긍정")  # the last valid lab still drives the page
    assert at.text_area(key=Keys.SENTENCES).value == many  # what was typed stays
