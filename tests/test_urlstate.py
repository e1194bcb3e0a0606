"""The address bar is the state: a URL opens the view, language, example and knobs it names, the page
writes them back, bad values are named and left out, and a share link (``?s=…``) still opens first.

Answer keys: the embedding table a URL's example and knobs must give is built fresh in torch
(``nn.Embedding`` after ``torch.manual_seed``, the chapter's own recipe); a share link's weights are
a fresh replay of its recipe. Back/Forward need a browser: tests/e2e/test_urlstate.py.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings, strategies as st
from streamlit.testing.v1 import AppTest

from assets import presets
from core import limits
from core.explorer import Explorer
from core.knobs import KNOBS, OPTIMIZERS, TOKENIZERS
from core.model import POOLINGS
from core.problems import Problem
from core.share_link import to_query_params
from core.state import parse_state
from core.training import replay
from core.knobs import knob
from core.url_state import NAMES, SECTIONS, exact_float, read, single, write
from tests.apptest_helpers import APP, errors, shown, start
from tests.test_app_state import trained_state

CHOICES = {"section": SECTIONS, "lang": ("ko", "en"), "preset": presets.ORDER}


def open_address(params: dict) -> AppTest:
    """A fresh session opened at ``?params`` (what a browser does with a pasted address)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    return at.run()


def fresh_table(preset_id: str, dim: int, seed: int) -> torch.Tensor:
    """The table a preset's vocabulary gets with E=dim and this seed, the chapter's way: the global
    generator seeded, then nn.Embedding with padding_idx (its PAD row zeroed)."""
    vocab = presets.load(preset_id)["vocab"]
    pad = next(i for _, i, role in vocab if role == "pad")
    torch.manual_seed(seed)
    return torch.nn.Embedding(len(vocab), dim, padding_idx=pad).weight.detach()


def address_box(at: AppTest) -> str:
    (box,) = [w.value for w in at.warning if "`" in w.value and "URL" in w.value]
    return box


# ---- core: the address as data ---------------------------------------------------------------

knob_values = st.fixed_dictionaries({
    "embedding_dim": st.integers(1, limits.MAX_EMBEDDING_DIM),
    "seed": st.integers(0, limits.MAX_SEED),
    "fixed_len": st.none() | st.integers(1, limits.MAX_TOKENS_PER_SENTENCE),
    "pooling": st.sampled_from(POOLINGS),
    "optimizer": st.sampled_from(OPTIMIZERS),
    "lr": st.floats(0, limits.MAX_LR, exclude_min=True, allow_subnormal=False),  # a knob refuses subnormals
    "weight_decay": st.floats(0, limits.MAX_WEIGHT_DECAY, allow_subnormal=False),
    "batch_size": st.integers(0, limits.MAX_SENTENCES),
    "tokenizer": st.sampled_from(TOKENIZERS),
    "subword_vocab": st.integers(10, 10_000),
    "vocab_min_count": st.integers(1, 1000),
    "vocab_max_size": st.integers(3, limits.MAX_VOCAB),
})


@settings(max_examples=200, deadline=None)
@given(knobs=knob_values, section=st.sampled_from(SECTIONS), lang=st.sampled_from(("ko", "en")),
       preset=st.none() | st.sampled_from(presets.ORDER), present=st.booleans())
def test_written_addresses_read_back_to_the_same_values_bitwise(knobs, section, lang, preset, present):
    params = write({"section": section, "lang": lang, "preset": preset, "present": present}, knobs)
    assert ("present" in params) == present  # an address written while not presenting stays as it was
    assert set(params) <= set(NAMES)
    values, problems = read(params, {}, CHOICES)
    assert problems == []
    assert values.pop("pad_mode") == ("longest" if knobs["fixed_len"] is None else "fixed")
    if knobs["fixed_len"] is None:
        assert "fixed_len" not in values
        values["fixed_len"] = None
    expected = {**knobs, "section": section, "lang": lang, **({"preset": preset} if preset else {}),
                **({"present": True} if present else {})}
    assert values == expected
    for name in ("lr", "weight_decay"):  # floats bitwise, not just equal
        assert math.copysign(1, values[name]) == math.copysign(1, knobs[name]) and values[name].hex() == knobs[name].hex()


@pytest.mark.parametrize("name, text", [
    ("lr", "abc"), ("lr", "nan"), ("lr", "inf"), ("lr", "0"), ("lr", "-1"), ("lr", "1e9"), ("lr", ""),
    ("weight_decay", "-0.5"), ("embedding_dim", "1e9"), ("embedding_dim", "2.5"), ("embedding_dim", "0"),
    ("embedding_dim", str(limits.MAX_EMBEDDING_DIM + 1)), ("seed", "-1"), ("seed", "0x10"), ("batch_size", "all"),
    ("fixed_len", "longest"), ("pooling", "max"), ("optimizer", "ADAM"), ("section", "evil"), ("lang", "xx"),
    ("preset", "../../etc/passwd"), ("pad_mode", "shortest"), ("lang", "<script>alert(1)</script>"),
    ("present", "yes"), ("present", "true"), ("present", ""),
])
def test_a_value_the_app_cannot_use_is_named_with_the_value_kept(name, text):
    good = {"lang": "en"} if name != "lang" else {"section": "train"}
    values, problems = read({name: text, **good}, {name: "KEPT"}, CHOICES)
    assert values == good  # the good value next to it still counts
    (p,) = problems
    assert p.code == "url_param" and p.params["name"] == name and p.params["value"] == text
    assert p.params["kept"] == "KEPT" and isinstance(p.params["reason"], Problem)


@pytest.mark.parametrize("text", [
    "0.0_5", "1_0", "\u0661", "\u0665.0", "\uff11", " 1", "1 ", "\t1", "\u30001", "inf", "-inf", "infinity", "nan", "NaN",
    "0x1p-3", "1e", "e5", ".", "+", "1.2.3", "1,5", "1e5.0", "--1", "½", "1\u200b",
])
def test_a_float_is_read_only_in_the_plain_ascii_decimal_grammar(text):
    problem = exact_float(text, "lr")
    assert isinstance(problem, Problem) and problem.code == "url_float_syntax" and problem.params["value"] == text
    values, (p,) = read({"lr": text}, {"lr": 0.1}, CHOICES)
    assert values == {} and p.params["reason"].code == "url_float_syntax" and p.params["param"] == f"lr={text}"


@pytest.mark.parametrize("text, value", [("0.05", 0.05), ("-1E-3", -0.001), (".5", 0.5), ("5.", 5.0), ("+2.5e+1", 25.0),
                                         ("0", 0.0), ("0e-400", 0.0), ("0.000", 0.0), ("1e-300", 1e-300),
                                         ("2.2250738585072014e-308", 2.2250738585072014e-308), ("1e400", math.inf)])
def test_plain_decimals_read_as_python_reads_them(text, value):
    assert exact_float(text, "lr") == value  # 1e400 is finite text for an infinite value: the knob refuses it


@pytest.mark.parametrize("text", ["1e-400", "-1e-400", "0.1e-323", "5e-324", "1e-310", "2.225073858507201e-308"])
def test_a_nonzero_value_too_small_for_a_float64_is_refused_not_read_as_zero(text):
    assert float(text) == 0.0 or abs(float(text)) < 2.2250738585072014e-308  # what float() would have done in silence
    problem = exact_float(text, "weight_decay")
    assert problem.code == "url_float_underflow" and problem.params["value"] == text
    values, (p,) = read({"weight_decay": text}, {"weight_decay": 0.0}, CHOICES)
    assert values == {} and p.params["reason"] == problem and p.params["kept"] == "0.0"


def test_a_knob_refuses_a_subnormal_float_from_any_source():
    for name, value in (("lr", 5e-324), ("weight_decay", 1e-310)):
        p = knob(name).check(value)
        assert p.code == "float_tiny" and p.params["value"] == repr(value)
    assert knob("weight_decay").check(0.0) is None and knob("lr").check(2.2250738585072014e-308) is None


def test_an_int_is_read_only_in_ascii_digits():
    for text in (" 7", "7 ", "\u0667", "7\u200b", "0x10", "1_0"):
        values, (p,) = read({"seed": text}, {"seed": 0}, CHOICES)
        assert values == {} and p.params["reason"].code == "int_not_number", text
    assert read({"seed": "+7"}, {}, CHOICES)[0] == {"seed": 7}


@pytest.mark.parametrize("name, texts", [("lr", ["1", "2"]), ("lr", ["0.1", "0.1"]), ("section", ["train", "share"]),
                                         ("pad_mode", ["fixed", "longest", "fixed"]), ("preset", ["chapter", "reviews_en"])])
def test_a_repeated_parameter_is_named_with_every_value_and_none_applied(name, texts):
    values, (p,) = read({name: texts, "seed": "3"}, {name: "KEPT"}, CHOICES)
    assert values == {"seed": 3}  # the parameter next to it still counts
    assert p.code == "url_param" and p.params["param"] == "&".join(f"{name}={t}" for t in texts)
    reason = p.params["reason"]
    assert reason.code == "url_repeated" and reason.params["n"] == len(texts) and reason.params["values"] == ", ".join(texts)
    assert p.params["kept"] == "KEPT"
    assert single({name: texts, "seed": ["3"], "x": "y"}) == {"seed": "3", "x": "y"}


def test_a_huge_value_is_refused_and_shown_cut_short():
    for name in ("lr", "seed", "section"):
        values, (p,) = read({name: "9" * 500_000}, {}, CHOICES)
        assert values == {} and len(p.params["value"]) == 41 and p.params["value"].endswith("…")


def test_parameters_the_address_does_not_own_are_left_alone():
    values, problems = read({"s": "eNo…", "utm_source": "x", "embed": "true"}, {}, CHOICES)
    assert values == {} and problems == []


def test_every_parameter_is_a_widget_key_and_every_knob_a_parameter():
    import session

    keys = {v for k, v in vars(session.Keys).items() if k.isupper()}
    assert set(NAMES) <= keys
    assert {k.name for k in KNOBS} <= set(NAMES)


# ---- the running app (AppTest) ----------------------------------------------------------------

def test_an_address_opens_exactly_its_view_language_example_and_knobs():
    at = open_address({"section": "train", "lang": "en", "preset": "reviews_en", "embedding_dim": "4",
                       "seed": "7", "optimizer": "sgd", "lr": "0.25", "pad_mode": "fixed", "fixed_len": "5"})
    assert not at.exception and not errors(at) and not at.warning
    assert at.button_group(key="section").value == "train"
    assert at.radio(key="lang").value == "en"
    assert at.selectbox(key="preset").value == "reviews_en"
    at.session_state["knobs"] = True  # open the training bar's settings: they show the address's knobs
    at.run()
    assert at.number_input(key="lr").value == 0.25 and at.selectbox(key="optimizer").value == "sgd"
    assert at.radio(key="pad_mode").value == "fixed" and at.number_input(key="fixed_len").value == 5
    ex = at.session_state["_ws"]
    assert ex.preset_id == "reviews_en" and ex.text == presets.load("reviews_en")["sentences"]
    assert ex.config.optimizer == "sgd" and ex.config.lr == 0.25 and ex.lab.batch.ids.shape[1] == 5
    assert torch.equal(ex.lab.weight.detach(), fresh_table("reviews_en", 4, 7))
    assert at.button(key="step").label  # the training view is the one drawn
    assert at.query_params["section"] == "train" and at.query_params["lr"] == "0.25"


def test_the_address_follows_the_page_and_a_copy_reopens_it():
    at = start("en")
    assert at.query_params["section"] == "lookup" and at.query_params["lang"] == "en"
    assert at.query_params["preset"] == "chapter"
    at.button_group(key="section").set_value("lessons").run()
    at.number_input(key="seed").set_value(3).run()
    at.radio(key="lang").set_value("ko").run()
    at.selectbox(key="pooling").set_value("mean").run()
    copied = dict(at.query_params)
    assert copied["section"] == "lessons" and copied["seed"] == "3" and copied["lang"] == "ko"
    assert copied["pooling"] == "mean"
    again = open_address(copied)
    assert not again.exception and not again.warning
    assert again.button_group(key="section").value == "lessons" and again.radio(key="lang").value == "ko"
    assert again.session_state["_ws"].config_values() == at.session_state["_ws"].config_values()
    assert torch.equal(again.session_state["_ws"].lab.weight.detach(), fresh_table("chapter", 3, 3))
    assert dict(again.query_params) == copied  # opening it changes nothing in it


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_an_address_opens_presenting_and_the_address_follows_the_toggle(lang):
    at = open_address({"lang": lang, "section": "train", "present": "1"})
    assert not at.exception and not errors(at) and not at.warning
    assert at.toggle(key="present").value is True and at.query_params["present"] == "1"
    at.toggle(key="present").set_value(False).run()
    assert "present" not in at.query_params  # off: the address as it was before presentation mode
    at.toggle(key="present").set_value(True).run()
    assert at.query_params["present"] == "1"
    assert open_address({"lang": lang, "present": "0"}).toggle(key="present").value is False
    bare = start(lang)
    assert bare.toggle(key="present").value is False and "present" not in bare.query_params
    refused = address_box(open_address({"lang": lang, "present": "yes"}))  # named with what 0 means
    shown = refused.replace(":color[]", "").replace("\\", "")  # the escaped text as the page draws it
    assert "`present=yes`" in refused and {"ko": "지금 값 0(발표 모드 꺼짐)을", "en": "keeps 0 (presentation mode off)"}[lang] in shown, refused


def test_a_refused_typed_value_leaves_the_valid_one_in_the_address():
    at = start("en")
    at.number_input(key="lr").set_value(-1.0).run()
    assert errors(at)  # the config box says why; the typed value stays in its widget
    assert at.query_params["lr"] == repr(float(presets.load("chapter")["config"]["lr"]))  # the state in effect


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_bad_values_in_an_address_are_named_in_the_page_language_and_a_valid_page_opens(lang):
    at = open_address({"lang": lang, "section": "evil", "lr": "abc", "embedding_dim": "1e9",
                       "optimizer": "<b>x</b>", "seed": "4"})
    assert not at.exception and not errors(at)
    box = address_box(at)
    for shown in ("`section=evil`", "`lr=abc`", "`embedding_dim=1e9`", "`optimizer=<b>x</b>`"):
        assert shown in box
    assert ("지금 값" in box) == (lang == "ko") and ("keeps" in box) == (lang == "en")
    assert at.button_group(key="section").value == "lookup"  # each bad value left as it was …
    ex, chapter = at.session_state["_ws"], presets.load("chapter")["config"]
    assert (ex.config.lr, ex.config.embedding_dim, ex.config.optimizer) == (chapter["lr"], 3, chapter["optimizer"])
    assert at.number_input(key="lr").value == chapter["lr"] and at.number_input(key="embedding_dim").value == 3
    assert ex.config.seed == 4  # … and the good one next to them applied
    assert torch.equal(ex.lab.weight.detach(), fresh_table("chapter", 3, 4))
    assert at.query_params["lr"] == repr(float(chapter["lr"])) and at.query_params["section"] == "lookup"  # valid again
    at.run()
    assert not at.warning and at.session_state["_ws"].config.seed == 4  # said once; the page stays


def test_a_share_link_opens_first_and_the_other_parameters_apply_on_top():
    data, w = trained_state()
    params = {**to_query_params(parse_state(data)), "preset": "reviews_ko", "section": "train"}
    at = open_address(params)
    assert not at.exception and not errors(at) and not at.warning
    lab = at.session_state["_ws"].lab
    assert lab.steps == 11 and torch.equal(lab.weight.detach(), w)  # the link's lab, not the preset's
    assert torch.equal(replay(lab.recipe, 11, lab.pad_edits).weight.detach(), w)
    assert at.button_group(key="section").value == "train"
    assert at.query_params["s"] == params["s"] and "preset" not in at.query_params
    assert at.query_params["lr"] == "0.2" and at.query_params["optimizer"] == "momentum"  # the link's knobs
    reopened = open_address(dict(at.query_params))  # the address written after opening reopens the same
    assert torch.equal(reopened.session_state["_ws"].lab.weight.detach(), w)
    at.selectbox(key="preset").set_value("chapter").run()
    at.button(key="load_preset").click().run()  # the link's lab is gone: so is the link
    assert "s" not in at.query_params and at.query_params["preset"] == "chapter"


def test_a_bad_value_next_to_a_share_link_names_what_the_link_opened():
    data, w = trained_state()  # a link in English, with lr 0.2
    at = open_address({**to_query_params(parse_state(data)), "lang": "xx", "lr": "abc"})
    box = shown(address_box(at))
    assert "The page keeps en." in box and "The page keeps 0.2." in box  # the link's values, in its language
    assert torch.equal(at.session_state["_ws"].lab.weight.detach(), w)


def test_a_tampered_link_next_to_good_parameters_says_why_and_leaves_the_address():
    at = open_address({"s": "not-a-valid-state", "section": "share"})
    assert not at.exception and errors(at)
    assert at.button_group(key="section").value == "share"
    assert "s" not in at.query_params


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("params, name, reason", [
    ({"lr": "0.0_5"}, "lr", "url_float_syntax"), ({"lr": "\u0661"}, "lr", "url_float_syntax"),
    ({"weight_decay": "1e-400"}, "weight_decay", "url_float_underflow"), ({"lr": ["1", "2"]}, "lr", "url_repeated"),
])
def test_a_coerced_value_in_an_address_gets_a_message_naming_it_and_its_fix(lang, params, name, reason):
    from components.i18n import fill, strings

    at = open_address({**params, "lang": lang})
    assert not at.exception and not errors(at)
    box = shown(address_box(at))
    values = params[name] if isinstance(params[name], list) else [params[name]]
    assert "`" + "&".join(f"{name}={v}" for v in values) + "`" in box  # the parameter and its value(s)
    why = fill(strings()[f"err.{reason}"][lang], name=name, value=values[0], n=len(values), values=", ".join(values),
               min="2.2e-308")
    assert why in box  # why, and what to write instead (every such message ends with its fix)
    assert ("지금 값" in box) == (lang == "ko")
    ex = at.session_state["_ws"]
    default = Explorer.from_preset(presets.load(presets.DEFAULT)).config  # nothing coerced: the example's knobs stand
    assert ex.config.lr == default.lr and ex.config.weight_decay == default.weight_decay
    assert at.query_params["lr"] == str(default.lr) and at.query_params["weight_decay"] == str(default.weight_decay)


def test_a_repeated_share_link_is_refused_with_a_message_and_the_default_example_opens():
    data, _ = trained_state()
    s = to_query_params(parse_state(data))["s"]
    at = open_address({"s": [s, s], "lang": "en"})
    assert not at.exception
    (box,) = errors(at)
    assert "2 times" in box and at.session_state["_ws"].lab.steps == 0
    assert "s" not in at.query_params
