"""A lesson's figure made to read at a given type size in a known width: presentation mode's 24 px at a
projector's 1280 px (components/lessons.py), and the 15 px of a heatmap's numbers otherwise.

Pure Plotly, no streamlit. Plotly neither wraps nor shrinks text to its room, so at 24 px a subplot
title runs into its neighbour, a heatmap's four-digit numbers run over their cells and a row's
label over the panel to its left. `for_projector` estimates each text's width from its characters
(`text_px`) and makes room instead: titles and notes wrapped to their panel, the margins (and the
figure's height) grown to hold them, numbers written in cells only where they fit (the figure's
numbers are in its table either way), a panel's row labels shown once when the panel to its left
has the same rows, and the legend below the figure, under the axis titles.
"""

from __future__ import annotations

import unicodedata

import plotly.graph_objects as go

from components.lesson_figures import readable

PLOT_W = 1100  # px: a lesson's figure presenting at 1280×720 (sidebar folded, the box's padding taken)
NORMAL_W = 820  # px: … beside the open sidebar at 1280 px, otherwise
CELL_EMS = 4.4  # a cell's number ("-0.3414": sign, point, four digits) is about this many ems wide
LINE = 1.3  # a line of text is this many times its type size tall
MODE_BAR = 36  # px above the figure's titles for Plotly's mode bar (it must not cover a title)


def text_px(text: str, px: float) -> float:
    """About how wide ``text`` is at ``px``: a wide (Hangul, CJK) character one em, any other 0.58 em."""
    return sum(px if unicodedata.east_asian_width(c) in "WF" else 0.58 * px for c in text)


def wrap(text: str, width: float, px: float) -> tuple[str, int]:
    """``text`` broken at spaces into lines of at most ``width`` px (a word longer than that keeps its
    own line), joined with newlines (Plotly's <br> once escaped: components/safe_text.py); and how
    many lines it makes."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_px(f"{lines[-1]} {word}", px) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return "\n".join(lines), max(len(lines), 1)


def _domain(fig: go.Figure, axis: str, ref: str) -> tuple[float, float]:
    """The paper domain of trace axis ``ref`` ("x", "x2", "y3") on ``axis`` ("x" or "y")."""
    name = f"{axis}axis{ref[1:]}"
    domain = fig.layout[name].domain
    return tuple(domain) if domain else (0.0, 1.0)


def drop_narrow_cells(fig: go.Figure, px: float, width: float) -> go.Figure:
    """Numbers written in a heatmap's cells only where a cell is wide enough for them at ``px``."""
    for trace in fig.data:
        if trace.type != "heatmap" or trace.text is None or trace.z is None or not len(trace.z):
            continue
        lo, hi = _domain(fig, "x", trace.xaxis or "x")
        if (hi - lo) * width / max(len(trace.z[0]), 1) < CELL_EMS * px:
            trace.update(text=None, texttemplate=None)
    return fig


def _same_rows_once(fig: go.Figure) -> None:
    """A heatmap whose rows are those of the heatmap to its left in the same row of panels keeps
    its rows' labels off: they would sit over the left panel's cells."""
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    for right in heatmaps:
        r_axis = fig.layout[f"yaxis{(right.yaxis or 'y')[1:]}"]
        r_x, r_y = _domain(fig, "x", right.xaxis or "x"), _domain(fig, "y", right.yaxis or "y")
        for left in heatmaps:
            l_axis = fig.layout[f"yaxis{(left.yaxis or 'y')[1:]}"]
            l_x, l_y = _domain(fig, "x", left.xaxis or "x"), _domain(fig, "y", left.yaxis or "y")
            if (left is not right and l_y == r_y and l_x[1] <= r_x[0] and r_axis.ticktext
                    and tuple(l_axis.ticktext or ()) == tuple(r_axis.ticktext)):
                r_axis.showticklabels = False
                break


def for_projector(fig: go.Figure, px: int, width: float = PLOT_W) -> go.Figure:
    """``fig`` with every text at ``px`` or more, laid out to fit ``width`` (see the module's doc)."""
    readable(fig, px)
    _same_rows_once(fig)
    drop_narrow_cells(fig, px, width)
    top_lines, extra_b = 1, 0
    panels = [(_domain(fig, "x", f"x{k[5:]}")) for k in fig.layout if k.startswith("xaxis")] or [(0.0, 1.0)]
    for note in fig.layout.annotations:
        if note.xref != "paper" or not note.text:
            continue
        if note.yref == "paper" and note.yanchor == "bottom" and note.showarrow is False:  # a subplot's title
            span = min((hi - lo for lo, hi in panels if lo - 0.02 <= note.x <= hi + 0.02), default=1.0)
            note.text, lines = wrap(note.text, span * width * 1.1, px)
            if note.y >= 0.99:
                top_lines = max(top_lines, lines)
        else:  # a note under the figure
            note.text, lines = wrap(note.text, 0.95 * width, px)
            extra_b += (lines - 1) * LINE * px
    margin = fig.layout.margin
    top = max(margin.t or 0, MODE_BAR + top_lines * LINE * px)
    plot_h = max((fig.layout.height or 450) - top - (margin.b or 0), 4 * px)
    titled = bool(fig.layout.annotations)
    for name in fig.layout:  # axis titles: an x title to its panel's width, a y title (drawn turned) to its height
        if name[1:5] == "axis" and fig.layout[name].title.text:
            axis = fig.layout[name]
            lo, hi = tuple(axis.domain) if axis.domain else (0.0, 1.0)
            left = _domain(fig, "x", axis.anchor)[0] if name[0] == "y" and (axis.anchor or "").startswith("x") else 0.0
            if left > 0.05 and titled:  # in the gap between panels it would cover the left one;
                axis.title.text = None  # the panel's own title says what it shows
                continue
            axis.title.text, _ = wrap(axis.title.text, (hi - lo) * (width if name[0] == "x" else plot_h), px)
    bottom = (margin.b or 0) + extra_b
    if fig.layout.showlegend:
        fig.update_layout(legend=dict(orientation="h", x=0, xanchor="left", y=0, yanchor="bottom", yref="container"))
        bottom += 1.8 * LINE * px
    grown = (top - (margin.t or 0)) + (bottom - (margin.b or 0))
    fig.update_layout(margin=dict(t=top, b=bottom), height=int((fig.layout.height or 450) + grown))
    return fig
