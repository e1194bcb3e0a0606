"""Never a stale label (issue 25): every caption, count and selector shows the run it is drawn in."""

from __future__ import annotations

import re

import pytest

from tests.apptest_helpers import component_data, start

COUNTS = {"ko": re.compile(r"문장 (\d+)개"), "en": re.compile(r"(?<!≤ )\b(\d+) sentences")}  # not a limit ("≤ 512")
SHAPES = re.compile(r"\(B, T\) = \((\d+),")


def page_texts(at) -> list[str]:
    """Every text the page shows: labels, captions, Markdown, boxes, options, the stage's alt texts."""
    out = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title"):
        out += [str(e.value) for e in at.get(kind)]
    for kind in ("expander", "selectbox", "text_area", "button", "radio", "multiselect", "number_input",
                 "select_slider", "popover"):
        for e in at.get(kind):
            out.append(str(getattr(e, "label", "") or getattr(e.proto, "label", "")))
            out += [str(o) for o in (getattr(e, "options", None) or [])]
    for e in at.get("bidi_component"):
        data = component_data(e)
        out += [str(v) for v in (data.get("alt") or {}).values()]
    return out


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("section", ["lookup", "train"])
def test_after_a_sentence_is_added_every_label_counts_it_in_that_same_run(lang, section):
    at = start(lang)
    at.button_group(key="section").set_value(section).run()
    ex = at.session_state["_ws"]
    assert len(ex.recipe.sentences) == 2
    at.text_area(key="sentences").set_value(ex.text.rstrip("\n") + "\n영화 정말 나쁘다 | 부정").run()
    assert not at.exception and at.session_state["_ws"].lab.batch.ids.shape[0] == 3
    texts = page_texts(at)
    counts = [int(n) for text in texts for n in COUNTS[lang].findall(text)]
    shapes = [int(n) for text in texts for n in SHAPES.findall(text)]
    assert counts and set(counts) == {3}, [t for t in texts if COUNTS[lang].search(t)]
    if section == "lookup":
        assert shapes and set(shapes) == {3}, [t for t in texts if SHAPES.search(t)]
    (box,) = [e for e in at.expander if e.proto.id and "editors" in e.proto.id] or [at.expander[0]]
    assert COUNTS[lang].search(box.label).group(1) == "3"


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_after_a_preset_is_loaded_the_sentence_picker_names_its_sentences(lang):
    at = start(lang)
    at.selectbox(key="preset").set_value("reviews_en").run()
    at.button(key="load_preset").click().run()
    assert not at.exception
    ex = at.session_state["_ws"]
    assert ex.preset_id == "reviews_en"
    picker = at.selectbox(key="out_sentence")
    assert picker.options[0] == "b=0: " + " ".join(ex.lab.batch.tokens[0])
    assert all("영화" not in o for o in picker.options)
