"""A learner's journey in a real browser: read the chapter's example, edit it, click ids, train, scrub, switch language.

What is asserted is what is on screen: the id matrix's cell texts (the grid's accessible table),
the numbers and shapes inside the Plotly figures, the messages. Screenshots of the main views go
to artifacts/screenshots/.
"""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import (TALL_VIEWPORT, alerts, assert_healthy, edit_vocab_token, figure, figures, grid_rows, id_matrix,
                      label, red_rows, screenshot, section, select_id_cell, set_number, set_sentences, trace,
                      unavailable_reason, wait_idle, wait_js)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

CHAPTER_MATRIX = [["2 · 영화", "0 · <UNK>", "3 · 좋다"], ["2 · 영화", "4 · 나쁘다", "1 · <PAD>"]]
PLAY_SECONDS = 0.6  # sections/training_section.PLAY_SECONDS: one step per tick while playing


def chapter_w(seed: int = 0, dim: int = 3) -> np.ndarray:
    """nn.Embedding(6, E, padding_idx=1)'s init as the app draws it (a private generator, PAD row zeroed)."""
    import torch

    w = torch.randn(6, dim, generator=torch.Generator().manual_seed(seed))
    w[1] = 0
    return w.numpy()


def caption_prefix(lang: str, key: str) -> str:
    """The fixed start of a caption whose template has a ``{xy}`` placeholder."""
    return label(lang, key, xy="\x00", n=0).split("\x00")[0]


def w_matrix(page) -> np.ndarray:
    return np.asarray(figure(page, "w_chart")["data"][0]["z"], dtype=np.float32)


def loss_steps(page) -> int:
    """How many points the loss curve has (0 when it is not drawn yet)."""
    for f in figures(page):
        if f["key"] == "loss_chart":
            return len(f["data"][0]["y"])
    return 0


def wait_loss_points(page, n: int, timeout: float = 60_000) -> None:
    wait_js(page, "(n) => { const f = figure('loss_chart'); return f !== null && f.data[0].y.length === n; }", n,
            timeout=timeout)


def wait_title(page, key: str, text: str, timeout: float = 30_000) -> None:
    wait_js(page, "(a) => { const f = figure(a[0]); return f !== null && f.title.includes(a[1]); }", [key, text],
            timeout=timeout)


def test_lookup_journey_in_korean(ko_page):
    page = ko_page
    # The page speaks Korean for a ko-KR browser and opens on the chapter's example.
    assert page.locator("h1").first.inner_text() == label("ko", "app.title")
    assert id_matrix(page) == CHAPTER_MATRIX
    w = figure(page, "w_chart")
    assert w["title"].startswith("W: 6 × 3")
    np.testing.assert_array_equal(w_matrix(page), chapter_w())  # the numbers on screen are torch's init
    labels = w["data"][0]["y"]
    assert [l.split("  ")[0] for l in labels] == ["0 · <UNK>", "1 · <PAD>", "2 · 영화", "3 · 좋다", "4 · 나쁘다", "5 · 재미있다"]
    assert labels[2].endswith("×2")  # 영화 is looked up twice
    assert not red_rows(w) and not alerts(page, "Success")

    # Click the <UNK> cell (b=0, t=1): its row of W is boxed red and the message names it.
    select_id_cell(page, 0, 1, label("ko", "pipe.selected", b=0, t=1, i=0, token="<UNK>"))
    w = figure(page, "w_chart")
    assert red_rows(w) == [0] and w["data"][0]["y"][0].startswith("0 · <UNK>")
    out = figure(page, "out_chart")
    assert out["title"].startswith("vectors[0]") and red_rows(out) == [1]
    np.testing.assert_array_equal(np.asarray(out["data"][0]["z"], np.float32)[1], chapter_w()[0])  # W[0] copied out
    screenshot(page, "lookup-ko")

    # Click the <PAD> cell (b=1, t=2): row 1 of W, and the output vector there is all zeros (C16).
    select_id_cell(page, 1, 2, label("ko", "pipe.selected", b=1, t=2, i=1, token="<PAD>"))
    assert red_rows(figure(page, "w_chart")) == [1]
    out = figure(page, "out_chart")
    assert out["title"].startswith("vectors[1]") and red_rows(out) == [2]
    assert not np.asarray(out["data"][0]["z"], np.float32)[2].any()

    # Edit the sentences: unknown tokens become <UNK>, short sentences are padded with <PAD>.
    set_sentences(page, "재미있다 영화 | 긍정\n나쁘다 | 부정\n팝콘 팝콘 팝콘 좋다 | 긍정")
    wait_js(page, "() => { const r = gridRows('id_cell'); return r && r.length === 4 && r[0].length === 5; }")
    assert id_matrix(page) == [["5 · 재미있다", "2 · 영화", "1 · <PAD>", "1 · <PAD>"],
                               ["4 · 나쁘다", "1 · <PAD>", "1 · <PAD>", "1 · <PAD>"],
                               ["0 · <UNK>", "0 · <UNK>", "0 · <UNK>", "3 · 좋다"]]
    labels = figure(page, "w_chart")["data"][0]["y"]
    assert labels[0].endswith("×3") and labels[1].endswith("×5")  # 3 unknown tokens, 5 pads
    assert not alerts(page, "Error")

    # Edit the vocabulary: rename 좋다 → 멋지다, so 좋다 in the text becomes <UNK>.
    assert edit_vocab_token(page, 3, "멋지다") == "좋다"
    wait_js(page, "() => { const r = gridRows('id_cell'); return r && r[3][4] === '0 · <UNK>'; }")
    assert figure(page, "w_chart")["data"][0]["y"][3].startswith("3 · 멋지다")
    assert not alerts(page, "Error")

    # A duplicate token is refused with a message naming it; the last valid vocabulary keeps driving the page.
    before = id_matrix(page)
    assert edit_vocab_token(page, 4, "영화") == "나쁘다"
    title = label("ko", "err.vocab_title")
    wait_js(page, "(t) => texts('stAlertContentError').some(x => x.includes(t))", title)
    message = next(m for m in alerts(page, "Error") if title in m)
    assert "'영화'" in message and label("ko", "err.kept") in message
    assert id_matrix(page) == before
    assert grid_rows(page, "vocab")[5][1] == "영화"  # what the learner typed stays in the table (column 0: row number)
    assert_healthy(page)


def test_training_journey_in_korean(ko_page):
    page = ko_page
    section(page, "ko", "train")
    assert label("ko", "train.no_steps_yet") in " ".join(alerts(page, "Info"))
    assert figure(page, "pca_chart")["title"] == label("ko", "proj.scatter_title", step=0)

    # Step: the loss chart appears with one point.
    page.locator(".st-key-step button").click()
    wait_loss_points(page, 1)
    assert figure(page, "loss_chart")["title"] == label("ko", "train.loss_title", step=1)

    # Run N steps (N typed into the number input; the button's label follows it).
    set_number(page, "n_steps", 20)
    run_label = label("ko", "train.run", n=20)
    wait_js(page, "(s) => document.querySelector('.st-key-run_steps button').innerText.includes(s)", run_label)
    page.locator(".st-key-run_steps button").click()
    wait_loss_points(page, 21)
    loss = figure(page, "loss_chart")
    assert loss["title"] == label("ko", "train.loss_title", step=21)
    assert loss["data"][0]["y"][-1] < loss["data"][0]["y"][0]  # the toy task is learnable

    # Scrub the timeline: the title's step changes, the PAD point does not move, a looked-up token does.
    slider = page.locator(".st-key-timeline input[type=range]")
    slider.focus()
    page.keyboard.press("End")
    wait_title(page, "pca_chart", label("ko", "proj.scatter_title", step=21))
    late = figure(page, "pca_chart")
    pad_caption = page.locator("[data-testid='stCaptionContainer']", has_text=caption_prefix("ko", "proj.pad_fixed"))
    late_caption = pad_caption.inner_text()
    screenshot(page, "training-ko", TALL_VIEWPORT)
    slider.focus()
    page.keyboard.press("Home")
    wait_title(page, "pca_chart", label("ko", "proj.scatter_title", step=0))
    early = figure(page, "pca_chart")
    pad_late, pad_early = trace(late, "PAD"), trace(early, "PAD")
    assert (pad_late["x"], pad_late["y"]) == (pad_early["x"], pad_early["y"])  # bit for bit: one frame, PAD fixed
    assert pad_caption.inner_text() == late_caption  # 'PAD point at (x, y)': the same text
    moved = [name for name in ("used", "selected")
             if (trace(late, name)["x"], trace(late, name)["y"]) != (trace(early, name)["x"], trace(early, name)["y"])]
    assert moved, "no looked-up token moved between step 0 and step 21"

    # Switch the language: the same session, the same training, now in English.
    page.locator(".st-key-lang label", has_text="English").click()
    wait_js(page, "(t) => document.querySelector('h1') && document.querySelector('h1').innerText === t",
            label("en", "app.title"))
    wait_title(page, "loss_chart", label("en", "train.loss_title", step=21))
    assert page.locator(".st-key-section button", has_text=label("en", "section.train")).count() == 1
    assert page.locator(".st-key-step button").inner_text() == label("en", "train.step")
    assert_healthy(page)


def test_play_advances_steps_by_itself_and_pause_stops_them(ko_page):
    page = ko_page
    section(page, "ko", "train")
    page.locator(".st-key-step button").click()
    wait_loss_points(page, 1)
    page.locator(".st-key-play input[role=switch]").check(force=True)
    # Playing: the loss curve grows with no further clicks (one step per PLAY_SECONDS tick).
    wait_js(page, "() => { const f = figure('loss_chart'); return f !== null && f.data[0].y.length >= 4; }",
            timeout=20_000, idle=False)
    page.locator(".st-key-play input[role=switch]").uncheck(force=True)
    # Quiet for longer than a tick: a pause that did not take would tick within PLAY_SECONDS.
    wait_idle(page, timeout=30_000, quiet_ms=int(2.5 * PLAY_SECONDS * 1000))
    paused_at = loss_steps(page)
    page.wait_for_timeout(int(4 * PLAY_SECONDS * 1000))  # deliberately idle: several ticks' worth of time
    wait_idle(page)
    assert loss_steps(page) == paused_at
    assert_healthy(page)


def test_projection_shows_the_newest_step_after_running(ko_page):
    page = ko_page
    section(page, "ko", "train")
    page.locator(".st-key-step button").click()
    wait_loss_points(page, 1)
    set_number(page, "n_steps", 10)
    wait_js(page, "(s) => document.querySelector('.st-key-run_steps button').innerText.includes(s)",
            label("ko", "train.run", n=10))
    page.locator(".st-key-run_steps button").click()
    wait_loss_points(page, 11)
    assert figure(page, "pca_chart")["title"] == label("ko", "proj.scatter_title", step=11)


def test_english_browser_gets_english(en_page):
    page = en_page
    assert page.locator("h1").first.inner_text() == label("en", "app.title")
    assert page.locator(".st-key-lang input[type=radio]").nth(1).is_checked()  # 한국어 | English
    assert id_matrix(page) == CHAPTER_MATRIX
    assert figure(page, "w_chart")["title"] == label("en", "pipe.w_title", v=6, e=3)
    select_id_cell(page, 0, 0, label("en", "pipe.selected", b=0, t=0, i=2, token="영화"))
    assert red_rows(figure(page, "w_chart")) == [2]
    screenshot(page, "lookup-en")

    section(page, "en", "train")
    page.locator(".st-key-run_steps button").click()  # the default N = 50
    wait_loss_points(page, 50)
    assert figure(page, "loss_chart")["title"] == label("en", "train.loss_title", step=50)
    assert figure(page, "pca_chart")["title"] == label("en", "proj.scatter_title", step=50)
    screenshot(page, "training-en", TALL_VIEWPORT)
    assert_healthy(page)


def test_switching_language_keeps_every_setting(ko_page):
    page = ko_page
    page.locator(".st-key-pad_mode label", has_text=label("ko", "side.pad_mode.fixed")).click()
    wait_js(page, "() => { const r = gridRows('id_cell'); return r && r[0].length === 5; }")  # T = 4
    page.locator(".st-key-pooling input[role=combobox]").click()
    page.get_by_role("option", name=label("ko", "pooling.lstm")).click()
    wait_js(page, "(s) => document.querySelector('.st-key-pooling input').value === s", label("ko", "pooling.lstm"))

    page.locator(".st-key-lang label", has_text="English").click()
    wait_js(page, "(t) => document.querySelector('h1').innerText === t", label("en", "app.title"))
    set_number(page, "seed", 1)  # any later rerun
    wait_js(page, "() => document.querySelector('.st-key-seed input').value === '1'")
    assert len(id_matrix(page)[0]) == 4, "padding went back to 'longest'"
    assert page.locator(".st-key-pad_mode input[type=radio]").nth(1).is_checked(), "the padding radio lost its choice"
    assert page.locator(".st-key-pooling input[role=combobox]").input_value() == label("en", "pooling.lstm")
    assert page.locator(".st-key-preset input[role=combobox]").input_value() == "The chapter's example (4.4)"
