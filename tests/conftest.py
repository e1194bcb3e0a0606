"""Shared fixtures: the chapter's vocabulary, a clean Streamlit cache per AppTest, one Chromium (labs: support.labs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.vocab import Vocab  # noqa: E402
from page import TORCH_THREADS  # noqa: E402
from support.labs import CHAPTER_ROWS  # noqa: E402


def pytest_configure(config):
    """torch computes with the server's thread count (page.py) from the first test on, not only once an
    AppTest has run page.py in this process: the same arithmetic whatever the order, and two workers
    on two cores do not each spin a pool of their own."""
    import torch

    torch.set_num_threads(TORCH_THREADS)


def pytest_collection_modifyitems(config, items):
    """The browser tests first (each file in its order), then the others: the long files go out to
    the workers early and the short AppTest files fill the end, so no worker is left alone on a
    long file while the others have nothing to do (scripts/test.sh passes --no-loadscope-reorder,
    so pytest-xdist sends the files in this order rather than by their number of tests)."""
    items.sort(key=lambda item: 0 if "e2e" in item.path.parts or "browser" in getattr(item, "fixturenames", ()) else 1)


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
    from support.browser import launch, unavailable_reason

    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
