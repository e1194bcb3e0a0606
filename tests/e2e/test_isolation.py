"""Two learners side by side (two browser contexts = two Streamlit sessions) share nothing."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import (alerts, assert_healthy, figure, figures, id_matrix, label, section, set_number, set_sentences,
                      unavailable_reason, wait_js)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e


def w_matrix(page) -> np.ndarray:
    return np.asarray(figure(page, "w_chart")["data"][0]["z"], dtype=np.float32)


def test_training_in_one_session_leaves_the_other_untouched(new_page):
    a, b = new_page("ko-KR"), new_page("ko-KR")
    w0, matrix0 = w_matrix(b), id_matrix(b)
    np.testing.assert_array_equal(w_matrix(a), w0)  # same seed, same start

    # Learner A edits the sentences and trains 30 steps.
    set_sentences(a, "영화 재미있다 | 긍정\n나쁘다 | 부정")
    wait_js(a, "() => { const r = gridRows('id_cell'); return r && r[1][2] === '5 · 재미있다'; }")
    section(a, "ko", "train")
    set_number(a, "n_steps", 30)
    wait_js(a, "(s) => document.querySelector('.st-key-run_steps button').innerText.includes(s)",
            label("ko", "train.run", n=30))
    a.locator(".st-key-run_steps button").click()
    wait_js(a, "() => { const f = figure('loss_chart'); return f !== null && f.data[0].y.length === 30; }", timeout=60_000)
    section(a, "ko", "lookup")
    assert not np.array_equal(w_matrix(a), w0)  # A's W moved

    # Learner B, asked to redraw, still sees step 0, the chapter's sentences and the initial W.
    section(b, "ko", "train")
    assert not any(f["key"] == "loss_chart" for f in figures(b))
    assert label("ko", "train.no_steps_yet") in " ".join(alerts(b, "Info"))
    assert figure(b, "pca_chart")["title"] == label("ko", "proj.scatter_title", step=0)
    section(b, "ko", "lookup")
    np.testing.assert_array_equal(w_matrix(b), w0)
    assert id_matrix(b) == matrix0
    assert b.locator(".st-key-sentences textarea").input_value() == "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정"
    assert_healthy(a)
    assert_healthy(b)
