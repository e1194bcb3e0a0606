"""The bulk path for large vocabularies (issue 17): a pasted or uploaded token list, parsed in core in
one pass, with every problem named by its line."""

from __future__ import annotations

import pytest

from core import limits
from core.batch import make_batch, parse_sentences
from core.problems import InputError
from core.vocab import Vocab
from support.labs import CHAPTER_ROWS, CHAPTER_TEXT, CLASSES


def codes_and_lines(text: str) -> list[tuple[str, int | None]]:
    with pytest.raises(InputError) as e:
        Vocab.from_token_list(text)
    return [(p.code, p.params.get("line")) for p in e.value.problems]


def test_a_list_with_roles_is_the_same_vocabulary_as_the_table():
    text = "\n".join(f"{tok} {role or 'normal'}" for tok, _, role in CHAPTER_ROWS)
    assert Vocab.from_token_list(text) == Vocab.from_rows(CHAPTER_ROWS)
    lines = parse_sentences(CHAPTER_TEXT, CLASSES)
    assert make_batch(Vocab.from_token_list(text), [l.tokens for l in lines]).ids.tolist() == [[2, 0, 3], [2, 4, 1]]


def test_a_plain_list_gets_unk_and_pad_first_and_ids_in_line_order():
    v = Vocab.from_token_list("영화\n\n좋다\r\n  나쁘다  \n")
    assert v.tokens == ("<UNK>", "<PAD>", "영화", "좋다", "나쁘다") and (v.unk_id, v.pad_id) == (0, 1)
    v = Vocab.from_token_list("영화\n<PAD>\n좋다")  # a <PAD> line keeps its place and takes the role
    assert v.tokens == ("<UNK>", "영화", "<PAD>", "좋다") and (v.unk_id, v.pad_id) == (0, 2)


def test_special_tokens_are_chosen_by_role_not_by_name():
    v = Vocab.from_token_list("[PAD]\tpad\n[UNK] unk\nword\n<UNK>")
    assert (v.pad_id, v.unk_id) == (0, 1) and v.tokens[3] == "<UNK>"  # a token named <UNK> is ordinary here


def test_problems_name_their_line():
    text = "a unk\nb pad\nc x y\nd weird\n\ne|f\na\n" + "z" * (limits.MAX_TOKEN_CHARS + 1) + "\ng\u200bh"
    assert codes_and_lines(text) == [("list_extra", 3), ("list_role_unknown", 4), ("list_token_bar", 6),
                                     ("list_token_too_long", 8), ("list_token_control", 9), ("list_duplicate", 7)]


def test_role_problems_of_a_marked_list():
    assert codes_and_lines("a unk\nb") == [("no_pad", None)]
    assert codes_and_lines("a unk\nb pad\nc pad") == [("many_pad", None)]
    assert codes_and_lines("") == [("vocab_empty", None)]


def test_a_list_of_100000_tokens_loads_and_one_more_is_refused():
    v = Vocab.from_token_list("\n".join(f"w{i}" for i in range(limits.MAX_VOCAB - 2)))
    assert v.size == limits.MAX_VOCAB and v.index["w99997"] == limits.MAX_VOCAB - 1
    assert codes_and_lines("\n".join(f"w{i}" for i in range(limits.MAX_VOCAB - 1))) == [("vocab_too_large", None)]


def test_sizes_are_bounded_before_parsing():
    assert codes_and_lines("a\n" * (limits.MAX_TOKEN_LIST_CHARS // 2 + 1)) == [("list_too_long", None)]
    with pytest.raises(InputError) as e:
        Vocab.from_token_list(b"a\nb")
    assert e.value.problems[0].code == "list_not_text"


def test_a_wrong_file_reports_a_bounded_number_of_problems():
    with pytest.raises(InputError) as e:
        Vocab.from_token_list("\n".join("a b c" for _ in range(50_000)))
    assert len(e.value.problems) <= 25


def test_the_loader_component_hands_back_the_pasted_list_only_when_asked():
    from streamlit.testing.v1 import AppTest

    def page():
        import streamlit as st

        from components.inputs import token_list_loader
        from core.vocab import Vocab

        got = token_list_loader("en", "list_text", "list_file", "list_load")
        if isinstance(got, str):
            st.session_state["loaded"] = Vocab.from_token_list(got).tokens

    at = AppTest.from_function(page, default_timeout=30).run()
    at.text_area(key="list_text").input("영화\n좋다").run()
    assert "loaded" not in at.session_state  # typing is not loading
    at.button(key="list_load").click().run()
    assert at.session_state["loaded"] == ("<UNK>", "<PAD>", "영화", "좋다") and not at.exception
