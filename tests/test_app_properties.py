"""Arbitrary inputs thrown at the running app through AppTest: nothing reaches the page as an exception,
every invalid input is explained, and the last valid state keeps driving the page."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings, strategies as st

from core.batch import parse_sentences
from core.problems import InputError
from core.vocab import Vocab
from tests.apptest_helpers import errors, id_matrix, start

EXAMPLES = int(os.environ.get("HYPOTHESIS_APP_EXAMPLES", "25"))
chars = st.characters(codec="utf-8", exclude_categories=("Cs",))
texts = st.one_of(st.text(chars, max_size=80),
                  st.lists(st.sampled_from(["영화", "좋다", "정말", "😀", "|", "| 긍정", "| 9", "\t", "\u202e", "\x00", "a" * 70]),
                           max_size=8).map(" ".join))
edits = st.dictionaries(st.sampled_from(["0", "1", "2", "3", "4", "5"]),
                        st.fixed_dictionaries({}, optional={"token": st.one_of(st.text(chars, max_size=6), st.none()),
                                                            "id": st.one_of(st.integers(-2, 9), st.none()),
                                                            "role": st.sampled_from(["normal", "unk", "pad"])}),
                        max_size=3)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts)
def test_any_sentences_text(text):
    at = start("en")
    at.text_area(key="sentences").input(text).run()
    assert not at.exception
    try:
        parse_sentences(text, ("부정", "긍정"))
        valid = True
    except InputError:
        valid = False
    if valid:
        assert not errors(at)
    else:
        assert errors(at) and at.text_area(key="sentences").value == text
        assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits)
def test_any_vocabulary_edit(edited):
    at = start("ko")
    at.session_state["vocab"] = {"edited_rows": edited, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    rows = [["<UNK>", 0, "unk"], ["<PAD>", 1, "pad"], ["영화", 2, "normal"], ["좋다", 3, "normal"], ["나쁘다", 4, "normal"],
            ["재미있다", 5, "normal"]]
    for r, change in edited.items():
        for col, value in change.items():
            rows[int(r)][["token", "id", "role"].index(col)] = value
    try:
        Vocab.from_rows(rows)
        valid = True
    except InputError:
        valid = False
    assert bool(errors(at)) == (not valid)
    if not valid:
        assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]
