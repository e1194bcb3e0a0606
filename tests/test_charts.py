"""Figure builders tested directly (AppTest cannot read Plotly figures as objects)."""

from __future__ import annotations

import json

import numpy as np

from components import charts
from components.pipeline import WINDOW, shown_rows
from core.projection import axis_ranges, fit_frame
from tests.conftest import make_lab


def trained_points(steps: int = 30):
    lab = make_lab(embedding_dim=4, seed=3)
    lab.run(steps)
    snaps = sorted(lab.snapshots)
    frame = fit_frame([lab.snapshots[s] for s in snaps], 2)
    return lab, {s: frame.transform(lab.snapshots[s]) for s in snaps}


def trace(fig, name):
    return next(tr for tr in fig.data if tr.name == name)


def test_scatter_has_fixed_ranges_and_the_pad_point_where_the_frame_puts_it():
    lab, points = trained_points()
    v = lab.recipe.vocab
    used = lab.batch.id_counts(v.size).numpy() > 0
    ranges = axis_ranges(list(points.values()))
    for step in (0, 15, 30):
        fig = charts.pca_scatter(points, step, list(v.tokens), v.pad_id, v.unk_id, used, 2, ranges,
                                 np.flatnonzero(used), "t", ["PC1", "PC2"])
        pad = trace(fig, "PAD")
        assert (float(pad.x[0]), float(pad.y[0])) == (float(points[0][v.pad_id, 0]), float(points[0][v.pad_id, 1]))
        assert tuple(fig.layout.xaxis.range) == ranges[0] and fig.layout.xaxis.autorange is False
        assert list(trace(fig, "selected").customdata) == [2]


def test_replay_frames_are_capped_and_pad_is_still_in_every_frame():
    lab, points = trained_points(250)
    v = lab.recipe.vocab
    used = lab.batch.id_counts(v.size).numpy() > 0
    fig = charts.pca_animation(points, list(v.tokens), v.pad_id, v.unk_id, used, None,
                               axis_ranges(list(points.values())), "t", ["PC1", "PC2"])
    assert 2 <= len(fig.frames) <= charts.MAX_ANIMATION_FRAMES + 1
    pads = {(float(tr.x[0]), float(tr.y[0])) for f in fig.frames for tr in f.data if tr.name == "PAD"}
    assert len(pads) == 1  # the zero PAD row sits still in one frame of reference (X7)


def test_w_heatmap_shows_the_given_rows_and_boxes_the_selection():
    lab = make_lab()
    w = lab.weight.detach().numpy()
    counts = lab.batch.id_counts(6).numpy()
    fig = charts.w_heatmap(w, np.arange(6), list(lab.recipe.vocab.tokens), counts, 1, 0, 4, "W")
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), w)
    red = [s for s in fig.layout.shapes if s.line.color == charts.SELECT_COLOR]
    assert len(red) == 1 and red[0].y0 == 3.5  # row 4, drawn at position 4
    assert fig.data[0].y[2] == "2 · 영화  ×2"


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


def test_figures_built_without_validation_are_what_plotly_validation_makes_of_them():
    """The builders skip Plotly's validation for speed: re-validating their output must change nothing
    (a misspelt property raises here; a string title Plotly would expand to {"text": …} shows up)."""
    import plotly.graph_objects as go

    lab, points = trained_points()
    v = lab.recipe.vocab
    used = lab.batch.id_counts(v.size).numpy() > 0
    w = lab.weight.detach().numpy()
    counts = lab.batch.id_counts(v.size).numpy()
    figs = [charts.w_heatmap(w, np.arange(v.size), list(v.tokens), counts, v.pad_id, v.unk_id, 3, "W"),
            charts.output_heatmap(w[:4], list(v.tokens)[:4], [0, 1, 2, 3], 1, "out"),
            charts.loss_curve(lab.losses, "loss")]
    for k in (1, 2, 3):
        snaps = sorted(lab.snapshots)
        frame = fit_frame([lab.snapshots[s] for s in snaps], k)
        pts = {s: frame.transform(lab.snapshots[s]) for s in snaps}
        ranges, titles = axis_ranges(list(pts.values())), [f"PC{j + 1}" for j in range(k)]
        figs.append(charts.pca_scatter(pts, 15, list(v.tokens), v.pad_id, v.unk_id, used, 2, ranges, np.flatnonzero(used), "t", titles))
        figs.append(charts.pca_animation(pts, list(v.tokens), v.pad_id, v.unk_id, used, 2, ranges, "t", titles))
    assert points  # the fixture trained
    for fig in figs:  # compared as sent to the browser (JSON), but for the template validation would fill in
        sent = json.loads(fig.to_json())
        assert sent == plotly_to_dict_json(fig)  # charts._Figure encodes its arrays as Plotly itself does
        validated = json.loads(go.Figure(fig.to_plotly_json()).to_json())
        assert sent["layout"].pop("template") == {}
        validated["layout"].pop("template")
        assert validated == sent


def plotly_to_dict_json(fig) -> dict:
    """The figure as Plotly's own ``go.Figure.to_dict`` (deep copy, then base64 per array) would send it."""
    import plotly.graph_objects as go
    import plotly.io as pio

    return json.loads(pio.to_json(go.Figure.to_dict(fig), validate=False))


def test_a_big_scatter_draws_every_looked_up_row_and_an_even_stride_of_the_others():
    v = 100_000
    rng = np.random.default_rng(1)
    xy = rng.standard_normal((v, 2)).astype(np.float32)
    used = np.zeros(v, bool)
    used[rng.integers(2, v, 9000)] = True
    fig = charts.pca_scatter({0: xy}, 0, [f"w{i}" for i in range(v)], 1, 0, used, 5, [(-5, 5), (-5, 5)],
                             np.array([], int), "t", ["a", "b"])
    drawn = {tr.name: np.asarray(tr.customdata) for tr in fig.data if tr.name != "trails"}
    plain = np.flatnonzero(~used & (np.arange(v) > 1) & (np.arange(v) != 5))
    assert set(drawn["used"]) | {5} == set(np.flatnonzero(used)) | {5}  # every looked-up row
    assert len(drawn["plain"]) <= charts.MAX_PLAIN_POINTS < len(plain) and set(drawn["plain"]) <= set(plain)
    np.testing.assert_array_equal(drawn["plain"], plain[::int(np.ceil(len(plain) / charts.MAX_PLAIN_POINTS))])
    i = int(drawn["plain"][7])
    assert (float(trace(fig, "plain").x[7]), float(trace(fig, "plain").y[7])) == (float(xy[i, 0]), float(xy[i, 1]))
    assert json.loads(fig.to_json()) == plotly_to_dict_json(fig)  # ids past int16: narrowed to int32 as Plotly does


def test_arrays_are_encoded_as_plotly_encodes_them():
    """charts._plain against Plotly's own convert_to_base64, array kind by array kind, as JSON."""
    import copy

    from _plotly_utils.utils import PlotlyJSONEncoder, convert_to_base64

    big = np.iinfo(np.int32).max + 1
    arrays = [np.array([1, -2], np.int64), np.array([300, -2], np.int64), np.array([70_000, 1], np.int64),
              np.array([big, 1], np.int64), np.array([1, 2], np.uint8), np.array([0.5, np.nan], np.float32),
              np.arange(6, dtype=np.float64).reshape(2, 3), np.array([], np.float32), np.array(["a", "b"], object),
              np.array([True, False])]
    for a in arrays:
        spec = {"data": [{"x": a, "marker": {"color": a}}], "layout": {"xaxis": {"range": a}}}
        theirs = copy.deepcopy(spec)
        convert_to_base64(theirs)
        ours = charts._plain(spec)
        as_json = lambda d: json.dumps(d, cls=PlotlyJSONEncoder, sort_keys=True)  # noqa: E731
        assert as_json(ours) == as_json(theirs), a
        assert isinstance(ours["data"][0]["x"], dict) == isinstance(theirs["data"][0]["x"], dict), a
