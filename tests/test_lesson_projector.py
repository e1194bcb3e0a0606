"""Every text of a lesson's figure at its size (issue 37, #2): 24 px or more in presentation mode
(components/lesson_projector.py), 14 px or more otherwise (lesson_figures.readable), read from the
figure Streamlit is handed; and the room made for it: titles wrapped, numbers only in cells they fit.
The browser's own measure is tests/e2e/test_lesson_tour.py."""

from __future__ import annotations

import pytest

from components.lesson_projector import PLOT_W, drop_narrow_cells, for_projector, text_px, wrap
from components.lessons import present_height
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


def test_presenting_every_figure_text_is_at_least_24px_and_fits_its_panel(figures):
    for lesson_id, fig in figures.items():
        fig = for_projector(fig.update_layout(height=present_height(fig.layout.height)), 24)
        small = [(w, px) for w, px in sizes(fig) if px is None or px < 24]
        assert small == [], (lesson_id, small)
        for note in fig.layout.annotations:  # a wrapped title's lines each fit the whole figure at least
            assert all(text_px(line, 24) <= PLOT_W or " " not in line for line in note.text.split("\n")), note.text
        assert fig.layout.margin.t >= 36 + 24  # the mode bar above the titles


def test_numbers_are_written_only_in_cells_wide_enough():
    import plotly.graph_objects as go

    wide = go.Figure(go.Heatmap(z=[[0.5, -0.25]], text=[["0.5", "-0.25"]], texttemplate="%{text}"))
    narrow = go.Figure(go.Heatmap(z=[[0.5] * 12], text=[["0.5"] * 12], texttemplate="%{text}"))
    assert drop_narrow_cells(wide, 24, 1100).data[0].text is not None
    assert drop_narrow_cells(narrow, 24, 1100).data[0].text is None


def test_wrap_breaks_at_spaces_and_counts_lines():
    text, lines = wrap("looked up after renumbering at random", 300, 24)
    assert lines == 2 and text.replace("\n", " ") == "looked up after renumbering at random"
    assert wrap("한", 10, 24) == ("한", 1)  # a word longer than the line keeps its own line
