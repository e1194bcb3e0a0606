"""core.explorer: one learner's session as a plain-Python model, tested without Streamlit.

torch is the answer key: the picture's points are checked against a PCA frame recomputed here
with numpy from a fresh torch run (support.torch_reference.PlainLoop), and the lab's W against it.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assets import presets
from core.explorer import PREVIEW_STEPS, Explorer
from core.problems import InputError, Problem
from core.vocab import Vocab
from support.torch_reference import PlainLoop


@pytest.fixture
def chapter() -> Explorer:
    return Explorer.from_preset(presets.load("chapter"))


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_the_pad_point_is_bitwise_fixed_and_ranges_only_widen_across_every_move(chapter):
    """The frame rule: Step, Run, timeline moves and a Reset leave the PAD point where it was."""
    ex = chapter
    first = ex.picture(2)
    seen = [first]
    for action in ("step",) * 5 + ("run",):
        assert (ex.step() if action == "step" else ex.run(20)) == []
        seen.append(ex.picture(2))
    for shown in (0, 3, ex.lab.steps):  # the timeline
        seen.append(ex.picture(2, shown))
    ex.reset()
    seen.append(ex.picture(2))
    for before, after in zip(seen, seen[1:]):
        assert same_bits(after.pad_xy, first.pad_xy)
        assert after.version == first.version
        for (a, b), (c, d) in zip(before.ranges, after.ranges):
            assert c <= a and d >= b  # only ever widen
    assert seen[-2].shown == 25 and seen[-1].shown == 0


def test_past_the_preview_the_view_zooms_out_about_the_pad_point(chapter):
    """Past PREVIEW_STEPS points leave the first ranges, which widen; each axis widens about PAD, so
    PAD's place in the plot ((pad − lo) / (hi − lo), what sets its pixel) holds while the view zooms out."""
    ex = chapter
    first = ex.picture(2)
    place = [(p - a) / (b - a) for p, (a, b) in zip(first.pad_xy.astype(np.float64), first.ranges)]
    zoomed = 0
    for n in (PREVIEW_STEPS, 40, 100, 300):
        before = ex.picture(2)
        ex.run(n)
        pic = ex.picture(2)
        assert same_bits(pic.pad_xy, first.pad_xy)
        zoomed += pic.ranges != before.ranges
        for j, (p, (a, b)) in enumerate(zip(pic.pad_xy.astype(np.float64), pic.ranges)):
            assert a <= before.ranges[j][0] and b >= before.ranges[j][1]
            assert (p - a) / (b - a) == pytest.approx(place[j], rel=1e-12, abs=1e-12), (ex.lab.steps, j)
        for s in pic.steps:  # every drawn point is still inside
            assert np.all(pic.points[s] >= np.array([r[0] for r in pic.ranges]) - 1e-9)
            assert np.all(pic.points[s] <= np.array([r[1] for r in pic.ranges]) + 1e-9)
    assert zoomed >= 2, "the chapter's training never left the first ranges: this test sees no zoom"


_coord = st.floats(-1e3, 1e3, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(a=_coord, width=st.floats(1e-3, 1e3), at=st.floats(0.01, 0.99), c=_coord, d=_coord)
def test_a_range_widens_to_cover_both_and_about_its_anchor(a, width, at, c, d):
    from core.projection import widen_ranges

    b, (c, d) = a + width, sorted((c, d))
    p = a + at * width
    (plain,) = widen_ranges([(a, b)], [(c, d)])
    assert plain == (min(a, c), max(b, d))
    ((lo, hi),) = widen_ranges([(a, b)], [(c, d)], np.array([p]))
    span = max(hi - lo, width)
    assert lo <= min(a, c) + 1e-12 * span and hi >= max(b, d) - 1e-12 * span
    assert (p - lo) / (hi - lo) == pytest.approx((p - a) / (b - a), rel=1e-9, abs=1e-9)
    if c >= a and d <= b:
        assert (lo, hi) == (a, b)  # nothing to take in: the range is the old one, bit for bit
    assert widen_ranges([(a, b)], [(float("-inf"), float("nan"))], np.array([p])) == [(a, b)]


def test_the_picture_is_w_projected_in_one_frame_fitted_on_the_preview(chapter):
    """The frame's mean and axes come from a preview run of the same recipe; every point is W_s in it."""
    ex = chapter
    ex.run(7)
    pic = ex.picture(2)
    assert pic.basis == "preview" and pic.fitted_steps[-1] == PREVIEW_STEPS
    preview = PlainLoop(ex.recipe, keep_snapshots=True).run(PREVIEW_STEPS)  # a fresh torch run of the same recipe
    data = np.concatenate([preview.snapshots[s] for s in pic.fitted_steps]).astype(np.float64)  # (n, E)
    mean = data.mean(axis=0)
    _, _, vt = np.linalg.svd(data - mean, full_matrices=False)
    for step in pic.steps:
        w = ex.lab.snapshots[step].astype(np.float64)
        ours = pic.points[step]
        ref = (w - mean) @ vt[:2].T
        signs = np.sign(np.sum(ours * ref, axis=0))  # PCA axes are defined up to sign
        np.testing.assert_allclose(ours, ref * signs, atol=1e-4)
    np.testing.assert_array_equal(ex.lab.snapshots[7], PlainLoop(ex.recipe).run(7).weight)


def test_refit_is_the_only_thing_that_moves_the_camera_and_it_says_what_it_used(chapter):
    ex = chapter
    before = ex.picture(2)
    ex.run(40)
    pic = ex.refit(2)
    assert pic.basis == "refit" and pic.version != before.version
    assert pic.fitted_steps[0] == 0 and pic.fitted_steps[-1] == 40
    ex.step()
    assert same_bits(ex.picture(2).pad_xy, pic.pad_xy)  # and then it holds still again


def test_a_new_lab_gets_a_new_frame_and_keeps_what_the_restart_replaced(chapter):
    ex = chapter
    old = ex.picture(2)
    ex.step()
    assert ex.apply_config({**ex.config_values(), "seed": 7}) == []
    assert ex.lab.steps == 0 and ex.before.steps == 1  # the page offers the undo (tests/test_undo.py)
    assert ex.picture(2).version != old.version


def test_a_bad_edit_changes_nothing_and_its_problems_stay_until_fixed(chapter):
    ex = chapter
    ex.step()
    lab, text = ex.lab, ex.text
    assert [p.code for p in ex.apply_text("영화 좋다 | " + "긴" * 41)] == ["label_too_long"]
    assert [p.code for p in ex.apply_config({**ex.config_values(), "embedding_dim": 0})] == ["dim_range"]
    assert [p.code for p in ex.apply_vocab([("<UNK>", 0, "unk"), ("a", 0, "")])][:1]
    assert ex.lab is lab and ex.text == text and lab.steps == 1
    assert set(ex.problems) == {"text", "config", "vocab"}
    assert ex.apply_text(text) == [] and "text" not in ex.problems  # typed back: fixed, same lab
    assert ex.lab is lab


@pytest.mark.parametrize("pid", presets.ORDER)
def test_every_shipped_vocabulary_passes_the_learners_checks(pid):
    """A preset's vocabulary is built unchecked at run time (Vocab.shipped): here each one goes
    through the checks a learner's table does, and gives the same vocabulary."""
    rows = presets.load(pid)["vocab"]
    assert Vocab.shipped(rows) == Vocab.from_rows(rows) == Explorer.from_preset(presets.load(pid)).vocab


def test_regression_large_table_bad_e_then_a_new_sentence_draws_from_one_recipe():
    """Issue 13's crash: E=401 is refused at 100k, then a sentence is added; lookup reads lab and lines."""
    ex = Explorer.from_preset(presets.load("large"))
    assert [p.code for p in ex.apply_config({**ex.config_values(), "embedding_dim": 401})] == ["table_too_large"]
    assert ex.apply_text(ex.text + f"\n{ex.vocab.tokens[2]} {ex.vocab.tokens[3]} | 1") == []
    lab = ex.lab
    assert lab.recipe.config.embedding_dim == 300
    assert len(lab.recipe.sentences) == lab.batch.ids.shape[0] == 257
    vectors = lab.vectors()  # what the lookup view draws, for every sentence the recipe holds
    torch.testing.assert_close(vectors[-1, :2], lab.weight.detach()[[2, 3]], rtol=0, atol=0)


def test_set_pad_moves_the_pad_point_because_the_row_moved_not_the_frame(chapter):
    ex = chapter
    before = ex.picture(2)
    assert ex.set_pad([1.0, 1.0, 1.0]) == []
    after = ex.picture(2)
    assert after.version == before.version
    frame = ex._frames[2].frame  # the one frame of this lab
    expected = frame.transform(np.ones((1, 3), np.float32))[0]
    assert same_bits(after.pad_xy, expected)
    assert [p.code for p in ex.set_pad([1.0])] == ["pad_vector_shape"]


def test_selection_ignores_what_is_not_a_row(chapter):
    ex = chapter
    for bad in (-1, 6, "2", 2.5, True, None):
        ex.select(bad)
        assert ex.selected_token is None
    ex.select(np.int64(4))
    assert ex.selected_token == 4


def test_untrainable_and_three_dimensional_pictures(chapter):
    ex = chapter
    assert ex.apply_text("영화 좋다\n영화 나쁘다") == []  # no labels: no preview, the fresh table
    pic = ex.picture(3)
    assert pic.basis == "initial" and pic.dims == 3 and pic.fitted_steps == (0,)
    assert [p.code for p in ex.step()] == ["labels_missing"]
    assert ex.apply_config({**ex.config_values(), "embedding_dim": 1}) == []
    assert ex.picture(3).dims == 1


# ---- random sequences of actions ------------------------------------------------------------
TEXTS = ("영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정", "영화 재미있다 | 긍정", "영화 | 없는것", "", "a" * 70, "좋다 나쁘다 | 1")
VOCABS = (
    [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("영화", 2, ""), ("좋다", 3, ""), ("나쁘다", 4, ""), ("재미있다", 5, "")],
    [("<PAD>", 0, "pad"), ("<UNK>", 1, "unk"), ("영화", 2, ""), ("좋다", 3, "")],
    [("<UNK>", 0, "unk"), ("<UNK>", 1, "pad")],  # a duplicate token: refused
    [("<UNK>", 0, "unk"), ("x", 2, "")],  # ids with a gap, no PAD: refused
)
ACTIONS = st.one_of(
    st.tuples(st.just("text"), st.sampled_from(TEXTS)),
    st.tuples(st.just("vocab"), st.sampled_from(range(len(VOCABS)))),
    st.tuples(st.just("config"), st.sampled_from([("embedding_dim", 2), ("embedding_dim", 0), ("seed", 3),
                                                  ("lr", 99.0), ("optimizer", "sgd"), ("pooling", "lstm"),
                                                  ("fixed_len", 2), ("batch_size", 1), ("lr", float("nan"))])),
    st.tuples(st.just("preset"), st.sampled_from(["chapter", "reviews_ko", "reviews_en"])),
    st.tuples(st.just("step"), st.just(None)), st.tuples(st.just("run"), st.integers(-1, 30)),
    st.tuples(st.just("reset"), st.just(None)), st.tuples(st.just("pad"), st.sampled_from([(1.0, 2.0), (0.5,) * 3])),
    st.tuples(st.just("refit"), st.sampled_from([2, 3])), st.tuples(st.just("picture"), st.sampled_from([2, 3])),
)


@settings(max_examples=int(os.environ.get("HYPOTHESIS_EXPLORER_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ACTIONS, min_size=1, max_size=12))
def test_any_sequence_of_actions_keeps_one_recipe_and_a_fixed_pad_point(actions):
    """Only explained problems; what is drawn comes from one recipe; within a lab the PAD point stays."""
    ex = Explorer.from_preset(presets.load("chapter"))
    pad_seen: dict[tuple, bytes] = {}
    for kind, arg in actions:
        lab_before = ex.lab
        if kind == "text":
            out = ex.apply_text(arg)
        elif kind == "vocab":
            out = ex.apply_vocab(VOCABS[arg])
        elif kind == "config":
            out = ex.apply_config({**ex.config_values(), arg[0]: arg[1]})
        elif kind == "preset":
            ex = Explorer.from_preset(presets.load(arg))
            out = []
        elif kind == "step":
            out = ex.step()
        elif kind == "run":
            try:
                out = ex.run(arg)
            except InputError as e:  # an explained refusal is the only exception allowed
                out = e.problems
        elif kind == "reset":
            ex.reset()
            out = []
        elif kind == "pad":
            out = ex.set_pad(arg)
        elif kind == "refit":
            ex.refit(arg)
            out = []
        else:
            out = []
        assert all(isinstance(p, Problem) for p in out)
        if out and kind in ("text", "vocab", "config"):
            assert ex.lab is lab_before  # a refused edit changes nothing
        lab = ex.lab
        recipe = lab.recipe
        assert lab.batch.ids.shape[0] == len(recipe.sentences) == len(recipe.labels)  # one recipe drawn
        assert lab.weight.shape == (recipe.vocab.size, recipe.config.embedding_dim)
        for dims in (2, 3):
            pic = ex.picture(dims)
            key = (lab.uid, dims, pic.version, len(lab.pad_edits))  # uid: id() of a collected lab is reused
            if key in pad_seen:
                assert pic.pad_xy.tobytes() == pad_seen[key]
            pad_seen[key] = pic.pad_xy.tobytes()


def test_a_custom_axis_runs_from_one_token_to_the_other_and_then_holds_still():
    """The Projector's custom projection: x(b) − x(a) = ‖W[b] − W[a]‖ at the step it was made
    (torch computes the norm), the axes stay orthonormal, and PAD stays put as training goes on."""
    ex = Explorer.from_preset(presets.load("reviews_ko"))
    ex.run(20)
    a, b = ex.vocab.index["별로"], ex.vocab.index["좋다"]
    pic = ex.custom_axis(a, b)
    w = torch.from_numpy(ex.lab.snapshots[20])
    gap = float(torch.linalg.vector_norm(w[b] - w[a]))
    xy = pic.points[20]
    assert abs((xy[b, 0] - xy[a, 0]) - gap) < 1e-4 * max(1.0, gap)
    assert abs(xy[b, 1] - xy[a, 1]) < 1e-4  # the vertical axis is orthogonal to a → b
    axes = ex._frames[2].frame.axes
    np.testing.assert_allclose(axes @ axes.T, np.eye(2), atol=1e-9)
    ex.run(15)
    assert same_bits(ex.picture(2).pad_xy, pic.pad_xy) and ex.picture(2).basis == "custom"
    assert [p.code for p in ex.custom_axis(a, a)] == ["axis_tokens"]


def test_divergence_is_named_and_the_picture_and_stage_stay_finite():
    """Issue 17's recipe: AdamW, lr 10 and weight decay 10 on the chapter. Run 50 stops at the last
    finite step with the divergence named; the picture and the stage's data hold finite numbers."""
    from support.stage_contract import contract_errors
    from views.training import train_data

    ex = Explorer.from_preset(presets.load("chapter"))
    assert ex.apply_config({**ex.config_values(), "optimizer": "adamw", "lr": 10.0, "weight_decay": 10.0}) == []
    out = ex.run(50)
    assert [p.code for p in out] == ["diverged"] and out[0].params["cause"] == "weight_decay"
    last = out[0].params["last"]
    assert ex.lab.steps == last and torch.isfinite(ex.lab.weight).all()
    pic = ex.picture(2)
    assert all(np.isfinite(p).all() for p in pic.points.values()) and np.isfinite(pic.ranges).all()
    assert contract_errors(train_data(ex, "ko")) == []
    assert [p.code for p in ex.step()] == ["diverged"]  # refused until the learner goes back or resets
    assert ex.back_to(last) == [] and ex.lab.diverged is None
    ex.reset()
    assert ex.lab.steps == 0 and ex.step() == []


def test_a_glide_never_moves_a_point_that_stays_put():
    """Play's in-between frames are rounded to keep the message small; a point whose place does not
    change (the PAD row: padding_idx gets no gradient) is sent in every frame with the very value of
    the shown step, so the glide cannot make it wobble by a rounding."""
    from views.training import train_data

    ex = Explorer.from_preset(presets.load("chapter"))
    pad_row = ex.lab.weight[ex.vocab.pad_id].detach().clone()
    assert ex.run(12) == []
    assert torch.equal(ex.lab.weight[ex.vocab.pad_id], pad_row)  # torch kept the row as it was
    sc = train_data(ex, "ko", since=0, playing=True)["scatter"]
    assert sc["frames"], "a glide from step 0 has in-between frames"
    pad = sc["ids"].index(ex.vocab.pad_id)
    assert all(f["x"][pad] == sc["x"][pad] and f["y"][pad] == sc["y"][pad] for f in sc["frames"])
    moving = [i for i, r in enumerate(sc["role"]) if r == "used"]
    assert any(f["x"][i] != sc["x"][i] for f in sc["frames"] for i in moving)  # the others do glide


@pytest.mark.parametrize("preset", ["chapter", "reviews_ko"])  # every sentence per step; batches of 8 that wrap
def test_each_of_plays_frames_carries_w_its_gradient_and_the_neighbours_at_its_own_step(preset):
    """While Play's glide walks, W's grid and the neighbours row name the step the points and the
    counter show: each frame's W rows, ‖dL/dW‖ column, touched rows and neighbours against a fresh
    torch loop run to that frame's step (not the newest step of the batch)."""
    from views.training import train_data

    ex = Explorer.from_preset(presets.load(preset))
    ex.select(3)
    ex.run(12)
    data = train_data(ex, "en", since=3, playing=True)
    frames, rows = data["scatter"]["frames"], data["w"]["rows"]
    assert [f["step"] for f in frames] == list(range(4, 12))
    ref = PlainLoop(ex.recipe, keep_snapshots=True).run(12)
    for f in frames:
        s, w = f["step"], ref.snapshots[f["step"]]
        np.testing.assert_array_equal(np.array(f["w"]["values"], dtype=np.float32), w[rows])
        np.testing.assert_allclose(f["w"]["grad_norm"], ref.grad_norms[s][rows], rtol=1e-6, atol=1e-9)
        assert sorted(f["w"]["touched"]) == np.flatnonzero(ref.grad_norms[s]).tolist(), s
        assert f["w"]["absmax"] == float(np.abs(w[rows]).max())
        unit = w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-12)
        cos = unit @ unit[ex.selected_token]
        near = f["neighbours"]["ids"]
        assert f["neighbours"]["of"] == ex.selected_token and ex.selected_token not in near
        np.testing.assert_allclose(f["neighbours"]["cos"], cos[near], atol=1e-5)
        others = [i for i in np.flatnonzero(np.linalg.norm(w, axis=1)) if i != ex.selected_token and i not in near]
        assert not others or min(f["neighbours"]["cos"]) >= cos[others].max() - 1e-6, s  # the nearest (PAD has no direction)
    assert data["w"]["values"] == ref.snapshots[12][rows].tolist()  # the settled grid: the newest step


def test_each_of_plays_frames_carries_the_loss_of_its_own_step():
    """The stage names the step a Play glide shows with that step's loss (not the newest's): each
    frame's loss is the last loss of a fresh lab run to that frame's step."""
    from views.training import train_data

    ex = Explorer.from_preset(presets.load("chapter"))
    ex.run(12)
    frames = train_data(ex, "en", since=3, playing=True)["scatter"]["frames"]
    assert [f["step"] for f in frames] == list(range(4, 12))
    for f in frames:
        fresh = Explorer.from_preset(presets.load("chapter"))
        fresh.run(f["step"])
        assert f["loss"] == fresh.lab.losses[-1] and fresh.lab.steps == f["step"], f["step"]


@pytest.mark.parametrize("name", ["pad_mode", "learning_rate", "E"])
def test_a_name_that_is_no_knob_is_refused_naming_the_knobs_and_changes_nothing(chapter, name):
    """A widget's key or a typo handed to apply_config must not pass as 'nothing to change'."""
    lab = chapter.lab
    problems = chapter.apply_config({name: 5})
    assert [p.code for p in problems] == ["config_unknown"] and problems[0].params["names"] == name
    assert "embedding_dim" in problems[0].params["known"] and "fixed_len" in problems[0].params["known"]
    assert chapter.lab is lab and chapter.config_values()["embedding_dim"] == 3
    assert chapter.apply_config({"embedding_dim": 5}) == [] and chapter.config.embedding_dim == 5


def test_raw_sentences_mostly_outside_the_vocabulary_are_warned_of_with_the_count(chapter):
    """A learner's own raw Korean under the whitespace tokenizer: nearly every id is UNK, so the page
    says how many and the two ways out; the chapter's one UNK (정말) is not worth a warning."""
    assert [p.code for p in chapter.warnings()] == []
    assert chapter.apply_text("축구 경기가 끝났다 | 스포츠\n선거 결과가 나왔다 | 정치\n영화 좋다 | 연예") == []
    (warning,) = [p for p in chapter.warnings() if p.code == "mostly_unk"]
    ids = chapter.lab.batch.ids.numpy()
    unk = int((ids == chapter.vocab.unk_id).sum())  # the batch says the same: 6 of 8 tokens are UNK
    assert warning.params == {"unk": unk, "total": 8, "percent": round(100 * unk / 8)} and unk == 6
    assert chapter.apply_config({"tokenizer": "subword"}) == []
    assert [p.code for p in chapter.warnings()] == []  # a vocabulary built from the tokens
