"""Tokens that show as nothing (issue 26): a token made only of zero-width, format, filler or
blank characters (U+200D, U+3164, …) is refused with a message naming its row or line and its
code points, in the vocabulary table, a token list, the sentences and an imported file's classes.

Answer key for what is blank: Unicode's Default_Ignorable_Code_Point as the ``regex`` package
knows it, compared for every code point; and by hand for the characters the issue names.
"""

from __future__ import annotations

import pytest

from components.i18n import problem_text
from core.batch import parse_sentences
from core.invisible import code_points, ignorable, invisible_only
from core.problems import InputError
from core.vocab import Vocab
from tests.apptest_helpers import errors, shown, start
from support.labs import CHAPTER_ROWS, CLASSES

BLANK = ["\u200d", "\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u00ad", "\u034f", "\u180e", "\u200b", "\u2060",
         "\ufeff", "\ufe0f", "\U000e0020", "\u200d\u3164", "\u3164\u3164", "\u2800\u200d"]
VISIBLE = ["영화", "a", "👍🏽", "👨\u200d👩\u200d👧", "a\u200d", "\u3164a", "ㅤ영화".replace("ㅤ", "\u3164"), "·", "_", "\u0301"]


def problems_of(call, *args):
    with pytest.raises(InputError) as e:
        call(*args)
    return [(p.code, p.params) for p in e.value.problems]


def test_default_ignorable_matches_unicode_for_every_code_point():
    regex = pytest.importorskip("regex")
    prop = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    wrong = [hex(cp) for cp in range(0x110000) if (0xD800 <= cp <= 0xDFFF) is False
             and ignorable(chr(cp)) != bool(prop.match(chr(cp)))]
    assert wrong == []


@pytest.mark.parametrize("tok", BLANK)
def test_a_token_of_blank_characters_only_is_invisible(tok):
    assert invisible_only(tok)


@pytest.mark.parametrize("tok", VISIBLE)
def test_a_token_with_anything_visible_is_not(tok):
    assert not invisible_only(tok)


def test_code_points_name_each_character_once():
    assert code_points("\u3164") == "U+3164" and code_points("\u200d\u3164\u200d") == "U+200D, U+3164"
    assert code_points("\U000e0020\u200b\u2060\ufeff\u00ad") == "U+E0020, U+200B, U+2060, U+FEFF, …"


@pytest.mark.parametrize("tok", ["\u200d", "\u3164", "\u2800\u200d"])
def test_the_table_refuses_an_invisible_token_naming_its_row(tok):
    rows = CHAPTER_ROWS + [(tok, 6, ""), ("새말", 7, "")]
    assert problems_of(Vocab.from_rows, rows) == [("token_invisible", {"row": 7, "codes": code_points(tok)})]


def test_a_token_list_refuses_an_invisible_line_naming_it():
    assert problems_of(Vocab.from_token_list, "영화\n\u3164\n좋다\n\u200d") == [
        ("list_token_invisible", {"line": 2, "codes": "U+3164"}), ("list_token_invisible", {"line": 4, "codes": "U+200D"})]


def test_a_sentence_with_an_invisible_token_is_refused_naming_its_line():
    text = "영화 정말 좋다 | 긍정\n영화 \u3164 나쁘다 | 부정\n영화 \u200d | 부정"
    assert problems_of(parse_sentences, text, CLASSES) == [("line_token_invisible", {"line": 2, "codes": "U+3164"}),
                                                          ("line_token_invisible", {"line": 3, "codes": "U+200D"})]
    assert parse_sentences("영화 👨\u200d👩\u200d👧 | 긍정", CLASSES)[0].tokens[1] == "👨\u200d👩\u200d👧"  # a joined emoji is visible


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_message_names_the_row_and_the_code_points_in_both_languages(lang):
    rows = CHAPTER_ROWS + [("\u3164", 6, "")]
    with pytest.raises(InputError) as e:
        Vocab.from_rows(rows)
    text = shown(problem_text(lang, e.value.problems[0]))
    assert "7" in text and "U+3164" in text and ("행" in text) == (lang == "ko") and ("Row 7" in text) == (lang == "en")


def test_an_imported_class_name_of_invisible_characters_is_refused():
    from core.state import _class_problems

    assert [p.code for p in _class_problems(["부정", "\u3164"])] == ["import_class_name"]
    assert _class_problems(["부정", "긍정"]) == []


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_page_refuses_an_invisible_token_typed_in_the_table_and_keeps_the_vocabulary(lang):
    at = start(lang)
    before = at.session_state["_ws"].vocab
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": [{"token": "\u3164", "id": 6, "role": "normal"}],
                                 "deleted_rows": []}
    at.run()
    assert not at.exception
    shown_errors = [shown(e) for e in errors(at)]
    assert any("U+3164" in e and "7" in e for e in shown_errors), shown_errors
    assert at.session_state["_ws"].vocab == before


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_page_refuses_an_invisible_token_in_a_sentence_and_keeps_the_text(lang):
    at = start(lang)
    text = "영화 정말 좋다 | 긍정\n영화 \u200d 나쁘다 | 부정"
    at.text_area(key="sentences").set_value(text).run()
    assert not at.exception
    assert any("U+200D" in shown(e) and "2" in shown(e) for e in errors(at)), errors(at)
    assert at.text_area(key="sentences").value == text  # what the learner typed stays
