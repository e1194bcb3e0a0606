"""The Korean page as a learner sees it: every sentence the app draws, read back from AppTest.

Where tests/test_korean.py checks the templates, this checks what they become with the app's own
values (ids, tokens, counts, floats) on the chapter's example, in each section and after training
steps: no "을(를)" fallback and every particle after a number, a Latin word, code or an aside
agrees with how that word is read (the hand-written readings of tests/test_korean.py).
"""

from __future__ import annotations

import re

import pytest

from tests.apptest_helpers import start
from tests.test_korean import FALLBACK, MARK, check_literal_particles

HANGUL = re.compile(r"[가-힣]")


def page_text(at) -> list[str]:
    """Every sentence-bearing element on the page (markdown, captions, notices, labels)."""
    texts = []
    for kind in ("markdown", "caption", "info", "success", "warning", "error", "subheader", "header", "title"):
        texts += [str(e.value) for e in at.get(kind)]
    texts += [str(b.label) for b in at.get("button")] + [str(e.label) for e in at.get("expander")]
    return [t for t in texts if HANGUL.search(t)]


def table_headers(at) -> list[str]:
    """Column names of the tables drawn (the vocabulary editor's columns are labelled by column_config)."""
    frames = [list(map(str, df.value.columns)) for df in at.dataframe]
    return [c for cols in frames if cols != ["token", "id", "role"] for c in cols]


def visits(at):
    """The page in each section, and the training section after 3 steps."""
    for section in ("lookup", "train", "lessons", "share"):
        at.button_group(key="section").set_value(section).run()
        assert not at.exception, section
        yield section, at
    at.button_group(key="section").set_value("train").run()
    for _ in range(3):
        at.button(key="step").click().run()
    assert not at.exception
    yield "train after 3 steps", at


@pytest.fixture(scope="module")
def seen():
    at = start("ko")
    return [(where, page_text(at), table_headers(at)) for where, at in visits(at)]


def test_the_korean_page_has_no_fallback_particles_and_particles_agree(seen):
    bad = []
    for where, texts, _ in seen:
        for text in texts:
            bad += [(where, m.group(0), text[:80]) for m in FALLBACK.finditer(text)]
            bad += [(where, *b) for b in check_literal_particles("page", text.replace(MARK, ""))]
    assert not bad, bad


def test_the_korean_page_has_no_english_table_headers(seen):
    english = {"id", "token", "‖grad‖", "grad", "cos"}
    found = [(where, h) for where, _, headers in seen for h in headers
             if h in english or re.search(r"· (token|cos)$", h)]
    assert not found, found
