"""A lesson's figure made to read at a given type size in a known width and height: presentation mode's
24 px at a projector's 1280×720 (components/lessons.py), and the 15 px of a heatmap's numbers otherwise.

Pure Plotly, no streamlit. Plotly neither wraps nor shrinks text to its room, so at 24 px a subplot
title runs into its neighbour, a heatmap's four-digit numbers run over their cells and a row's
label over the panel to its left. `for_projector` estimates each text's width from its characters
(`text_px`) and makes room instead: titles and notes wrapped to their panel, the margins grown to
hold them, numbers written in cells only where they fit (the figure's numbers are in its table
either way), a panel's row labels shown once when the panel to its left has the same rows, a note
under the axis titles and the legend under both. The figure keeps the height it is given, so that
what follows it stays on the screen, unless its rows need more (`least_plot`); presenting, that is
the height a lesson's verdict leaves it (`present_height`).
"""

from __future__ import annotations

import re

import plotly.graph_objects as go

from components.lesson_figures import readable, text_px  # noqa: F401 (text_px: re-exported)

PLOT_W = 1100  # px: a lesson's figure presenting at 1280×720 (sidebar folded, the box's padding taken)
NORMAL_W = 820  # px: … beside the open sidebar at 1280 px, otherwise
CELL_EMS = 4.4  # a cell's number ("-0.3414": sign, point, four digits) is about this many ems wide
LINE = 1.3  # a line of text is this many times its type size tall
MODE_BAR = 36  # px above the figure's titles for Plotly's mode bar (it must not cover a title)
ROW_EMS = 1.0  # a heatmap's labelled row is at least one em of its labels tall (the labels do not overlap)
PANEL_LINES = 3.5  # any other panel is at least this many lines of text tall …
BAR_LINES = 2.5  # … and a colour bar (its three numbers), on its own side of the plot
X_GAP_EMS = 1.6  # under a plot, the ticks', the x title's and Plotly's own gaps, in ems
LEGEND_LINES = 1.2  # a legend of one row


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


# Presenting at 1280×720, a lesson's box (sections/lessons_section.py) holds the figure and, under
# it, the verdict; the figure gets the height the verdict leaves (its text wrapped as the box wraps it).
PRESENT_BOX_H = 462  # px: the lesson's box, the window less the page's rows above it (and a little to spare)
PRESENT_GAP = 10  # px between the figure and the verdict (the box's gap)
VERDICT_PX = 22.1  # the verdict's type size (1.3rem) …
VERDICT_LINE = 30  # px: … its lines' height …
VERDICT_PAD = 20  # px: … its box's padding, above and below …
VERDICT_W = 1100  # px: … and the width its text wraps in


def present_height(verdict: str) -> int:
    """A figure's height presenting, above a verdict that says ``verdict`` (Markdown)."""
    plain = re.sub(r"\\(.)", r"\1", verdict.replace("**", "").replace("`", ""))
    paragraphs = [p for p in plain.split("\n\n") if p.strip()]
    lines = sum(wrap(p, VERDICT_W, VERDICT_PX)[1] for p in paragraphs) + 0.6 * (len(paragraphs) - 1)
    return int(PRESENT_BOX_H - PRESENT_GAP - VERDICT_PAD - lines * VERDICT_LINE)


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


def least_plot(fig: go.Figure, px: float) -> float:
    """The least height of ``fig``'s plot area (between its margins) at ``px``: every row of a heatmap
    `ROW_EMS` ems, any other panel `PANEL_LINES` lines, each in its share of the height."""
    need = 0.0
    for trace in fig.data:
        lo, hi = _domain(fig, "y", trace.yaxis or "y")
        rows = len(trace.z) if trace.type == "heatmap" and trace.z is not None else 0
        panel = rows * ROW_EMS * px if rows else PANEL_LINES * LINE * px
        need = max(need, panel / max(hi - lo, 0.05))
        if trace.type == "heatmap" and trace.showscale is not False and trace.colorbar.len:
            need = max(need, BAR_LINES * LINE * px / trace.colorbar.len)
    return need


def for_projector(fig: go.Figure, px: int, width: float = PLOT_W, height: int | None = None,
                  mode_bar: bool = True) -> go.Figure:
    """``fig`` with every text at ``px`` or more, laid out to fit ``width`` and ``height`` (its own
    height when None; more only when `least_plot` needs more); ``mode_bar``: room above the titles
    for Plotly's mode bar (see the module's doc)."""
    readable(fig, px)
    _same_rows_once(fig)
    drop_narrow_cells(fig, px, width)
    for trace in fig.data:  # a colour bar's title beside it: above it, it takes the bar's own length
        if trace.type == "heatmap" and trace.showscale is not False and trace.colorbar.title.text:
            trace.colorbar.update(len=1, title_side="right")
    top_lines, notes = 1, []
    panels = [(_domain(fig, "x", f"x{k[5:]}")) for k in fig.layout if k.startswith("xaxis")] or [(0.0, 1.0)]
    titles = [a for a in fig.layout.annotations if a.xref == "paper" and a.text and a.yref == "paper"
              and a.yanchor == "bottom" and a.showarrow is False]
    for note in fig.layout.annotations:
        if note.xref != "paper" or not note.text:
            continue
        if note in titles:  # a subplot's title: over its panel, and halfway to the titles beside it
            span = min((hi - lo for lo, hi in panels if lo - 0.02 <= note.x <= hi + 0.02), default=1.0)
            beside = [abs(o.x - note.x) / 2 for o in titles if o is not note and abs(o.y - note.y) < 0.01]
            room = 0.95 * 2 * min(beside + [note.x + 0.02, 1.02 - note.x])
            note.text, lines = wrap(note.text, max(span * 1.1, room) * width, px)
            if note.y >= 0.99:
                top_lines = max(top_lines, lines)
        else:  # a note under the figure
            note.text, lines = wrap(note.text, 0.95 * width, px)
            notes.append((note, lines))
    margin = fig.layout.margin
    total = height or fig.layout.height or 450
    # above the titles, the mode bar's room (a builder's own top margin is that room at its smaller type)
    top = max(margin.t or 0, MODE_BAR + top_lines * LINE * px) if mode_bar else (top_lines + 0.25) * LINE * px
    plot_h = max(total - top - (margin.b or 0), 4 * px)
    titled = bool(fig.layout.annotations)
    x_lines = 1  # under the plot: the tick labels, then the x axis's title
    for name in fig.layout:  # axis titles: an x title to its panel's width, a y title (drawn turned) to its height
        if name[1:5] == "axis" and fig.layout[name].title.text:
            axis = fig.layout[name]
            lo, hi = tuple(axis.domain) if axis.domain else (0.0, 1.0)
            left = _domain(fig, "x", axis.anchor)[0] if name[0] == "y" and (axis.anchor or "").startswith("x") else 0.0
            if left > 0.05 and titled:  # in the gap between panels it would cover the left one;
                axis.title.text = None  # the panel's own title says what it shows
                continue
            axis.title.text, lines = wrap(axis.title.text, (hi - lo) * (width if name[0] == "x" else plot_h), px)
            if name[0] == "x":
                x_lines = max(x_lines, 1 + lines)
    below = x_lines * LINE * px + X_GAP_EMS * px
    for note, lines in notes:  # under the axis titles, whatever the plot's height (a paper y moves with it)
        note.update(y=0, yref="paper", yanchor="top", yshift=-below)
        below += lines * LINE * px
    bottom = max(margin.b or 0, below)
    if fig.layout.showlegend:
        fig.update_layout(legend=dict(orientation="h", x=0, xanchor="left", y=0, yanchor="bottom", yref="container"))
        bottom += LEGEND_LINES * LINE * px
    fig.update_layout(margin=dict(t=top, b=bottom), height=int(max(total, top + bottom + least_plot(fig, px))))
    return fig
