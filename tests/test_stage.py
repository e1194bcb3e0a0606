"""The stage through AppTest: its data reaches the page unchanged, its state reaches the app, and the data keeps the contract."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components.i18n import t
from support.stage_contract import TEXT_KEYS, contract_errors
from support.stage_sample import PAD, PAD_XY, sample_data
from tests.apptest_helpers import component_data

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "tests" / "e2e" / "stage_app.py")


def stage_elements(at: AppTest) -> list:
    return [e for e in at.main if type(e).__name__ == "UnknownElement" and e.type == "bidi_component"]


def stage_data(at: AppTest) -> dict:
    (el,) = stage_elements(at)
    assert el.proto.component_name == "embedding_stage"
    return component_data(el)


@pytest.fixture
def at():
    app = AppTest.from_file(APP, default_timeout=30)
    app.run()
    assert not app.exception
    return app


def test_the_stage_gets_exactly_the_data_the_app_gave(at):
    assert stage_data(at) == sample_data(0, height=540)


def test_a_new_step_sends_new_data_to_the_same_element(at):
    (before,) = stage_elements(at)
    at.button(key="next").click().run()
    (after,) = stage_elements(at)
    data = component_data(after)
    assert data == sample_data(1, height=540)
    assert data["scatter"]["step"] == 1 and data != component_data(before)
    assert after.proto.id == before.proto.id  # same key → same element id: the browser keeps its node and animates


def test_state_set_before_run_is_seen_by_the_app(at):
    at.session_state["stage"] = {"selected": 3}
    at.run()
    assert not at.exception
    assert at.caption[0].value.startswith("selected=3 ")
    assert stage_data(at)["selected"] == 3  # and the app draws what it saw


def test_no_state_before_any_click(at):
    assert at.caption[0].value.startswith("selected=None ")


@pytest.mark.parametrize("query", [{"lang": "en"}, {"mode": "lookup"}, {"n": "150", "e": "8"}, {"play": "1"}])
def test_variants_reach_the_page_and_keep_the_contract(query):
    app = AppTest.from_file(APP, default_timeout=30)
    for k, v in query.items():
        app.query_params[k] = v
    app.run()
    assert not app.exception
    data = stage_data(app)
    assert contract_errors(data) == []
    assert data["lang"] == query.get("lang", "ko") and data["mode"] == query.get("mode", "train")


def test_sample_pad_row_is_still_and_zero_while_tokens_move():
    a, b = sample_data(3, n=30), sample_data(4, n=30)
    i = a["scatter"]["ids"].index(PAD)
    assert (a["scatter"]["x"][i], a["scatter"]["y"][i]) == (b["scatter"]["x"][i], b["scatter"]["y"][i]) == PAD_XY
    assert a["w"]["values"][a["w"]["rows"].index(PAD)] == [0.0] * 4
    moved = [j for j in range(30) if (a["scatter"]["x"][j], a["scatter"]["y"][j]) != (b["scatter"]["x"][j], b["scatter"]["y"][j])]
    assert moved and PAD not in moved


def test_contract_checker_catches_broken_data():
    good = sample_data(2, mode="lookup")
    assert contract_errors(good) == []
    cases = {
        "scatter.x": lambda d: d["scatter"]["x"].pop(),
        "scatter.role": lambda d: d["scatter"].__setitem__("role", ["pad"] + ["bogus"] * (len(d["scatter"]["ids"]) - 1)),
        "scatter.range": lambda d: d["scatter"].__setitem__("range", [[1, 0], [0, 1]]),
        "w.values": lambda d: d["w"]["values"].append([1.0] * 4),
        "text['loss']": lambda d: d["text"].pop("loss"),
        "out.values": lambda d: d["out"]["values"].pop(),
        "mode": lambda d: d.__setitem__("mode", "both"),
        "neighbours": lambda d: d.__setitem__("neighbours", {"of": 2, "ids": [3, 4], "cos": [0.5]}),
    }
    for needle, breaker in cases.items():
        bad = copy.deepcopy(good)
        breaker(bad)
        errs = contract_errors(bad)
        assert any(needle in e for e in errs), (needle, errs)
    nan = copy.deepcopy(good)
    nan["scatter"]["x"][0] = float("nan")
    assert contract_errors(nan)


def test_every_stage_word_exists_in_both_languages():
    for lang in ("ko", "en"):
        text = sample_data(0, lang=lang)["text"]
        assert set(text) == set(TEXT_KEYS)
        for k in TEXT_KEYS:
            assert text[k] == t(lang, f"stage.{k}") and not text[k].startswith("[")


def test_the_stage_never_writes_html_from_data():
    """Tokens are typed by learners and imported from files: the JS sets text, never markup."""
    from components.stage import JS as js  # the module the page gets: every js/*.mjs it imports

    assert len(js) > 10_000 and "export default function" in js
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in js, sink
    assert "http://" not in js.replace("http://www.w3.org/2000/svg", "") and "https://" not in js  # nothing from a CDN
