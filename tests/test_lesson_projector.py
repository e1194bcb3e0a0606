"""Every text of a lesson's figure at its size (issue 37, #2): 24 px or more in presentation mode
(components/lesson_projector.py), 14 px or more otherwise (lesson_figures.readable), read from the
figure Streamlit is handed; and the room made for it: titles wrapped, numbers only in cells they fit,
the height the verdict leaves it unless its rows need more, a note under the axis titles.
The browser's own measure is tests/e2e/test_lesson_tour.py."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from components.lesson_projector import (LINE, NORMAL_W, PLOT_W, PRESENT_BOX_H, PRESENT_GAP, VERDICT_LINE, VERDICT_PAD,
                                         drop_narrow_cells, for_projector, least_plot, present_height, text_px, wrap)
from core.lessons import LESSON_IDS
from tests.test_lessons import drawn_of, lab_a


def sizes(fig) -> list[tuple[str, float | None]]:
    """(where, px) of every text of ``fig`` that Plotly draws, as the figure sets it."""
    lay = fig.layout
    found = [("font", lay.font.size), ("legend", lay.legend.font.size)]
    found += [(f"annotation {a.text!r}", a.font.size) for a in lay.annotations]
    for name in lay:
        if name[1:5] == "axis":
            found += [(f"{name} ticks", lay[name].tickfont.size), (f"{name} title", lay[name].title.font.size)]
    for i, trace in enumerate(fig.data):
        if getattr(trace, "text", None) is not None:
            found.append((f"trace {i} text", trace.textfont.size))
        if trace.type == "heatmap" and trace.showscale:
            found += [(f"trace {i} colour bar", trace.colorbar.tickfont.size)]
    return found


@pytest.fixture(scope="module")
def figures():
    lab = lab_a()
    lab.run(3)
    out = {}
    for lesson_id in LESSON_IDS:
        try:
            _, drawn = drawn_of(lesson_id, lab)
        except Exception:  # noqa: BLE001  (a lesson that needs what this lab has not: not a figure's concern)
            continue
        if drawn is not None and drawn.figure is not None:
            out[lesson_id] = drawn.figure
    assert {"C1", "C4", "C7", "C15", "X7"} <= set(out), sorted(out)
    return out


def test_every_figure_text_is_at_least_14px(figures):
    for lesson_id, fig in figures.items():
        small = [(w, px) for w, px in sizes(fig) if px is None or px < 14]
        assert small == [], (lesson_id, small)


SHORT_VERDICT = "**Holds** · What was checked: the rows are equal"


def test_presenting_every_figure_text_is_at_least_24px_and_fits_its_panel(figures):
    for lesson_id, fig in figures.items():
        fig = for_projector(go.Figure(fig), 24, height=present_height(SHORT_VERDICT), mode_bar=False)
        small = [(w, px) for w, px in sizes(fig) if px is None or px < 24]
        assert small == [], (lesson_id, small)
        for note in fig.layout.annotations:  # a wrapped title's lines each fit the whole figure at least
            assert all(text_px(line, 24) <= PLOT_W or " " not in line for line in note.text.split("\n")), note.text
        assert fig.layout.height >= present_height(SHORT_VERDICT)
        assert fig.layout.height - fig.layout.margin.t - fig.layout.margin.b >= least_plot(fig, 24) - 1, lesson_id


def test_with_its_mode_bar_a_figure_keeps_room_above_its_titles(figures):
    fig = for_projector(go.Figure(figures["C1"]), 24, height=400)
    assert fig.layout.margin.t >= 36 + 24


def test_a_figure_keeps_the_height_it_is_given_unless_its_rows_need_more():
    few = for_projector(go.Figure(go.Heatmap(z=[[0.5, -0.25]] * 3)), 24, height=300, mode_bar=False)
    assert few.layout.height == 300
    many = for_projector(go.Figure(go.Heatmap(z=[[0.5, -0.25]] * 30)), 24, height=300, mode_bar=False)
    plot = many.layout.height - many.layout.margin.t - many.layout.margin.b
    assert many.layout.height > 300 and plot >= 30 * 24 - 1  # every row at least as tall as its label


def test_a_note_under_the_figure_sits_under_the_axis_titles_at_any_height():
    for height in (300, 600):
        fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))
        fig.update_layout(height=height, xaxis_title="principal component 1")
        fig.add_annotation(text="both panels are zoomed the same", xref="paper", yref="paper", x=0.5, y=-0.3,
                           showarrow=False)
        fig = for_projector(fig, 24, height=height, mode_bar=False)
        note = fig.layout.annotations[0]
        assert (note.y, note.yanchor) == (0, "top") and note.yshift <= -2 * LINE * 24  # below ticks and title
        assert fig.layout.margin.b >= -note.yshift + LINE * 24  # and inside the figure


def test_a_longer_verdict_leaves_the_figure_less_height():
    one_line = PRESENT_BOX_H - PRESENT_GAP - VERDICT_PAD - VERDICT_LINE
    assert present_height(SHORT_VERDICT) == one_line
    assert present_height(SHORT_VERDICT + " and" * 150) <= one_line - 2 * VERDICT_LINE
    failed = "**Did not hold** · What was checked: x\n\nThe state may be too small."
    assert present_height(failed) < one_line - VERDICT_LINE / 2  # a second paragraph


def test_presenting_c4_draws_only_the_rows_of_w_its_ones_pick():
    from components.lesson_figures import draw, looked_up_rows
    from tests.test_lessons import drawn_of, lab_a

    demo, drawn = drawn_of("C4", lab_a())
    d = looked_up_rows(demo.figure)
    assert set(d["w_cols"]) == set(demo.figure["ids"]) and len(d["w_rows"]) == len(d["w_cols"])
    present = draw("en", demo, present=True).figure
    assert len(present.data[1].z) == len(d["w_cols"]) < len(drawn.figure.data[1].z)  # W's rows: those picked
    assert (present.data[0].z == drawn.figure.data[0].z).all()  # the one-hot keeps every column


@pytest.mark.parametrize("px, width", [(24, PLOT_W), (14, NORMAL_W)])
def test_c3s_row_labels_fit_the_gap_to_their_left_beside_the_open_sidebar_and_presenting(figures, px, width):
    """C3's slabs side by side: each panel's row labels ("t=1 <UNK>") are drawn in the gap to its
    left, which must hold them, at 14 px in the 820 px beside the open sidebar at 1280 and at 24 px
    presenting, or they print over the panel before (a native reviewer's screenshot)."""
    fig = figures["C3"]
    axes = sorted((name for name in fig.layout if name.startswith("xaxis")), key=lambda n: int(n[5:] or 1))
    domains = [tuple(fig.layout[name].domain) for name in axes]
    for k in range(1, len(domains)):
        y = fig.layout["yaxis" + (str(k + 1) if k else "")]
        widest = max(text_px(str(label), px) for label in y.ticktext)
        gap = (domains[k][0] - domains[k - 1][1]) * width
        assert gap >= widest + 8, (k, gap, widest)
