"""No silent coercion (issue 17): what the app cannot use exactly is refused or pointed out, never
quietly turned into something else."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from components.i18n import problem_text
from tests.apptest_helpers import shown  # noqa: E402
from core import state as S
from core.batch import make_batch, parse_sentences, sentence_warnings
from core.exact import exact_int
from core.problems import InputError, Problem
from core.state_schema import TensorData
from core.training import Config, Lab, Recipe
from core.vocab import Vocab
from support.labs import CHAPTER_ROWS, CHAPTER_TEXT, CLASSES

NFC, NFD = "caf\u00e9", "cafe\u0301"


def test_extra_bars_in_a_line_are_an_error_naming_the_line():
    with pytest.raises(InputError) as e:
        parse_sentences("영화 좋다 | 긍정\n영화 | 좋다 | 긍정 | 부정\n영화 | 부정", CLASSES)
    assert [(p.code, p.params) for p in e.value.problems] == [("line_many_bars", {"line": 2, "n": 3})]
    lines = parse_sentences("영화 좋다 | 긍정", CLASSES)  # one bar still separates the label
    assert lines[0].tokens == ("영화", "좋다") and lines[0].label == 1


def test_look_alike_rows_are_a_warning_not_an_error():
    rows = CHAPTER_ROWS + [(NFC, 6, ""), (NFD, 7, "")]
    assert unicodedata_equal(NFC, NFD) and NFC != NFD
    v = Vocab.from_rows(rows)  # valid: two different tokens
    assert v.encode([NFC, NFD]) == [6, 7]
    assert [(p.code, p.params["row"], p.params["other"]) for p in v.warnings] == [("lookalike_tokens", 8, 7)]
    assert Vocab.from_rows(CHAPTER_ROWS).warnings == ()
    v = Vocab.from_token_list(f"{NFC}\n{NFD}")  # the bulk path builds the same Vocab, with the same warnings
    assert [(p.code, p.params["row"], p.params["other"]) for p in v.warnings] == [("lookalike_tokens", 4, 3)]


def test_a_sentence_token_that_only_looks_like_a_vocabulary_token_is_pointed_out():
    v = Vocab.from_rows(CHAPTER_ROWS + [(NFC, 6, "")])
    lines = parse_sentences(f"영화 {NFD} | 긍정\n영화 {NFC} | 부정\n영화 새말 | 부정", CLASSES)
    assert make_batch(v, [l.tokens for l in lines]).ids[0].tolist() == [2, v.unk_id]  # what the warning is about
    warnings = sentence_warnings(lines, v)
    assert [(p.code, p.params["line"], p.params["row"]) for p in warnings] == [("lookalike_in_sentence", 1, 7)]


def unicodedata_equal(a: str, b: str) -> bool:
    import unicodedata

    return unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


@pytest.mark.parametrize("value,expected", [
    (3, 3), (3.0, 3), ("12", 12), (" -4 ", -4), (np.int64(5), 5), (np.float32(6.0), 6), (9223372036854775808, 2**63),
])
def test_exact_integers_are_taken_as_they_are(value, expected):
    assert exact_int(value, "seed") == expected


@pytest.mark.parametrize("value,code,would", [
    (2.5, "int_not_whole", 2), (-2.5, "int_not_whole", -2), (1e-300, "int_not_whole", 0),
    (math.nan, "int_not_number", None), (math.inf, "int_not_number", None), (-math.inf, "int_not_number", None),
    (True, "int_not_number", None), ("1e300", "int_not_number", None), ("2.5", "int_not_number", None),
    ("0x10", "int_not_number", None), (None, "int_not_number", None), ([3], "int_not_number", None),
    (np.float64("nan"), "int_not_number", None),
])
def test_values_that_are_not_exact_integers_are_refused_naming_what_would_be_used(value, code, would):
    p = exact_int(value, "n_steps")
    assert isinstance(p, Problem) and p.code == code and p.params["name"] == "n_steps"
    assert p.params.get("would") == would
    for lang in ("ko", "en"):
        text = shown(problem_text(lang, p))
        assert "n_steps" in text and "{" not in text and (would is None or str(would) in text)


def state_with_pad_row(pad_row: list[float]) -> bytes:
    vocab = Vocab.from_rows(CHAPTER_ROWS)
    lines = parse_sentences(CHAPTER_TEXT, CLASSES)
    recipe = Recipe(vocab, tuple(l.tokens for l in lines), tuple(l.label for l in lines), CLASSES, Config())
    lab = Lab(recipe)
    obj = json.loads(S.export_state(recipe, CHAPTER_TEXT, "en", lab))
    w = lab.weight.detach().clone()
    w[vocab.pad_id] = torch.tensor(pad_row)
    obj["weights"] = TensorData.of(w).model_dump()
    return json.dumps(obj).encode()


def test_an_imported_non_zero_pad_row_gets_a_notice():
    restored = S.restore(S.parse_state(state_with_pad_row([1.0, 1.0, 1.0])))
    assert restored.weights_verified is False
    pad = restored.lab.weight.detach()[1]
    assert torch.equal(pad, torch.ones(3))
    (notice,) = restored.notices
    assert notice.code == "import_pad_nonzero" and notice.params["pad"] == 1
    assert notice.params["norm"] == f"{float(torch.linalg.vector_norm(pad)):.4g}"
    assert S.restore(S.parse_state(state_with_pad_row([0.0, 0.0, 0.0]))).notices == ()


def test_a_hand_set_pad_row_in_the_files_history_needs_no_notice():
    vocab = Vocab.from_rows(CHAPTER_ROWS)
    lines = parse_sentences(CHAPTER_TEXT, CLASSES)
    recipe = Recipe(vocab, tuple(l.tokens for l in lines), tuple(l.label for l in lines), CLASSES, Config())
    lab = Lab(recipe)
    lab.run(2)
    lab.set_pad_row([0.5, 0.5, 0.5])
    restored = S.restore(S.parse_state(S.export_state(recipe, CHAPTER_TEXT, "en", lab)))
    assert restored.weights_verified is True and restored.notices == ()
