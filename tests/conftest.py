"""Shared fixtures: the chapter's vocabulary and a lab builder, and a clean Streamlit cache per AppTest."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.batch import parse_sentences  # noqa: E402
from core.training import Config, Lab, Recipe  # noqa: E402
from core.vocab import Vocab  # noqa: E402

CHAPTER_ROWS = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("영화", 2, ""), ("좋다", 3, ""), ("나쁘다", 4, ""), ("재미있다", 5, "")]
CHAPTER_TEXT = "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정"
CLASSES = ("부정", "긍정")


def make_lab(rows=CHAPTER_ROWS, text=CHAPTER_TEXT, classes=CLASSES, **config) -> Lab:
    vocab = Vocab.from_rows(rows)
    lines = parse_sentences(text, classes)
    return Lab(Recipe.of(vocab, lines, classes, Config(**config)))


@pytest.fixture
def chapter_vocab() -> Vocab:
    return Vocab.from_rows(CHAPTER_ROWS)


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    """st.cache_* survive across AppTest instances in one process: start each test clean."""
    yield
    if "streamlit" in sys.modules:
        import streamlit as st

        st.cache_data.clear()
        st.cache_resource.clear()


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole session: Playwright's sync API allows one running instance per thread,
    so every browser test (tests/e2e/, test_safety_markdown.py) shares it."""
    from tests.e2e.helpers import CHROMIUM, LAUNCH_ARGS, unavailable_reason

    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()
