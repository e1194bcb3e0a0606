"""core/classes.py: the labels a learner writes define the classes, and everything that carries a
lab carries them (the state file, old files included, the share link, the keeper, the script, the
Projector metadata, the legend, the predictions, the lessons).

torch is the answer key: losses are compared with plain torch (support/torch_reference.PlainLoop)
run on a recipe this file builds itself, its classes numbered here in order of first appearance.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from assets import presets
from components.charts import legend_names
from core import lessons
from core.batch import parse_sentences
from core.classes import classes_of, resolve
from core.codegen import script_for
from core.explorer import Explorer
from core.notebook import notebook_for
from core.problems import InputError
from core.projector_tsv import metadata_tsv
from core.saved import read_found, restore_found, saved_entry
from core.share_link import from_query_params, to_query_params
from core.state import SCHEMA_VERSION, export_state, parse_state, restore
from core.training import Config, Lab, Recipe
from core.vocab import Vocab
from support.torch_reference import PlainLoop
from views.training import prediction_rows

ROWS = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("야구", 2, ""), ("경기", 3, ""), ("선거", 4, ""),
        ("국회", 5, ""), ("김치", 6, ""), ("맛있다", 7, "")]
TEXT = "야구 경기 | 스포츠\n국회 선거 | 정치\n김치 맛있다 | 음식\n경기 야구 야구 | 스포츠\n선거 | 정치\n맛있다 | 음식"
CHAPTER = ("부정", "긍정")
CONFIG = dict(embedding_dim=4, seed=3, optimizer="adam", lr=0.05)


def lab_of(text: str = TEXT, example=CHAPTER, **config) -> Lab:
    return Lab(Recipe.of(Vocab.from_rows(ROWS), parse_sentences(text, example), example, Config(**{**CONFIG, **config})))


def answer_key(text: str, steps: int) -> PlainLoop:
    """Plain torch on ``text``: the classes numbered in the order their labels first appear."""
    body = [line.rsplit("|", 1) for line in text.splitlines()]
    order: dict[str, int] = {}
    for _, label in body:
        order.setdefault(label.strip(), len(order))
    recipe = SimpleNamespace(vocab=Vocab.from_rows(ROWS), sentences=[b.split() for b, _ in body],
                             labels=[order[label.strip()] for _, label in body], classes=tuple(order),
                             config=Config(**CONFIG))
    return PlainLoop(recipe).run(steps)


# ---- the rule ----------------------------------------------------------------------------------
@pytest.mark.parametrize("labels, classes, indices", [
    (["긍정", "부정", "1", "0", None], CHAPTER, (1, 0, 1, 0, None)),  # the example's, by name or number
    (["  긍정 ", "부정"], CHAPTER, (1, 0)),
    ([None, None], CHAPTER, (None, None)),  # no labels: the example's classes stay
    (["긍정"], CHAPTER, (1,)),  # the example's, even the one no sentence uses
    (["스포츠", "정치", "스포츠", "음식"], ("스포츠", "정치", "음식"), (0, 1, 0, 2)),
    (["긍정", "중립"], ("긍정", "중립"), (0, 1)),  # one new label: all are the learner's own
    (["0", "1", "2"], ("0", "1", "2"), (0, 1, 2)),  # 2 is no class of the example: numbers are names
    (["2", "0", "1"], ("2", "0", "1"), (0, 1, 2)),  # in the order they first appear
    (["Sports", "sports", "SPORTS  club", "sports club"], ("Sports", "SPORTS club"), (0, 0, 1, 1)),
    (["하나"], ("하나",), (0,)),  # one class
])
def test_labels_define_the_classes(labels, classes, indices):
    assert resolve(labels, CHAPTER) == (classes, indices)


def test_applying_the_rule_again_to_its_own_classes_changes_nothing():
    """A file, a link and the keeper store the lab's classes; read back as the example's, they must
    give the same classes and the same targets (or the replay would train another lab)."""
    for labels in (["긍정", "1"], ["0", "1", "2"], ["2", "x", "0"], ["Sports", "sports"], [None]):
        classes, indices = resolve(labels, CHAPTER)
        assert resolve(labels, classes) == (classes, indices)


def test_the_chapter_and_presets_load_as_before():
    for pid in ("chapter", "reviews_ko", "reviews_en"):
        p = presets.load(pid)
        ex = Explorer.from_preset(p)
        assert ex.classes == tuple(p["classes"])
    large = presets.large(v=50, e=4, b=6, t=5)  # its classes are named "0" and "1": by name
    lines = parse_sentences(large["sentences"], large["classes"])
    assert classes_of(lines, large["classes"]) == ("0", "1")
    assert [l.label for l in lines] == [int(s.rsplit("|", 1)[1]) for s in large["sentences"].splitlines()]


# ---- training --------------------------------------------------------------------------------
def test_three_own_classes_train_as_torch_does():
    lab = lab_of()
    assert lab.recipe.classes == ("스포츠", "정치", "음식")
    assert lab.model.head.weight.shape == (3, 4) and lab.predict().shape == (6, 3)
    lab.run(7)
    ref = answer_key(TEXT, 7)
    assert lab.losses == ref.losses
    assert np.array_equal(lab.weight_numpy(), ref.weight)


def test_renaming_a_label_everywhere_renames_the_class_and_trains_the_same():
    renamed = lab_of(TEXT.replace("정치", "경제"))
    lab = lab_of()
    assert renamed.recipe.classes == ("스포츠", "경제", "음식")
    renamed.run(5)
    lab.run(5)
    assert renamed.losses == lab.losses and np.array_equal(renamed.weight_numpy(), lab.weight_numpy())


def test_a_label_used_once_and_a_single_class_are_fine():
    once = lab_of(TEXT + "\n야구 | 야구장")
    assert once.recipe.classes[-1] == "야구장" and once.recipe.labels[-1] == 3
    single = lab_of("야구 경기 | 스포츠\n경기 | 스포츠")
    assert single.recipe.classes == ("스포츠",)
    assert single.model.head.weight.shape == (2, 4)  # one output's cross-entropy is 0 whatever W is: two
    single.run(3)
    assert single.losses[-1] < single.losses[0]


def test_sentences_without_labels_still_look_up():
    lab = lab_of("야구 경기\n김치")
    assert lab.recipe.classes == CHAPTER and lab.recipe.labels == (None, None)
    assert lab.batch.ids.tolist() == [[2, 3], [6, 1]]
    assert [p.code for p in lab.train_problems()] == ["labels_missing"]


@pytest.mark.parametrize("text, code, line", [
    ("야구 | 스포츠\n경기 | " + "가" * 41, "label_too_long", 2),
    ("\n".join(f"야구 | c{i}" for i in range(25)), "too_many_classes", 21),
    ("야구 | 스포츠\n\n경기 |", "label_empty", 3),
])
def test_a_bad_label_is_refused_naming_its_line(text, code, line):
    with pytest.raises(InputError) as e:
        parse_sentences(text, CHAPTER)
    (p,) = e.value.problems
    assert p.code == code and p.params["line"] == line


def test_twenty_classes_and_forty_characters_are_allowed():
    text = "\n".join(f"야구 | {'c' * 38}{i:02d}" for i in range(20))
    assert len(classes_of(parse_sentences(text, CHAPTER), CHAPTER)) == 20


def test_an_edit_is_read_against_the_loaded_examples_classes():
    """The explorer reads labels against the example it loaded, not against its last edit: the same
    text always makes the same lab."""
    ex = Explorer.from_preset(presets.load("chapter"))
    chapter = ex.recipe
    assert ex.apply_text("영화 정말 좋다 | 좋음\n영화 나쁘다 | 부정") == []
    assert ex.classes == ("좋음", "부정")
    assert ex.apply_text(presets.load("chapter")["sentences"]) == []
    assert ex.recipe == chapter


# ---- what carries a lab ----------------------------------------------------------------------
def trained_own() -> Lab:
    lab = lab_of(batch_size=4)
    lab.run(4)
    return lab


def test_the_state_file_carries_the_classes_and_replays_bitwise():
    lab = trained_own()
    data = export_state(lab.recipe, TEXT, "ko", lab)
    obj = json.loads(data)
    assert obj["version"] == SCHEMA_VERSION == 2 and obj["classes"] == ["스포츠", "정치", "음식"]
    restored = restore(parse_state(data))
    assert restored.recipe == lab.recipe and restored.weights_verified is True and restored.model_verified is True
    assert restored.lab.losses == lab.losses


def test_a_version_1_file_still_loads():
    """A file as the app wrote it before classes could be the learner's own (version 1)."""
    old = {"version": 1, "lang": "ko",
           "vocab": [["<UNK>", 0, "unk"], ["<PAD>", 1, "pad"], ["영화", 2, ""], ["좋다", 3, ""], ["나쁘다", 4, ""],
                     ["재미있다", 5, ""]],
           "classes": ["부정", "긍정"], "sentences": "영화 정말 좋다 | 긍정\n영화 나쁘다 | 0",
           "config": {"embedding_dim": 3, "seed": 0, "pooling": "masked_mean", "optimizer": "adam", "lr": 0.01,
                      "weight_decay": 0.0, "batch_size": 0, "fixed_len": None},
           "steps": 4}
    restored = restore(parse_state(json.dumps(old, ensure_ascii=False).encode("utf-8")))
    assert restored.recipe.classes == ("부정", "긍정") and restored.recipe.labels == (1, 0)
    chapter = Explorer.from_preset(presets.load("chapter"))
    chapter.run(4)
    assert restored.lab.losses == chapter.lab.losses  # the chapter, four steps: the same lab as before
    assert np.array_equal(restored.lab.weight_numpy(), chapter.lab.weight_numpy())
    again = json.loads(export_state(restored.recipe, old["sentences"], "ko", restored.lab))
    assert again["version"] == 2 and again["classes"] == old["classes"]


def test_a_file_whose_classes_are_not_its_labels_is_refused():
    lab = trained_own()
    obj = json.loads(export_state(lab.recipe, TEXT, "ko", lab))
    obj["classes"] = ["스포츠", "정치", "요리"]  # the labels define 스포츠 / 정치 / 음식
    with pytest.raises(InputError) as e:
        parse_state(json.dumps(obj, ensure_ascii=False))
    assert [p.code for p in e.value.problems] == ["import_classes_mismatch"]


def test_the_share_link_and_the_keeper_carry_the_classes():
    lab = trained_own()
    small = export_state(lab.recipe, TEXT, "ko", lab, include_weights=False)
    state = from_query_params(to_query_params(parse_state(small)))
    assert tuple(state.classes) == ("스포츠", "정치", "음식")
    assert np.array_equal(restore(state).lab.weight_numpy(), lab.weight_numpy())
    kept = restore_found(read_found(saved_entry(lab.recipe, TEXT, "ko", lab, now_ms=0)))
    assert kept.recipe == lab.recipe and np.array_equal(kept.lab.weight_numpy(), lab.weight_numpy())
    ex = Explorer.from_lab(kept.lab, TEXT)
    assert ex.example_classes == ("스포츠", "정치", "음식")  # a number now names the kept lab's classes
    assert ex.apply_text(TEXT + "\n야구 | 2") == [] and ex.recipe.labels[-1] == 2


def test_the_projector_metadata_legend_and_predictions_name_the_classes():
    lab = trained_own()
    r = lab.recipe
    table = [row.split("\t") for row in metadata_tsv(r.vocab, lab.batch, r.labels, r.classes).decode().splitlines()]
    by_token = {row[0]: row[-1] for row in table[1:]}
    assert (by_token["야구"], by_token["선거"], by_token["맛있다"]) == ("스포츠", "정치", "음식")
    names = legend_names({}, r.classes)
    assert [names[f"class {c}"].rsplit(": ", 1)[-1] for c in range(3)] == ["스포츠", "정치", "음식"]
    rows = prediction_rows(lab)
    assert [row[1] for row in rows] == ["스포츠", "정치", "음식"] * 2
    probs = lab.predict().numpy()
    assert [row[2] for row in rows] == [r.classes[int(np.argmax(p))] for p in probs]


def test_the_script_and_notebook_name_the_classes_and_size_the_head():
    lab = trained_own()
    script = script_for(lab.recipe, lab.steps, lab.pad_edits)
    cells = "\n".join(c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                      for c in json.loads(notebook_for(script, lambda key: key))["cells"])
    for text in (script, cells):
        assert "CLASSES = ['스포츠', '정치', '음식']" in text and "N_CLASSES = 3" in text
        assert f"LABELS = {list(lab.recipe.labels)!r}" in text


def test_every_lesson_runs_on_three_classes_and_on_one():
    for lab in (trained_own(), lab_of("야구 경기 | 스포츠\n김치 | 스포츠")):
        demos = lessons.run_all(lab)
        assert set(demos) == set(lessons.LESSON_IDS)
    c9 = lessons.run_demo("C9", trained_own())
    if c9.figure:
        assert c9.figure["class"] == "음식"  # the direction of the last class
