"""Two learners side by side (two browser contexts = two Streamlit sessions) share nothing."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import (assert_healthy, chapter_w, lookup_tables, run_steps, section, set_sentences, stage, stage_ids,
                      stage_w, unavailable_reason, wait_stage, wait_step)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e


def test_training_in_one_session_leaves_the_other_untouched(new_page):
    a, b = new_page("ko-KR"), new_page("ko-KR")
    w0, ids0 = stage_w(b), stage_ids(b)
    assert stage_w(a) == w0  # same seed, same start

    # Learner A edits the sentences and trains 30 steps.
    set_sentences(a, "영화 재미있다 | 긍정\n나쁘다 | 부정")
    wait_stage(a, "s => s.ids.length === 2 && s.ids[0][1].id === 5")
    section(a, "ko", "train")
    run_steps(a, "ko", 30, start=0)
    section(a, "ko", "lookup")
    assert stage_w(a) != w0  # A's W moved

    # Learner B, asked to redraw, still sees step 0, the chapter's sentences and torch's initial W, bit for bit.
    section(b, "ko", "train")
    s = wait_step(b, 0)
    assert s["loss"] == "\u2013"
    section(b, "ko", "lookup")
    assert stage_w(b) == w0
    assert stage_ids(b) == ids0 == [[2, 0, 3], [2, 4, 1]]
    tables = lookup_tables(b, "ko")
    for i, row in tables["w"].items():
        np.testing.assert_array_equal(row, chapter_w()[i])
    assert b.locator(".st-key-sentences textarea").input_value() == "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정"
    assert stage(a)["mode"] == "lookup"
    assert_healthy(a)
    assert_healthy(b)
