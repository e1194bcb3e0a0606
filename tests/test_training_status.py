"""A Step that may take over ~300 ms says so while it runs (issue 16: a status on every slow action)."""

from __future__ import annotations

from assets import presets
from core.explorer import Explorer
from sections.training_section import slow_step


def test_a_step_of_the_large_table_is_announced_and_a_chapter_step_is_not():
    chapter = Explorer.from_preset(presets.load("chapter"))
    assert not slow_step(chapter)
    assert slow_step(Explorer.from_preset(presets.load("large")))
