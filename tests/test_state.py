"""core.state: export → import → restore is exact, and untrusted input only ever raises InputError.

torch is the answer key: a restored lab's weights are compared bit for bit with a lab trained
here, step by step, by the ordinary `Lab` methods (not with numbers copied from a file).
"""

from __future__ import annotations

import base64
import json
import random
import zlib
from pathlib import Path

import pytest
import torch

from components.i18n import strings, t
from core import limits
from core import share_link as L
from core import state as S
from core.weights_csv import weights_csv
from core.batch import parse_sentences
from core.problems import InputError
from core.training import Config, Lab, Recipe
from core.vocab import Vocab

ROOT = Path(__file__).resolve().parent.parent
ROWS = [("<PAD>", 0, "pad"), ("영화", 1, ""), ("<UNK>", 2, "unk"), ("좋다", 3, ""), ("나쁘다", 4, ""),
        ("재미있다", 5, ""), ('"인용"', 6, "")]
TEXT = "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정\n\n재미있다 \"인용\" | 1\n나쁘다 나쁘다 영화 | 부정\n"
CLASSES = ("부정", "긍정")


def make_recipe(**config) -> Recipe:
    lines = parse_sentences(TEXT, CLASSES)
    cfg = Config(**{"embedding_dim": 4, "seed": 7, "optimizer": "momentum", "lr": 0.05, "weight_decay": 0.01,
                    "batch_size": 3, **config})
    return Recipe(Vocab.from_rows(ROWS), tuple(l.tokens for l in lines), tuple(l.label for l in lines), CLASSES, cfg)


def trained_lab(recipe: Recipe) -> Lab:
    """7 steps, with the PAD row set by hand after step 3 (its gradient is 0, but weight decay shrinks it: C13)."""
    lab = Lab(recipe)
    lab.run(3)
    lab.set_pad_row([0.25, -1.5, 3.0, 1e-3])
    lab.run(4)
    return lab


@pytest.fixture(scope="module")
def exported() -> tuple[Recipe, Lab, bytes]:
    recipe = make_recipe()
    lab = trained_lab(recipe)
    return recipe, lab, S.export_state(recipe, TEXT, "en", lab)


def bits_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.equal(a.detach().view(torch.int32), b.detach().view(torch.int32))


def codes(data) -> list[str]:
    """The Problem codes parse_state raises; fails the test if it returns or raises anything else."""
    with pytest.raises(InputError) as info:
        S.parse_state(data)
    assert_explained(info.value.problems)
    return [p.code for p in info.value.problems]


def assert_explained(problems) -> None:
    """Every problem has a sentence in both languages, and its params fill every placeholder."""
    for p in problems:
        for lang in ("ko", "en"):
            assert f"err.{p.code}" in strings(), p.code
            t(lang, f"err.{p.code}", **p.params)  # KeyError if a placeholder has no param


def edited(data: bytes, change) -> bytes:
    obj = json.loads(data)
    change(obj)
    return json.dumps(obj, ensure_ascii=False).encode()


# ---- round trip ------------------------------------------------------------------------------
def test_round_trip_is_bitwise(exported):
    recipe, lab, data = exported
    state = S.parse_state(data)
    restored = S.restore(state)
    assert restored.recipe == recipe
    assert restored.weights_verified is True and restored.model_verified is True
    assert restored.lab.steps == 7 and restored.lab.pad_edits == lab.pad_edits
    assert bits_equal(restored.lab.weight, lab.weight)
    assert restored.lab.weight[0, 0].item() != 0.0  # the hand-set PAD row (id 0) survived training
    for (n, p), (_, q) in zip(restored.lab.model.named_parameters(), lab.model.named_parameters()):
        assert bits_equal(p, q), n
    assert state.sentences == TEXT and state.lang == "en"
    assert S.parse_state(data.decode("utf-8")) == state  # str input reads the same


def test_restore_then_train_matches_training_on(exported):
    recipe, lab, data = exported
    restored = S.restore(S.parse_state(data)).lab
    fresh = trained_lab(recipe)
    restored.run(2), fresh.run(2)
    assert bits_equal(restored.weight, fresh.weight)


def test_weights_that_differ_are_loaded_and_reported(exported):
    recipe, lab, data = exported
    w = lab.weight.detach().clone()
    w[3, 1] = 42.0

    def tamper(obj):
        obj["weights"] = S.TensorData.of(w).model_dump()

    restored = S.restore(S.parse_state(edited(data, tamper)))
    assert restored.weights_verified is False and restored.model_verified is True
    assert bits_equal(restored.lab.weight, w)
    assert (restored.lab.snapshots[7] == w.numpy()).all()


def test_export_without_weights_replays(exported):
    recipe, lab, _ = exported
    data = S.export_state(recipe, TEXT, "ko", lab, include_weights=False)
    obj = json.loads(data)
    assert "weights" not in obj and "model" not in obj and obj["config"]["fixed_len"] is None
    restored = S.restore(S.parse_state(data))
    assert restored.weights_verified is None and bits_equal(restored.lab.weight, lab.weight)


def test_export_rewrites_text_that_no_longer_matches_the_recipe(exported):
    recipe, lab, _ = exported
    data = S.export_state(recipe, "영화 | 없는클래스\n", "ko", lab)
    state = S.parse_state(data)
    assert S.recipe_of(state) == recipe and state.sentences.splitlines()[0] == "영화 정말 좋다 | 긍정"


@pytest.mark.parametrize("pooling", ["masked_mean", "mean", "lstm", "packed_lstm"])
def test_model_shapes_name_every_parameter(pooling):
    recipe = make_recipe(pooling=pooling, batch_size=0)
    model = Lab(recipe).model
    real = {n: list(p.shape) for n, p in model.named_parameters() if n != "embedding.weight"}
    assert S.model_shapes(recipe) == real


def test_lstm_state_round_trips():
    recipe = make_recipe(pooling="packed_lstm", optimizer="adamw", batch_size=1)
    lab = trained_lab(recipe)
    restored = S.restore(S.parse_state(S.export_state(recipe, TEXT, "ko", lab)))
    assert restored.model_verified is True and bits_equal(restored.lab.model.lstm.weight_hh_l0, lab.model.lstm.weight_hh_l0)


# ---- untrusted files: every bad input is an InputError naming what is wrong -----------------------
def _set(path: str, value):
    """A change to one field: "config.lr" → obj["config"]["lr"] = value."""
    def change(obj):
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        for p in parents:
            obj = obj[p]
        obj[last] = value
    return change


def _del(path: str):
    def change(obj):
        del obj[path]
    return change


BAD_FIELDS = [  # (change, expected code, expected detail or None)
    (_set("version", 3), "import_version", None),
    (_set("version", "1"), "import_version", None),
    (_set("version", True), "import_version", None),
    (_set("surprise", 1), "import_extra", "surprise"),
    (_set("config.extra", 1), "import_extra", "config.extra"),
    (_del("lang"), "import_missing", "lang"),
    (_set("lang", "fr"), "import_choice", "lang"),
    (_set("config.lr", float("nan")), "import_type", "config.lr"),
    (_set("config.lr", float("inf")), "import_type", "config.lr"),
    (_set("config.lr", 100.0), "import_range", "config.lr"),
    (_set("config.lr", "0.1"), "import_type", "config.lr"),
    (_set("config.embedding_dim", -3), "import_range", "config.embedding_dim"),
    (_set("config.embedding_dim", 4.0), "import_type", "config.embedding_dim"),
    (_set("config.seed", True), "import_type", "config.seed"),
    (_set("config.pooling", "max"), "import_choice", "config.pooling"),
    (_set("config.fixed_len", 0), "import_range", "config.fixed_len"),
    (_set("steps", 10**6), "import_range", "steps"),
    (_set("steps", -1), "import_range", "steps"),
    (_set("vocab.2.2", "special"), "import_choice", "vocab[2][2]"),
    (_set("vocab.2", ["<UNK>", 2]), "import_missing", "vocab[2][2]"),
    (_set("vocab.2.1", "2"), "import_type", "vocab[2][1]"),
    (_set("vocab.6.1", 9), "id_out_of_range", None),
    (_set("vocab.3.0", "영화"), "duplicate_token", None),
    (_set("vocab.0.2", ""), "no_pad", None),
    (_set("vocab", [["a", i, ""] for i in range(limits.MAX_VOCAB + 1)]), "import_range", "vocab"),
    (_set("sentences", "x " * (limits.MAX_TEXT_CHARS // 2 + 1)), "import_range", "sentences"),
    (_set("sentences", "영화 | 중립"), "import_classes_mismatch", None),  # its labels define other classes
    (_set("sentences", "영화 | " + "긴" * 41), "label_too_long", None),
    (_set("sentences", "영화 좋다"), "labels_missing", None),
    (_set("classes", ["부정", " 부정 "]), "import_class_duplicate", None),
    (_set("classes", ["a|b", "c"]), "import_class_name", None),
    (_set("classes", []), "import_range", "classes"),
    (_set("classes", [f"c{i}" for i in range(limits.MAX_CLASSES + 1)]), "import_range", "classes"),
    (_set("classes", ["부정", "긍" * (limits.MAX_CLASS_CHARS + 1)]), "import_range", "classes[1]"),
    (_set("pad_edits.0.step", 8), "import_pad_step", None),
    (_set("pad_edits.0.vector", [1.0, 2.0]), "import_pad_length", None),
    (_set("pad_edits.0.vector", [1e39, 0.0, 0.0, 0.0]), "import_range", "pad_edits[0].vector[0]"),
    (_set("weights.shape", [7, 3]), "import_weights_shape", None),
    (_set("weights.data", "not base64!"), "import_weights_data", None),
    (_set("weights.data", base64.b64encode(b"\0" * 12).decode()), "import_weights_data", None),
    (_set("weights.data", base64.b64encode(torch.full((7, 4), float("nan")).numpy().tobytes()).decode()),
     "import_weights_nonfinite", None),
    (_set("model", {"head.weight": {"shape": [2, 4], "data": ""}}), "import_model_params", None),
    (_set("model", {"Head Weight!": {"shape": [2, 4], "data": ""}}), "import_schema", None),
]


@pytest.mark.parametrize("change,code,detail", BAD_FIELDS, ids=[f"{c}-{d}" for _, c, d in BAD_FIELDS])
def test_bad_field_is_named(exported, change, code, detail):
    with pytest.raises(InputError) as info:
        S.parse_state(edited(exported[2], change))
    problems = info.value.problems
    assert_explained(problems)
    assert code in [p.code for p in problems]
    if detail is not None:
        assert detail in [p.params.get("detail") for p in problems]


@pytest.mark.parametrize("data,code", [
    (b"not json", "import_not_json"),
    (b'{"version": 1,}', "import_not_json"),
    (b"\xff\xfe{}", "import_not_utf8"),
    ("\ud800", "import_not_utf8"),
    (b"[]", "import_not_state"),
    (b'{"vocab": []}', "import_not_state"),
    (b"[" * 100_000 + b"]" * 100_000, "import_too_deep"),
    (b'{"version": 1, "vocab": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "import_too_deep"),
    (b'{"version": 1, "steps": ' + b"9" * 5000 + b"}", "import_not_json"),
    (b" " * (limits.MAX_IMPORT_BYTES + 1), "import_too_large"),
    ("가" * (limits.MAX_IMPORT_BYTES // 3 + 1), "import_too_large"),
    (12345, "import_not_json"),
])
def test_unreadable_file_is_rejected(data, code):
    assert codes(data) == [code]


def test_replay_budget_bounds_import_time(exported):
    vocab = [["<PAD>", 0, "pad"], ["<UNK>", 1, "unk"]] + [[f"t{i}", i, ""] for i in range(2, 10_000)]
    change = [_set("vocab", vocab), _set("config.embedding_dim", 512), _set("steps", 5000), _set("pad_edits", []),
              _del("weights"), _del("model"), _set("sentences", "t2 t3 | 0")]
    data = exported[2]
    for c in change:
        data = edited(data, c)
    assert codes(data) == ["import_replay_too_long"]


def test_replay_budget_counts_lstm_work(exported):
    """A small table but four 256-token sentences through an LSTM of width 512: ~2e9 per step."""
    data = exported[2]
    for c in [_set("config.embedding_dim", 512), _set("config.pooling", "lstm"), _set("steps", 100),
              _set("pad_edits", []), _del("weights"), _del("model"), _set("sentences", ("영화 " * 256 + "| 0\n") * 4)]:
        data = edited(data, c)
    assert codes(data) == ["import_replay_too_long"]
    assert S.parse_state(edited(data, _set("steps", 9))).steps == 9


def test_schema_errors_are_capped(exported):
    data = edited(exported[2], _set("vocab", [[i, "x", 0] for i in range(50)]))
    found = codes(data)
    assert len(found) == 6 and found[-1] == "import_more"


def test_a_flood_of_errors_is_counted_not_listed(exported):
    data = edited(exported[2], lambda obj: obj.update({f"k{i}": 0 for i in range(S.MAX_SCHEMA_ERRORS + 1)}))
    assert codes(data) == ["import_many_errors"]


def test_state_strings_have_both_languages_and_the_same_placeholders():
    import string
    data = json.loads((ROOT / "assets" / "strings" / "state.json").read_text(encoding="utf-8"))
    for key, entry in data.items():
        assert set(entry) == {"ko", "en"} and all(entry.values()), key
        names = [{f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f} for lang in ("ko", "en")]
        assert names[0] == names[1], key


def test_random_byte_corruption_never_escapes_as_another_exception(exported):
    data = S.export_state(exported[0], TEXT, "ko", exported[1], include_weights=False)
    rng = random.Random(0)
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.choice(b'{}[]",:0123456789-.eE aznt\\')
        try:
            S.parse_state(bytes(b))
        except InputError as e:
            assert "import_failed" not in [p.code for p in e.problems]  # the safety net was not needed


JUNK = [None, True, -1, 0, 3, 2**70, 1e308, -0.0, "", "x", "<PAD>", [], [0], [[]], {}, {"a": 1}]


def _nodes(obj, path=()):
    """Every (container, key) pair of a parsed JSON tree."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        yield obj, k
        yield from _nodes(v, path + (k,))


def test_random_value_swaps_are_rejected_or_restore(exported):
    """Replace one value anywhere with junk: parse_state raises InputError or the state restores."""
    rng = random.Random(3)
    for _ in range(300):
        obj = json.loads(exported[2])
        parent, key = rng.choice(list(_nodes(obj)))
        parent[key] = rng.choice(JUNK)
        try:
            state = S.parse_state(json.dumps(obj))
        except InputError as e:
            assert "import_failed" not in [p.code for p in e.problems]
            continue
        if state.steps <= 20:
            S.restore(state)


# ---- share link --------------------------------------------------------------------------------
def test_query_params_round_trip(exported):
    state = S.parse_state(exported[2])
    params = L.to_query_params(state)
    assert list(params) == ["s"] and len(params["s"]) < 1000
    back = L.from_query_params(params)
    assert back == state.model_copy(update={"weights": None, "model": None})
    assert L.from_query_params({"s": ["junk", params["s"]]}) == back  # a dict of lists: the last wins
    assert bits_equal(S.restore(back).lab.weight, exported[1].weight)
    url = L.share_url("http://localhost:8501/app?x=1#top", params)
    assert url == "http://localhost:8501/app?s=" + params["s"]


def _packed(raw: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode()


@pytest.mark.parametrize("params,code", [
    ({}, "share_missing"),
    ({"s": []}, "share_missing"),
    ({"s": "abc$%^"}, "share_invalid"),
    ({"s": "A" * (L.MAX_SHARE_PARAM_CHARS + 1)}, "share_too_large"),
    ({"s": base64.urlsafe_b64encode(b"plain text, not zlib").decode()}, "share_invalid"),
    ({"s": _packed(b" " * 2_000_000)}, "share_too_large"),  # a zlib bomb: 2 MB from ~2 KB
    ({"s": _packed(b"{not json")}, "import_not_json"),
    ({"s": _packed(b'{"version": 3}')}, "import_version"),
    ({"s": _packed(b"x")[:-3]}, "share_invalid"),  # cut short
])
def test_bad_share_params_are_rejected(params, code):
    with pytest.raises(InputError) as info:
        L.from_query_params(params)
    assert [p.code for p in info.value.problems] == [code]
    assert_explained(info.value.problems)


def test_tampered_share_param_never_escapes(exported):
    packed = L.to_query_params(S.parse_state(exported[2]))["s"]
    rng = random.Random(1)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for _ in range(200):
        i = rng.randrange(len(packed))
        try:
            L.from_query_params({"s": packed[:i] + rng.choice(alphabet) + packed[i + 1:]})
        except InputError:
            pass


def test_state_too_large_for_a_link_says_so(exported):
    state = S.parse_state(exported[2])
    rng = random.Random(2)
    noise = "\n".join(" ".join(f"w{rng.randrange(10**9)}" for _ in range(8)) + " | 0" for _ in range(400))
    big = state.model_copy(update={"sentences": noise})
    with pytest.raises(InputError) as info:
        L.to_query_params(big)
    assert info.value.problems[0].code == "share_too_large"


def test_weights_csv_is_exact(exported):
    _, lab, _ = exported
    lines = weights_csv(lab.recipe.vocab, lab.weight).decode("utf-8-sig").splitlines()
    assert lines[0] == "id,token,role,e0,e1,e2,e3" and lines[1].startswith('0,"<PAD>","pad",0.24')
    assert lines[7].startswith('6,"""인용""","normal",')
    back = torch.tensor([[float(x) for x in line.rsplit(",", 4)[1:]] for line in lines[1:]])
    assert bits_equal(back, lab.weight)
