"""Figure builders tested directly (AppTest cannot read Plotly figures as objects)."""

from __future__ import annotations

import json

import numpy as np
import torch

from components import charts
from components.stage_data import WINDOW, shown_rows
from core.projection import axis_ranges, fit_frame
from tests.apptest_helpers import array
from support.labs import make_lab
from support.torch_reference import PlainLoop


def pca_points(snapshots: dict[int, np.ndarray], k: int) -> dict[int, np.ndarray]:
    """Every snapshot in one PCA frame fitted here with numpy's SVD on all of them (float32, like the app's)."""
    data = np.concatenate(list(snapshots.values())).astype(np.float64)
    mean = data.mean(axis=0)
    axes = np.linalg.svd(data - mean, full_matrices=False)[2][:k]
    return {s: ((w.astype(np.float64) - mean) @ axes.T).astype(np.float32) for s, w in snapshots.items()}


def trained_points(steps: int = 30, k: int = 2):
    """A fresh torch run of a 4-dimensional chapter lab (the answer key), its points in a numpy PCA
    frame, and the rows its sentences look up."""
    recipe = make_lab(embedding_dim=4, seed=3).recipe
    ref = PlainLoop(recipe, keep_snapshots=True).run(steps)
    used = torch.bincount(ref.ids.flatten(), minlength=recipe.vocab.size).numpy() > 0
    return recipe.vocab, ref, pca_points(ref.snapshots, k), used


def trace(fig, name):
    return next(tr for tr in fig.data if tr.name == name)


def test_scatter_has_fixed_ranges_and_the_pad_point_where_the_frame_puts_it():
    v, _, points, used = trained_points()
    ranges = axis_ranges(list(points.values()))
    for step in (0, 15, 30):
        fig = charts.pca_scatter(points, step, list(v.tokens), v.pad_id, v.unk_id, used, 2, ranges,
                                 np.flatnonzero(used), "t", ["PC1", "PC2"])
        pad = trace(fig, "PAD")
        assert (array(pad.x)[0], array(pad.y)[0]) == (np.float32(points[0][v.pad_id, 0]), np.float32(points[0][v.pad_id, 1]))
        assert tuple(fig.layout.xaxis.range) == ranges[0] and fig.layout.xaxis.autorange is False
        assert array(trace(fig, "selected").customdata).tolist() == [2]
        moved = trace(fig, "used")
        ids = array(moved.customdata)
        assert set(ids.tolist()) == set(np.flatnonzero(used).tolist()) - {v.pad_id, v.unk_id, 2}
        np.testing.assert_array_equal(np.stack([array(moved.x), array(moved.y)], axis=1), points[step][ids].astype(np.float32))


def test_replay_frames_are_capped_and_pad_is_still_in_every_frame():
    v, _, points, used = trained_points(250)
    fig = charts.pca_animation(points, list(v.tokens), v.pad_id, v.unk_id, used, None,
                               axis_ranges(list(points.values())), "t", ["PC1", "PC2"])
    assert 2 <= len(fig.frames) <= charts.MAX_ANIMATION_FRAMES + 1
    pads = {(float(array(tr.x)[0]), float(array(tr.y)[0])) for f in fig.frames for tr in f.data if tr.name == "PAD"}
    assert len(pads) == 1  # the zero PAD row sits still in one frame of reference (X7)
    for f in fig.frames:  # each frame: where the looked-up rows are at its step
        moved = next(tr for tr in f.data if tr.name == "used")
        xy = points[int(f.name)][np.flatnonzero(used & (np.arange(v.size) > 1))]
        np.testing.assert_array_equal(np.stack([array(moved.x), array(moved.y)], axis=1), xy.astype(np.float32))


def test_large_vocabulary_payloads_stay_small():
    v, e = 100_000, 300
    rng = np.random.default_rng(0)
    w = rng.standard_normal((v, e)).astype(np.float32)
    frame = fit_frame([w], 2)
    points = {0: frame.transform(w), 1: frame.transform(w * 1.01)}
    used = np.zeros(v, bool)
    used[rng.integers(2, v, 9000)] = True
    tokens = [f"w{i}" for i in range(v)]
    fig = charts.pca_scatter(points, 1, tokens, 1, 0, used, 5, axis_ranges(list(points.values())),
                             np.flatnonzero(used)[:60], "t", ["a", "b"])
    assert len(fig.to_json()) < 5_000_000
    anim = charts.pca_animation(points, tokens, 1, 0, used, 5, axis_ranges(list(points.values())), "t", ["a", "b"])
    assert len(anim.to_json()) < 5_000_000
    counts = np.zeros(v, int)
    counts[used] = 1
    rows = shown_rows(v, counts, 50_000, (1, 0))
    assert len(rows) <= 4 * WINDOW and 50_000 in rows and 1 in rows and 0 in rows


def test_every_builder_makes_a_figure_plotly_validates_and_sends_as_built():
    """Plotly's own round trip (a figure from the dict it sends) changes nothing, for every builder
    and 1, 2 and 3 principal components; the arrays in it are what a fresh torch run computed."""
    import plotly.graph_objects as go

    v, ref, _, used = trained_points()
    figs = [charts.loss_curve(ref.losses, "loss")]
    np.testing.assert_array_equal(array(figs[0].data[0].y), np.asarray(ref.losses, np.float32))
    for k in (1, 2, 3):
        pts = pca_points(ref.snapshots, k)
        ranges, titles = axis_ranges(list(pts.values())), [f"PC{j + 1}" for j in range(k)]
        scatter = charts.pca_scatter(pts, 15, list(v.tokens), v.pad_id, v.unk_id, used, 2, ranges, np.flatnonzero(used), "t", titles)
        pad = trace(scatter, "PAD")
        coords = [array(pad.x)[0], array(pad.y)[0]] + ([array(pad.z)[0]] if k == 3 else [])
        assert coords[:k] == [np.float32(c) for c in pts[15][v.pad_id]]
        figs += [scatter, charts.pca_animation(pts, list(v.tokens), v.pad_id, v.unk_id, used, 2, ranges, "t", titles)]
    for fig in figs:
        sent = json.loads(fig.to_json())
        assert json.loads(go.Figure(sent).to_json()) == sent


def test_a_big_scatter_draws_every_looked_up_row_and_an_even_stride_of_the_others():
    v = 100_000
    rng = np.random.default_rng(1)
    xy = rng.standard_normal((v, 2)).astype(np.float32)
    used = np.zeros(v, bool)
    used[rng.integers(2, v, 9000)] = True
    fig = charts.pca_scatter({0: xy}, 0, [f"w{i}" for i in range(v)], 1, 0, used, 5, [(-5, 5), (-5, 5)],
                             np.array([], int), "t", ["a", "b"])
    drawn = {tr.name: array(tr.customdata) for tr in fig.data if tr.name != "trails"}
    plain = np.flatnonzero(~used & (np.arange(v) > 1) & (np.arange(v) != 5))
    assert set(drawn["used"]) | {5} == set(np.flatnonzero(used)) | {5}  # every looked-up row
    assert len(drawn["plain"]) <= charts.MAX_PLAIN_POINTS < len(plain) and set(drawn["plain"]) <= set(plain)
    np.testing.assert_array_equal(drawn["plain"], plain[::int(np.ceil(len(plain) / charts.MAX_PLAIN_POINTS))])
    i = int(drawn["plain"][7])
    assert (array(trace(fig, "plain").x)[7], array(trace(fig, "plain").y)[7]) == (xy[i, 0], xy[i, 1])
    assert trace(fig, "plain").customdata["dtype"] == "i4"  # ids past int16


def test_typed_arrays_are_sent_as_plotly_sends_the_arrays_themselves():
    """charts.typed_array against Plotly encoding the NumPy array itself (public API), kind by kind."""
    import plotly.graph_objects as go

    big = np.iinfo(np.int32).max
    arrays = [np.array([1, -2], np.int64), np.array([300, -2], np.int64), np.array([70_000, 1], np.int64),
              np.array([big, -big - 1], np.int64), np.array([2**40, 1], np.int64), np.array([1, 2], np.uint8),
              np.array([0.5, np.nan], np.float32), np.array([0.1, -1e300], np.float64),
              np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(12, dtype=np.float64).reshape(4, 3),
              np.array([], np.float32)]
    for a in arrays:
        theirs = json.loads(go.Figure(data=[dict(type="heatmap", z=a, customdata=a)]).to_json())
        ours = json.loads(go.Figure(data=[dict(type="heatmap", z=charts.typed_array(a), customdata=charts.typed_array(a))]).to_json())
        assert ours == theirs, a
        if a.size:
            np.testing.assert_array_equal(array(ours["data"][0]["z"]), a)


def test_the_replay_and_the_3d_scatter_draw_the_stages_marks_and_name_every_one_in_the_legend():
    """Classes by colour and shape (a filled grey circle for a token with no majority class, like
    the chapter's 영화), PAD, UNK, the never-looked-up rings and the selection: every trace that
    draws points is named in the legend, in the page's language, and no two kinds look alike."""
    from components import palette
    from support.stage_sample import stage_text
    from core.explorer import token_classes

    v, _, points, used = trained_points(5)
    recipe = make_lab(embedding_dim=4, seed=3).recipe  # the same recipe trained_points trained
    cls = token_classes(recipe)
    assert (cls[used & (np.arange(v.size) != v.pad_id) & (np.arange(v.size) != v.unk_id)] == -1).any()  # 영화: a tie
    ranges, titles = axis_ranges(list(points.values())), ["PC1", "PC2"]
    for lang in ("ko", "en"):
        names = charts.legend_names(stage_text(lang), list(recipe.classes))
        for fig in (charts.pca_animation(points, list(v.tokens), v.pad_id, v.unk_id, used, 4, ranges, "t", titles,
                                         cls=cls, names=names),
                    charts.pca_scatter(points, 5, list(v.tokens), v.pad_id, v.unk_id, used, 4, ranges,
                                       np.flatnonzero(used), "t", titles, cls=cls, names=names)):
            marks = [tr for tr in fig.data if "markers" in (tr.mode or "")]
            drawn = np.concatenate([array(tr.customdata) for tr in marks])
            assert sorted(drawn.tolist()) == list(range(v.size))  # every row once
            assert all(tr.showlegend and tr.name in names.values() for tr in marks), [tr.name for tr in marks]
            assert len({tr.name for tr in marks}) == len(marks)
            looks = {(tr.marker.symbol, tr.marker.color, tr.marker.line.color) for tr in marks}
            assert len(looks) == len(marks)  # each named kind of mark looks different
            assert fig.layout.showlegend is not False
            for tr in marks:
                ids = array(tr.customdata)
                if tr.meta.startswith("class "):
                    c = int(tr.meta.split()[1])
                    assert (cls[ids] == c).all() and tr.marker.color == palette.class_color(c)
                    assert tr.marker.symbol == palette.class_symbol(c)
                if tr.meta == "used":
                    assert (cls[ids] == -1).all() and names["used"] == stage_text(lang)["noclass"]
                if tr.meta == "PAD":
                    assert ids.tolist() == [v.pad_id] and tr.marker.symbol == "diamond"
