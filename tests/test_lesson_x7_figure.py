"""X7's figure (issue 37, #2): its two panels share one x- and y-range, and its step labels are never
printed on top of each other (PAD, still in the fixed frame, gets one label for the run of steps)."""

from __future__ import annotations

import numpy as np

from components.lesson_figures import step_labels
from tests.test_lessons import drawn_of, lab_a


def test_both_panels_share_one_range_and_no_two_labels_sit_on_one_spot():
    lab = lab_a(optimizer="momentum", lr=0.5)
    lab.run(3)
    d, drawn = drawn_of("X7", lab)
    layout = drawn.figure.layout
    assert tuple(layout.yaxis.range) == tuple(layout.yaxis2.range)
    assert tuple(layout.xaxis.range) == tuple(layout.xaxis2.range)
    pad = d.figure["pad"]
    for trace, key in ((drawn.figure.data[1], "refit"), (drawn.figure.data[3], "fixed")):
        path = np.asarray(d.figure[key], dtype=float)[:, pad]
        lo_x, hi_x = layout.xaxis.range
        lo_y, hi_y = layout.yaxis.range
        assert ((path[:, 0] >= lo_x) & (path[:, 0] <= hi_x) & (path[:, 1] >= lo_y) & (path[:, 1] <= hi_y)).all()
        shown = [(round(x, 9), round(y, 9)) for x, y, text in zip(trace.x, trace.y, trace.text) if text]
        assert len(shown) == len(set(shown)), (key, trace.text)
    fixed_text = [t for t in drawn.figure.data[3].text if t]
    steps = d.figure["steps"]
    assert fixed_text == [f"{steps[0]}\u2013{steps[-1]}"]  # PAD still: one label for every step


def test_step_labels_merge_only_runs_of_points_that_coincide():
    path = np.array([[0, 0], [0, 0], [1, 1], [1, 1.0001], [2, 2]], dtype=float)
    assert step_labels(path, [0, 1, 2, 3, 4], 0.01) == ["0\u20131", "", "2\u20133", "", "4"]
    assert step_labels(path[:1], [7], 0.01) == ["7"]


def test_heatmap_numbers_are_at_least_14_px_and_titles_sit_below_the_mode_bar():
    from components.lesson_figures import _heatmap, _layout
    import plotly.graph_objects as go

    trace = _heatmap([[0.5, -0.25]], ["a"])
    assert trace.textfont.size >= 14
    fig = _layout(go.Figure(trace), 300)
    assert fig.layout.margin.t >= 80  # Plotly's mode bar is ~30 px; a subplot title sits just above the plot
