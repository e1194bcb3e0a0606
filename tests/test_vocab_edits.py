"""The vocabulary editor's edits (issue 37): a crafted editor state is refused before Streamlit or
pandas reads it and the session goes on; an id is read from exactly what was typed; messages name
rows and roles as the table shows them."""

from __future__ import annotations

import pytest

from components.i18n import problem_text, t
from core.problems import InputError, Problem
from core.vocab import Vocab
from session import editor
from tests.apptest_helpers import errors, id_matrix, shown, start

CHAPTER = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("영화", 2, ""), ("좋다", 3, ""), ("나쁘다", 4, ""), ("재미있다", 5, "")]


def problems_of(rows, names=None) -> list[Problem]:
    with pytest.raises(InputError) as e:
        Vocab.from_rows(rows, names)
    return e.value.problems


def with_id(row: int, value) -> list[tuple]:
    """The chapter's table with the id of row ``row`` (0-based) replaced by ``value``."""
    return [(tok, value if r == row else i, role) for r, (tok, i, role) in enumerate(CHAPTER)]


# ---- a crafted editor state (defect 10) ------------------------------------------------------
CRAFTED = {
    "edited row past the table": {"edited_rows": {"9": {"id": 1}}, "added_rows": [], "deleted_rows": []},
    "out-of-table edit with deletions": {"edited_rows": {"7": {"token": "x"}}, "added_rows": [], "deleted_rows": [0]},
    "deletion past the table": {"edited_rows": {}, "added_rows": [], "deleted_rows": [6]},
    "deletion given as text": {"edited_rows": {}, "added_rows": [], "deleted_rows": ["0"]},
    "a column the table lacks": {"edited_rows": {"2": {"colour": "red"}}, "added_rows": [], "deleted_rows": []},
    "a row number edited in place": {"edited_rows": {"2": {"_index": 99}}, "added_rows": [], "deleted_rows": []},
    "a row key that is not a number": {"edited_rows": {"two": {"token": "x"}}, "added_rows": [], "deleted_rows": []},
    "a value that is a list": {"edited_rows": {"2": {"token": ["a", "b"]}}, "added_rows": [], "deleted_rows": []},
    "an added row that is not a row": {"edited_rows": {}, "added_rows": ["x"], "deleted_rows": []},
    "an id thousands of digits long": {"edited_rows": {"2": {"id": 10 ** 1000}}, "added_rows": [], "deleted_rows": []},
    "an id as text too long to be one": {"edited_rows": {"2": {"id": "1" * 100}}, "added_rows": [], "deleted_rows": []},
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_a_crafted_editor_state_is_refused_with_the_editors_message_and_the_session_goes_on(name):
    at = start("en")
    before = at.session_state["_ws"].vocab
    at.session_state["vocab"] = CRAFTED[name]
    for _ in range(2):  # the run that refuses it, and the next: nothing of it is left to fail on
        at.run()
        assert not at.exception, at.exception
        assert at.text_area(key="sentences").value  # the page is still drawn below the table
        assert at.session_state["_ws"].vocab == before
        assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]
    at.session_state["vocab"] = CRAFTED[name]
    at.run()
    assert any(t("en", "err.vocab_edit_invalid") in shown(e) for e in errors(at)), errors(at)


@pytest.mark.parametrize("value", [2 ** 63, 1e21, 1e300, 99999999999999999999, "1e21", "1e300",
                                   "99999999999999999999", "9223372036854775808", "-1", "6"])
def test_an_id_outside_the_table_gets_the_range_message_whatever_its_size(value):
    at = start("ko")
    at.session_state["vocab"] = {"edited_rows": {"3": {"id": value}}, "added_rows": [], "deleted_rows": []}
    for _ in range(2):
        at.run()
        assert not at.exception, at.exception
        assert at.text_area(key="sentences").value
    text = " ".join(shown(e) for e in errors(at))
    assert "4행의 번호" in text and "범위를 벗어났습니다" in text and "0부터 5까지" in text, text
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]


@pytest.mark.parametrize("pending,code", [
    ({"edited_rows": {"5": {"id": "7"}}}, None),
    ({"edited_rows": {"6": {"id": "7"}}}, "vocab_edit_invalid"),
    ({"edited_rows": {5: {"token": "x" * 64}}}, None),
    ({"edited_rows": {5: {"token": "x" * 65}}}, "vocab_edit_invalid"),
    ({"deleted_rows": [0, 0]}, "vocab_edit_invalid"),
    ({"deleted_rows": [True]}, "vocab_edit_invalid"),
    ({"deleted_rows": [5], "added_rows": [{"token": "a", "id": "5", "role": "normal", "_index": None}]}, None),
    ({"added_rows": [{"token": {"a": 1}}]}, "vocab_edit_invalid"),
    ({"edited_rows": {"1": {"id": 2 ** 200}}}, "vocab_edit_invalid"),
])
def test_edits_are_judged_entry_by_entry_against_the_table(pending, code):
    problem = editor.edit_problem(pending, 6)
    assert (problem.code if problem else None) == code


# ---- ids read from what was typed (defect 4) ------------------------------------------------
@pytest.mark.parametrize("typed,code,quoted", [
    ("2.5", "id_not_integer", "2.5"), ("abc", "id_not_integer", "abc"), ("2,5", "id_not_integer", "2,5"),
    ("nan", "id_not_integer", "nan"), ("inf", "id_not_integer", "inf"), ("1e-3", "id_not_integer", "1e-3"),
    ("３", "id_not_integer", "３"), ("1_0", "id_not_integer", "1_0"), (2.5, "id_not_integer", "2.5"),
    ("", "id_empty", None), ("   ", "id_empty", None), (None, "id_empty", None), (float("nan"), "id_empty", None),
])
def test_an_id_that_is_not_a_whole_number_is_refused_quoting_what_was_typed(typed, code, quoted):
    (problem,) = [p for p in problems_of(with_id(2, typed)) if p.code.startswith("id_")][:1]
    assert problem.code == code and problem.params["row"] == 3
    for lang in ("ko", "en"):
        text = problem_text(lang, problem)
        if quoted is not None:
            assert (f"‘{quoted}’" if lang == "ko" else f"'{quoted}'") in shown(text), text
        else:
            assert "''" not in text and "‘’" not in text and ("비어 있습니다" in text or "empty" in text), text


@pytest.mark.parametrize("typed", ["2", " 2 ", "+2", "2.0", "2e0", "0.2e1", 2, 2.0])
def test_a_whole_number_is_an_id_however_it_is_written(typed):
    assert Vocab.from_rows(with_id(2, typed)).tokens == tuple(tok for tok, _, _ in CHAPTER)


def test_a_non_integer_id_stays_in_its_cell_and_the_message_quotes_it():
    at = start("ko")
    at.session_state["vocab"] = {"edited_rows": {"2": {"id": "2.5"}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    text = " ".join(shown(e) for e in errors(at))
    assert "3행의 번호가 정수가 아닙니다(‘2.5’)" in text and "25" not in text, text
    assert at.session_state["vocab"]["edited_rows"] in ({"2": {"id": "2.5"}}, {2: {"id": "2.5"}})  # what was typed is kept
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]


# ---- rows and roles named as the table shows them (defect 6) --------------------------------
def test_after_a_deletion_a_problem_names_the_row_by_the_tables_number():
    at = start("ko")
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": [], "deleted_rows": [1]}  # the PAD row deleted
    at.run()
    assert not at.exception
    text = " ".join(shown(e) for e in errors(at))
    assert "6행의 번호 5" in text and "5행" not in text, text  # the table's # column still says 6 for 재미있다's row
    assert "역할 열에서 <PAD>로 정하세요" in text and "pad로" not in text, text


def test_names_follow_the_rows_through_duplicates():
    rows = [("<UNK>", 0, "unk"), ("영화", 1, "pad"), ("영화", 2, "")]
    (dup,) = [p for p in problems_of(rows, names=[1, 3, 9]) if p.code == "duplicate_token"]
    assert (dup.params["row"], dup.params["other"]) == (9, 3)


@pytest.mark.parametrize("code", ["no_unk", "no_pad", "many_unk", "many_pad", "role_unknown"])
def test_role_messages_name_roles_as_the_role_column_shows_them(code):
    ko = t("ko", f"err.{code}", tokens="a, b", row=2, value="x")
    en = t("en", f"err.{code}", tokens="a, b", row=2, value="x")
    for text, lang in ((ko, "ko"), (en, "en")):
        for role in ("unk", "pad"):
            assert f" {role} " not in f" {text} ".replace(",", " ").replace(".", " ").replace(":", " ")
        assert "<UNK>" in text or "<PAD>" in text
    assert t("ko", "vocab.role.pad") in t("ko", "err.no_pad") and t("en", "vocab.role.unk") in t("en", "err.no_unk")
