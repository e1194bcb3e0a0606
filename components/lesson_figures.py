"""What each lesson draws: the plain data of a `Demo.figure` in, a Plotly figure and its numbers out.

Pure builders, no streamlit: tests read the arrays drawn (``fig.data[i].z``, ``.y``) and compare
them with their own torch computation. Each builder also returns its numbers as tables (screen
readers and anyone who wants the exact values) and a one-sentence ``alt`` text for the chart.
Every label, axis title and table header is in the page's language.

    >>> drawn = draw("en", run_demo("C4", lab))
    >>> drawn.figure.data[3].z          # the looked-up rows W[ids], one per token of sentence 1
    >>> drawn.tables[0].columns[0]      # 'position'
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from components.charts import PAD_COLOR, SELECT_COLOR, USED_COLOR, safe_figure
from components.i18n import t
from components.palette import colorscale, role_color
from core.lessons import Demo

MAX_CELL_TEXT = 64  # write values in heatmap cells up to this many cells per panel (more: unreadable)
WRONG_COLOR = "#d93025"


@dataclass(frozen=True)
class Drawn:
    """A lesson's picture: ``figure`` (None for C16, whose picture is its code), ``alt`` text,
    the numbers as tables, ``code`` for a lesson that shows code beside its run, and ``shown``:
    tables that belong on the page itself (C10's sentences), not folded away with the numbers."""

    figure: go.Figure | None
    alt: str
    tables: tuple[pd.DataFrame, ...]
    code: str | None = None
    shown: tuple[pd.DataFrame, ...] = ()


# ---- numbers as text -------------------------------------------------------------------------------
def number(x: float) -> str:
    """4 significant digits; exact zero as "0" (never "-0"); inf and nan as Python writes them."""
    if math.isinf(x) or math.isnan(x):
        return str(x)
    return "0" if x == 0 else f"{x:.4g}"


def vector_text(v) -> str:
    return "[" + ", ".join(number(float(x)) for x in v) + "]"


def _w(lang: str, key: str, **params) -> str:
    """A figure's word: ``"C1.before"`` is lesson C1's own (``lesson.C1.fig.before``), ``"token"`` shared."""
    lesson_id, _, rest = key.partition(".")
    name = f"lesson.{lesson_id}.fig.{rest}" if rest else f"lesson.fig.{key}"
    return t(lang, name, **params)


# ---- shared pieces ----------------------------------------------------------------------------------
CELL_FONT_PX = 15  # a number written in a heatmap's cell: at least 14 px (issue 37)
LEAST_PX = 14  # no text in a lesson's figure is smaller (`readable`)
PRESENT_PX = 24  # … in presentation mode, read from the back of a classroom


def _heatmap(z, labels: list[str], absmax: float | None = None, scale_title: str | None = None) -> go.Heatmap:
    """A heatmap of rows (labelled) × components on W's one diverging scale (components.palette),
    from -absmax to absmax (the stage's ends for a panel of W; the panel's own largest |value| when
    None); numbers written in the cells when few; with the colour bar when ``scale_title`` is given."""
    z = np.asarray(z, dtype=float).reshape(len(labels), -1)
    finite = np.abs(z[np.isfinite(z)])
    end = absmax if absmax else float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    text = ([[number(v) if math.isfinite(v) else "" for v in row] for row in z]  # a cell not computed stays blank
            if z.size <= MAX_CELL_TEXT else None)
    bar = dict(title=dict(text=scale_title, side="top"), thickness=14, len=0.8, tickvals=[-end, 0, end],
               ticktext=[number(-end), "0", number(end)]) if scale_title else None
    return go.Heatmap(z=z, x=list(range(z.shape[1])), y=list(range(len(labels))), text=text,
                      texttemplate="%{text}" if text else None, textfont=dict(size=CELL_FONT_PX),
                      colorscale=colorscale(), zmin=-end, zmax=end,
                      showscale=scale_title is not None, colorbar=bar, hovertemplate="%{z:.4g}<extra></extra>")


def _label_rows(fig: go.Figure, col: int, labels: list[str], row: int = 1, title: str | None = None) -> None:
    fig.update_yaxes(tickmode="array", tickvals=list(range(len(labels))), ticktext=labels, autorange="reversed",
                     title_text=title, row=row, col=col)


def _box_row(fig: go.Figure, col: int, y: int, width: int, color: str, row: int = 1) -> None:
    """Outline row ``y`` of the heatmap in subplot (row, col)."""
    fig.add_shape(type="rect", x0=-0.5, x1=width - 0.5, y0=y - 0.5, y1=y + 0.5, line=dict(color=color, width=3),
                  row=row, col=col)


def text_px(text: str, px: float) -> float:
    """About how wide ``text`` is at ``px``: a wide (Hangul, CJK) character one em, any other 0.58 em."""
    return sum(px if unicodedata.east_asian_width(c) in "WF" else 0.58 * px for c in text)


def label_gap(labels: list[str], most: float = 0.22) -> float:
    """A subplot gap (a fraction of the figure's width) that holds the row labels of the panel to its
    right: sized for presentation mode's 24 px in its 1,100 px, which also holds the 14 px labels
    beside the open sidebar at 1280 (820 px)."""
    return min(most, max(0.06, (max((text_px(s, 24) for s in labels), default=0) + 24) / 1100))


def _layout(fig: go.Figure, height: int) -> go.Figure:
    # t: room for Plotly's mode bar above the subplot titles (it covered the right one's title).
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=80, b=40), showlegend=False,
                      font=dict(size=14))
    return fig


def readable(fig: go.Figure, px: int = LEAST_PX) -> go.Figure:
    """Every text of ``fig`` at ``px`` or more: the layout's font, titles, ticks, the legend, the colour
    bars, the annotations (subplot titles) and the numbers written on traces. Each is set where it is
    drawn, since Streamlit's theme sets its own smaller sizes for ticks and legends."""
    def at_least(size) -> int:
        return max(px, size or 0)

    fig.update_layout(font_size=at_least(fig.layout.font.size), legend_font_size=px, title_font_size=px,
                      hoverlabel_font_size=px)
    for a in fig.layout.annotations:
        a.font.size = at_least(a.font.size)
    fig.update_xaxes(tickfont_size=px, title_font_size=px)
    fig.update_yaxes(tickfont_size=px, title_font_size=px)
    for trace in fig.data:
        if trace.type in ("heatmap", "bar", "scatter"):
            trace.textfont.size = at_least(trace.textfont.size)
        if trace.type == "heatmap" and trace.showscale is not False:
            trace.colorbar.tickfont.size = px
            trace.colorbar.title.font.size = px
    return fig


def _component_axis(fig: go.Figure, lang: str, cols: list[int]) -> None:
    for col in cols:
        fig.update_xaxes(title_text=_w(lang, "component"), row=1, col=col, dtick=1)


# ---- one builder per kind of picture ------------------------------------------------------------------
def _renumbered(lang: str, d: dict) -> Drawn:
    """C1: one sentence under the learner's numbering and under a random renumbering."""
    before = [f"{tok} ({i})" for tok, i in zip(d["tokens"], d["ids"])]
    after = [f"{tok} ({i})" for tok, i in zip(d["tokens"], d["new_ids"])]
    fig = make_subplots(1, 2, subplot_titles=(_w(lang, "C1.before"), _w(lang, "C1.after")), horizontal_spacing=0.18)
    fig.add_trace(_heatmap(d["vectors"], before, d.get("absmax")), 1, 1)
    fig.add_trace(_heatmap(d["new_vectors"], after, d.get("absmax"), "W"), 1, 2)
    _label_rows(fig, 1, before, title=_w(lang, "token_id"))
    _label_rows(fig, 2, after)
    _component_axis(fig, lang, [1, 2])
    table = pd.DataFrame({_w(lang, "token"): d["tokens"], _w(lang, "id"): d["ids"], _w(lang, "new_id"): d["new_ids"],
                          _w(lang, "vector"): [vector_text(v) for v in d["vectors"]],
                          _w(lang, "new_vector"): [vector_text(v) for v in d["new_vectors"]],
                          _w(lang, "bitwise_equal"): [t(lang, "lesson.yes" if a == b else "lesson.no")
                                                      for a, b in zip(d["vectors"], d["new_vectors"])]})
    same = all(a == b for a, b in zip(d["vectors"], d["new_vectors"]))
    alt = _w(lang, "C1.alt", n=len(before), same=t(lang, "lesson.yes" if same else "lesson.no"))
    return Drawn(_layout(fig, 140 + 38 * len(before)), alt, (table,))


def _one_hot(lang: str, d: dict) -> Drawn:
    """C4, laid out as a product is written: W above, the one-hot rows to the left of their product,
    and the lookup W[ids] beside it; the selected token is lit in all four."""
    rows = [f"{tok} ({i})" for tok, i in zip(d["tokens"], d["ids"])]
    cols = [f"{tok} ({i})" for tok, i in zip(d["col_tokens"], d["cols"])]
    w_cols = d.get("w_cols", d["cols"])  # the rows of W drawn: those of the one-hot's columns, or fewer
    w_labels = [cols[d["cols"].index(i)] for i in w_cols]
    some = len(cols) < d["vocab_size"]  # only the columns that hold a 1 (the others add nothing to the product)
    titles = ("", _w(lang, "C4.w_some" if some or len(w_cols) < len(cols) else "C4.w"), "",
              _w(lang, "C4.one_hot_some" if some else "C4.one_hot", k=len(cols), V=d["vocab_size"]),
              _w(lang, "C4.product"), _w(lang, "C4.lookup"))
    n_rows, n_cols, n_w = len(rows), len(cols), len(w_cols)
    fig = make_subplots(2, 3, subplot_titles=titles, column_widths=[0.44, 0.28, 0.28],
                        row_heights=[n_w / (n_w + n_rows), n_rows / (n_w + n_rows)],
                        horizontal_spacing=0.1, vertical_spacing=0.16)
    one_hot = np.asarray(d["one_hot"], dtype=float).reshape(n_rows, n_cols)
    fig.add_trace(go.Heatmap(z=one_hot, x=list(range(n_cols)), y=list(range(n_rows)),
                             colorscale=[[0, "#ffffff"], [1, role_color("ink")]], zmin=0, zmax=1, showscale=False,
                             xgap=1, ygap=1, hovertemplate="%{z}<extra></extra>"), 2, 1)
    fig.add_trace(_heatmap(d["w_rows"], w_labels, d.get("absmax"), "W"), 1, 2)
    fig.add_trace(_heatmap(d["product"], rows, d.get("absmax")), 2, 2)
    fig.add_trace(_heatmap(d["lookup"], rows, d.get("absmax")), 2, 3)
    _label_rows(fig, 1, rows, row=2, title=_w(lang, "token_id"))
    _label_rows(fig, 2, w_labels, row=1)
    _label_rows(fig, 2, rows, row=2)
    _label_rows(fig, 3, rows, row=2)
    used = sorted({d["cols"].index(i) for i in d["ids"] if i in d["cols"]})  # label only the columns that hold a 1
    fig.update_xaxes(tickmode="array", tickvals=used, ticktext=[str(d["cols"][c]) for c in used],
                     range=[-0.5, n_cols - 0.5], title_text=_w(lang, "id"), tickangle=0, row=2, col=1)
    # W's columns are the product's below (same column of the grid, same ticks): numbered once, below,
    # where W's own numbers would run into the product's title
    fig.update_xaxes(dtick=1, showticklabels=False, row=1, col=2)
    for col in (2, 3):
        fig.update_xaxes(title_text=_w(lang, "component"), dtick=1, row=2, col=col)
    fig.update_xaxes(visible=False, row=1, col=1)
    fig.update_yaxes(visible=False, row=1, col=1)
    s = d["selected"]
    e = len(d["lookup"][0]) if d["lookup"] else 0
    _box_row(fig, 1, s, n_cols, SELECT_COLOR, row=2)
    if d["ids"][s] in w_cols:
        _box_row(fig, 2, w_cols.index(d["ids"][s]), e, SELECT_COLOR, row=1)
    _box_row(fig, 2, s, e, SELECT_COLOR, row=2)
    _box_row(fig, 3, s, e, SELECT_COLOR, row=2)
    table = pd.DataFrame({_w(lang, "position"): list(range(n_rows)), _w(lang, "token"): d["tokens"],
                          _w(lang, "id"): d["ids"], _w(lang, "product_row"): [vector_text(v) for v in d["product"]],
                          _w(lang, "lookup_row"): [vector_text(v) for v in d["lookup"]],
                          _w(lang, "bitwise_equal"): [t(lang, "lesson.yes" if a == b else "lesson.no")
                                                      for a, b in zip(d["product"], d["lookup"])]})
    alt = _w(lang, "C4.alt", token=d["tokens"][s], id=d["ids"][s], V=d["vocab_size"])
    fig = _layout(fig, max(330, 100 + 27 * (n_rows + n_cols))).update_layout(margin=dict(t=40, b=30))
    return Drawn(fig, alt, (table,))


def _histogram(lang: str, d: dict) -> Drawn:
    """C7: the fresh table's entries per bin against the counts N(0, 1) would give."""
    edges = np.asarray(d["edges"])
    centers = (edges[:-1] + edges[1:]) / 2
    width = float(edges[1] - edges[0])
    fig = go.Figure()
    fig.add_trace(go.Bar(x=centers, y=d["fresh"], width=width, marker_color=USED_COLOR, opacity=0.75,
                         name=_w(lang, "C7.fresh")))
    if d["now"] is not None:
        fig.add_trace(go.Bar(x=centers, y=d["now"], width=width, marker_color=PAD_COLOR, opacity=0.5,
                             name=_w(lang, "C7.now", steps=d["steps"])))
    fig.add_trace(go.Scatter(x=centers, y=d["expected"], mode="lines", line=dict(color=SELECT_COLOR, width=3),
                             name=_w(lang, "C7.expected")))
    fig.update_layout(barmode="overlay", xaxis_title=_w(lang, "C7.x"), yaxis_title=_w(lang, "count"))
    _layout(fig, 380).update_layout(showlegend=True, legend=dict(orientation="h", y=1.12))
    columns = {_w(lang, "C7.bin"): [f"[{number(a)}, {number(b)})" for a, b in zip(edges[:-1], edges[1:])],
               _w(lang, "C7.fresh"): d["fresh"], _w(lang, "C7.expected"): [number(x) for x in d["expected"]]}
    if d["now"] is not None:
        columns[_w(lang, "C7.now", steps=d["steps"])] = d["now"]
    alt = _w(lang, "C7.alt", n=d["samples"])
    return Drawn(fig, alt, (pd.DataFrame(columns),))


def _seeds(lang: str, d: dict) -> Drawn:
    """C9: the direction of the last class in W after the same training from two seeds."""
    titles = tuple(_w(lang, "C9.panel", seed=d[k], cls=d["class"]) for k in ("seed_a", "seed_b"))
    fig = make_subplots(1, 2, subplot_titles=titles, shared_yaxes=True)
    for col, (key, top) in enumerate((("a", d["top_a"]), ("b", d["top_b"])), start=1):
        colors = [SELECT_COLOR if j == top else USED_COLOR for j in range(len(d[key]))]
        fig.add_trace(go.Bar(x=list(range(len(d[key]))), y=d[key], marker_color=colors,
                             hovertemplate="%{x}: %{y:.4g}<extra></extra>"), 1, col)
    _component_axis(fig, lang, [1, 2])
    fig.update_yaxes(title_text=_w(lang, "C9.y"), row=1, col=1, range=[-1, 1])
    table = pd.DataFrame({_w(lang, "component"): list(range(len(d["a"]))),
                          _w(lang, "seed", seed=d["seed_a"]): [number(x) for x in d["a"]],
                          _w(lang, "seed", seed=d["seed_b"]): [number(x) for x in d["b"]]})
    alt = _w(lang, "C9.alt", a=d["seed_a"], b=d["seed_b"], top_a=d["top_a"], top_b=d["top_b"],
             cos=number(d["seed_cos"]), cls=d["class"])
    return Drawn(_layout(fig, 380), alt, (table,))


def _same_id(lang: str, d: dict) -> Drawn:
    """C10: the sentences used; the vectors of one id at each of its positions, and the LSTM's outputs there."""
    labels = [_w(lang, "at", b=b, t=p) for b, p in d["positions"]]
    fig = make_subplots(1, 2, subplot_titles=(_w(lang, "C10.vectors", token=d["token"]), _w(lang, "C10.lstm")),
                        horizontal_spacing=0.2)
    fig.add_trace(_heatmap(d["vectors"], labels, d.get("absmax")), 1, 1)
    fig.add_trace(_heatmap(d["lstm"], labels), 1, 2)
    _label_rows(fig, 1, labels)
    _label_rows(fig, 2, labels)
    _component_axis(fig, lang, [1, 2])
    sentences = pd.DataFrame({_w(lang, "sentence"): [b for b, _ in d["sentences"]],
                              _w(lang, "tokens"): [" ".join(f"[{tok}]" if tok == d["token"] else tok for tok in toks)
                                                   for _, toks in d["sentences"]]})
    vectors = pd.DataFrame({_w(lang, "position"): labels, _w(lang, "vector"): [vector_text(v) for v in d["vectors"]],
                            _w(lang, "lstm_output"): [vector_text(v) for v in d["lstm"]]})
    alt = _w(lang, "C10.alt", token=d["token"], n=len(labels))
    return Drawn(_layout(fig, 150 + 36 * len(labels)), alt, (vectors,), shown=(sentences,))


def _wrong_pad(lang: str, d: dict) -> Drawn:
    """C12: the lookup of a layer built with the right padding_idx and one built with the UNK id; wrong rows marked."""
    labels = [f"b={b}, t={p}: {tok} ({i})" for (b, p), tok, i in zip(d["cells"], d["tokens"], d["ids"])]
    titles = (_w(lang, "C12.right", pad=d["pad_id"]), _w(lang, "C12.wrong", wrong=d["wrong_id"]))
    fig = make_subplots(1, 2, subplot_titles=titles, horizontal_spacing=0.22)
    end = float(np.abs(np.asarray(d["right"] + d["wrong"], dtype=float)).max(initial=0)) or None
    fig.add_trace(_heatmap(d["right"], labels, end), 1, 1)
    fig.add_trace(_heatmap(d["wrong"], labels, end, "W"), 1, 2)
    _label_rows(fig, 1, labels, title=_w(lang, "C12.y"))
    _label_rows(fig, 2, [f"✗ {label}" if bad else label for label, bad in zip(labels, d["wrong_rows"])])
    _component_axis(fig, lang, [1, 2])
    e = len(d["right"][0]) if d["right"] else 0
    for y, bad in enumerate(d["wrong_rows"]):
        if bad:
            _box_row(fig, 2, y, e, WRONG_COLOR)
    fig.layout.annotations[1].font = dict(color=WRONG_COLOR, size=15)
    table = pd.DataFrame({_w(lang, "C12.y"): labels, _w(lang, "C12.right_col"): [vector_text(v) for v in d["right"]],
                          _w(lang, "C12.wrong_col"): [vector_text(v) for v in d["wrong"]],
                          _w(lang, "C12.is_wrong"): [t(lang, "lesson.yes" if b else "lesson.no") for b in d["wrong_rows"]]})
    alt = _w(lang, "C12.alt", wrong=d["wrong_id"], pad=d["pad_id"], n=d["wrong_cells"], total=d["cells_shown"])
    return Drawn(_layout(fig, 160 + 32 * len(labels)), alt, (table,))


def _pad_grad(lang: str, d: dict) -> Drawn:
    """C13: each looked-up row's gradient norm with and without padding_idx; PAD's bar is the point."""
    labels = [f"{tok} ({i})" for tok, i in zip(d["tokens"], d["ids"])]
    pad = d["ids"].index(d["pad_id"])
    fig = make_subplots(1, 2, subplot_titles=(_w(lang, "C13.with", pad=d["pad_id"]), _w(lang, "C13.without")),
                        shared_yaxes=True)
    for col, key in ((1, "with_idx"), (2, "without_idx")):
        colors = [SELECT_COLOR if j == pad else USED_COLOR for j in range(len(labels))]
        fig.add_trace(go.Bar(x=labels, y=d[key], marker_color=colors, text=[number(v) for v in d[key]],
                             textposition="outside", hovertemplate="%{x}: %{y:.4g}<extra></extra>"), 1, col)
        fig.update_xaxes(title_text=_w(lang, "token_id"), row=1, col=col)
    fig.update_yaxes(title_text=_w(lang, "grad_norm"), row=1, col=1)
    table = pd.DataFrame({_w(lang, "token_id"): labels, _w(lang, "C13.with", pad=d["pad_id"]): [number(v) for v in d["with_idx"]],
                          _w(lang, "C13.without"): [number(v) for v in d["without_idx"]]})
    pad_rows = pd.DataFrame({_w(lang, "C13.pad_row"): [_w(lang, "C13.with", pad=d["pad_id"]), _w(lang, "C13.without")],
                             _w(lang, "grad"): [vector_text(d["pad_with"]), vector_text(d["pad_without"])]})
    alt = _w(lang, "C13.alt", pad=d["pad_id"], without=number(d["without_idx"][pad]))
    return Drawn(_layout(fig, 400), alt, (table, pad_rows))


def _code(lang: str, d: dict) -> Drawn:
    """C16: the chapter's code, and what running it gave (no chart: the code and its output are the picture)."""
    vectors = np.asarray(d["vectors"])  # (2, 3, 3)
    cells = [(b, p) for b in range(vectors.shape[0]) for p in range(vectors.shape[1])]
    table = pd.DataFrame({_w(lang, "position"): [f"vectors[{b}, {p}]" for b, p in cells],
                          _w(lang, "id"): [d["inputs"][b][p] for b, p in cells],
                          _w(lang, "vector"): [vector_text(vectors[b, p]) for b, p in cells]})
    return Drawn(None, _w(lang, "C16.alt"), (table,), code=d["code"])


def _block(lang: str, d: dict) -> Drawn:
    """C3: the (B, T, E) output as a block of B slabs (T × E each, side by side), the selected
    cell's row lit, and that cell's vector of E numbers drawn on its own beside the block."""
    out = [np.asarray(slab, dtype=float) for slab in d["out"]]  # b × (t, e)
    nb, (t_n, e_n) = len(out), out[0].shape
    sb, st_ = d.get("selected", [0, 0])
    sb, st_ = min(max(sb, 0), nb - 1), min(max(st_, 0), t_n - 1)
    B, T, E = d["shape"]
    titles = [_w(lang, "C3.slab", b=b) for b in range(nb)] + [_w(lang, "C3.cell", b=sb, t=st_)]
    rows = [f"t={p} {tok}" for b in range(nb) for p, tok in enumerate(d["tokens"][b])]
    fig = make_subplots(1, nb + 1, subplot_titles=titles, horizontal_spacing=label_gap(rows),
                        column_widths=[1.0] * nb + [0.8])
    for b, slab in enumerate(out):
        labels = [f"t={p} {tok}" for p, tok in enumerate(d["tokens"][b])]
        fig.add_trace(_heatmap(slab, labels, d["absmax"]), 1, b + 1)
        _label_rows(fig, b + 1, labels)
    vec = out[sb][st_]
    cell_labels = [str(j) for j in range(len(vec))]
    fig.add_trace(_heatmap(vec[:, None], cell_labels, d["absmax"], "W"), 1, nb + 1)
    _label_rows(fig, nb + 1, cell_labels)  # its title says what it holds: a y title would sit on the panel to its left
    fig.update_xaxes(visible=False, row=1, col=nb + 1)
    _component_axis(fig, lang, list(range(1, nb + 1)))
    _box_row(fig, sb + 1, st_, e_n, SELECT_COLOR)
    fig.add_shape(type="rect", x0=-0.5, x1=0.5, y0=-0.5, y1=len(vec) - 0.5, line=dict(color=SELECT_COLOR, width=3),
                  row=1, col=nb + 1)
    fig.add_annotation(text=_w(lang, "C3.shape", B=B, T=T, E=E, b=nb), xref="paper", yref="paper", x=0, y=0,
                       yanchor="top", yshift=-60, xanchor="left", showarrow=False, font=dict(size=14))  # under the x titles
    cells = [(b, p) for b in range(nb) for p in range(t_n)]
    table = pd.DataFrame({_w(lang, "position"): [f"vectors[{b}, {p}]" for b, p in cells],
                          _w(lang, "token_id"): [f"{d['tokens'][b][p]} ({d['ids'][b][p]})" for b, p in cells],
                          _w(lang, "vector"): [vector_text(out[b][p]) for b, p in cells]})
    alt = _w(lang, "C3.alt", B=B, T=T, E=E, b=sb, t=st_, token=d["tokens"][sb][st_])
    fig = _layout(fig, 190 + 30 * max(t_n, len(vec))).update_layout(margin=dict(b=90))
    return Drawn(fig, alt, (table,))


def _lstm_pads(lang: str, d: dict) -> Drawn:
    """C15: the LSTM's state h_t at every step of one sentence followed by zero inputs, run padded
    (the zero steps computed on) and packed to its true length (they are not); and how far the
    padded state drifts from the state after the last real token."""
    L = d["length"]
    padded = np.asarray(d["padded"], dtype=float)  # (T', H)
    packed = np.full_like(padded, np.nan)
    packed[:L] = np.asarray(d["packed"], dtype=float)  # the zero steps: not computed, drawn empty
    steps = [f"t={p} {tok}" for p, tok in enumerate(d["tokens"])]
    steps += [f"t={p} {d['pad_token']} (0)" for p in range(L, len(padded))]
    end = float(np.nanmax(np.abs(padded))) or 1.0
    titles = (_w(lang, "C15.padded"), _w(lang, "C15.packed"), _w(lang, "C15.drift"))
    fig = make_subplots(1, 3, subplot_titles=titles, column_widths=[0.37, 0.37, 0.26], horizontal_spacing=0.09)
    fig.add_trace(_heatmap(padded, steps, end), 1, 1)
    fig.add_trace(_heatmap(packed, steps, end, "h"), 1, 2)
    _label_rows(fig, 1, steps, title=_w(lang, "C15.step"))
    _label_rows(fig, 2, steps)
    for col in (1, 2):
        fig.update_xaxes(title_text=_w(lang, "C15.unit"), dtick=1, row=1, col=col)
        _box_row(fig, col, L - 1, padded.shape[1], SELECT_COLOR)
    _box_row(fig, 1, len(padded) - 1, padded.shape[1], WRONG_COLOR)
    drift = d["drift"]
    fig.add_trace(go.Scatter(x=list(range(L - 1, len(drift))), y=drift[L - 1:], mode="lines+markers+text",
                             text=[number(v) for v in drift[L - 1:]], textposition="top center",
                             line=dict(color=WRONG_COLOR, width=3), name=_w(lang, "C15.padded_short"),
                             hovertemplate="t=%{x}: %{y:.4g}<extra></extra>"), 1, 3)
    fig.add_trace(go.Scatter(x=[L - 1], y=[0.0], mode="markers", marker=dict(color=SELECT_COLOR, size=12, symbol="diamond"),
                             name=_w(lang, "C15.packed_short"), hovertemplate="t=%{x}: 0<extra></extra>"), 1, 3)
    fig.update_xaxes(title_text=_w(lang, "C15.t"), dtick=1, row=1, col=3)
    fig.update_yaxes(title_text=_w(lang, "C15.drift_y"), rangemode="tozero", row=1, col=3)
    table = pd.DataFrame({_w(lang, "C15.step"): steps,
                          _w(lang, "C15.padded"): [vector_text(h) for h in padded],
                          _w(lang, "C15.packed"): [vector_text(h) if p < L else "—" for p, h in enumerate(padded)],
                          _w(lang, "C15.drift_y"): [number(v) for v in drift]})
    alt = _w(lang, "C15.alt", L=L, n=len(padded) - L, drift=number(drift[-1]))
    fig = _layout(fig, 170 + 34 * len(steps)).update_layout(showlegend=True, legend=dict(orientation="h", y=-0.2))
    return Drawn(fig, alt, (table,))


def _zoom(refit_pad: np.ndarray, fixed: np.ndarray) -> float:
    """Half the width of X7's window: the refitted PAD path with room around it, at least a hundredth of the
    fixed frame's spread, so a path of 0.08 units is visible next to points spread over ±5."""
    path = float(np.abs(refit_pad - refit_pad.mean(axis=0)).max()) if len(refit_pad) else 0.0
    spread = float(np.ptp(fixed.reshape(-1, 2), axis=0).max()) if fixed.size else 1.0
    return max(2.5 * path, 0.01 * spread, 1e-3)


def step_labels(path: np.ndarray, steps: list[int], near: float) -> list[str]:
    """A label per point of a path: its step, or for a run of points within ``near`` of each other
    ("0–3" where PAD stayed still), the run's first and last step on its first point and nothing on
    the others, so labels are never printed on top of each other."""
    labels = [""] * len(steps)
    start = 0
    for i in range(1, len(steps) + 1):
        if i < len(steps) and np.abs(path[i] - path[start]).max() <= near:
            continue
        labels[start] = str(steps[start]) if i - 1 == start else f"{steps[start]}\u2013{steps[i - 1]}"
        start = i
    return labels


def _frames(lang: str, d: dict) -> Drawn:
    """X7: every row's point at each kept step, in a frame refitted per step and in one fixed frame; PAD's path in red."""
    fig = make_subplots(1, 2, subplot_titles=(_w(lang, "X7.refit"), _w(lang, "X7.fixed")))
    pad = d["pad"]
    half = _zoom(np.asarray(d["refit"], dtype=float)[:, pad], np.asarray(d["fixed"], dtype=float))
    # One window for both panels (the same x- and y-range): both zoom on PAD's paths, by the same
    # amount, so a move in one and stillness in the other are seen on one scale.
    paths = np.concatenate([np.asarray(d[key], dtype=float)[:, pad] for key in ("refit", "fixed")])
    lo, hi = paths.min(axis=0) - half, paths.max(axis=0) + half
    near = 0.08 * float((hi - lo).max())  # a label's height at 24 px in a panel of ~300 px (presentation mode)
    for col, key in ((1, "refit"), (2, "fixed")):
        pts = np.asarray(d[key], dtype=float)  # (S, n, 2)
        fig.update_xaxes(range=[lo[0], hi[0]], row=1, col=col)
        fig.update_yaxes(range=[lo[1], hi[1]], row=1, col=col)
        others = np.delete(pts, pad, axis=1).reshape(-1, 2)
        fig.add_trace(go.Scatter(x=others[:, 0], y=others[:, 1], mode="markers",
                                 marker=dict(color=PAD_COLOR, size=5, opacity=0.35), hoverinfo="skip"), 1, col)
        fig.add_trace(go.Scatter(x=pts[:, pad, 0], y=pts[:, pad, 1], mode="lines+markers+text",
                                 text=step_labels(pts[:, pad], d["steps"], near), textposition="top center",
                                 marker=dict(color=SELECT_COLOR, size=11), line=dict(color=SELECT_COLOR, width=2),
                                 name=d["pad_token"], hovertemplate="%{fullData.name} %{text}<extra></extra>"), 1, col)
        fig.update_xaxes(title_text=_w(lang, "pc", k=1), row=1, col=col)
        fig.update_yaxes(title_text=_w(lang, "pc", k=2), row=1, col=col)
    refit, fixed = np.asarray(d["refit"]), np.asarray(d["fixed"])
    table = pd.DataFrame({_w(lang, "step"): d["steps"],
                          _w(lang, "X7.pad_refit", pad=d["pad_token"]): [vector_text(p) for p in refit[:, pad]],
                          _w(lang, "X7.pad_fixed", pad=d["pad_token"]): [vector_text(p) for p in fixed[:, pad]]})
    fig.add_annotation(text=_w(lang, "X7.zoom", pad=d["pad_token"]), xref="paper", yref="paper", x=0.5, y=-0.3,
                       showarrow=False, font=dict(size=13))
    alt = _w(lang, "X7.alt", pad=d["pad_token"], n=len(d["steps"]))
    return Drawn(_layout(fig, 500).update_layout(margin=dict(b=110)), alt, (table,))


BUILDERS: MappingProxyType[str, Callable[[str, dict], Drawn]] = MappingProxyType({
    "renumbered": _renumbered, "one_hot": _one_hot, "histogram": _histogram, "seeds": _seeds,
    "same_id": _same_id, "wrong_pad": _wrong_pad, "pad_grad": _pad_grad, "code": _code, "frames": _frames,
    "block": _block, "lstm_pads": _lstm_pads,
})  # read-only


def looked_up_rows(d: dict) -> dict:
    """C4's figure data with only the rows of W that the one-hot's ones pick (``w_cols``; its one-hot keeps
    every column): presenting, W's every row at 24 px leaves no room for the verdict."""
    keep = [j for j, c in enumerate(d["cols"]) if c in set(d["ids"])]
    return {**d, "w_cols": [d["cols"][j] for j in keep], "w_rows": [d["w_rows"][j] for j in keep]}


def draw(lang: str, demo: Demo, selected: int | None = None, present: bool = False) -> Drawn | None:
    """The picture of ``demo`` in ``lang``; None when its lesson draws nothing in this state.
    ``selected``: the token the learner follows (the stage's selection), lit where a figure has it;
    ``present``: presentation mode (`looked_up_rows`)."""
    data: dict[str, Any] = demo.figure
    if not data:
        return None
    if data["kind"] == "block" and selected is not None:
        cells = [[b, p] for b, row in enumerate(data["ids"]) for p, i in enumerate(row) if i == selected]
        data = {**data, "selected": cells[0]} if cells else data
    if data["kind"] == "one_hot" and present:
        data = looked_up_rows(data)
    drawn = BUILDERS[data["kind"]](lang, data)
    if drawn.figure is not None:
        readable(drawn.figure)  # 14 px at least; presentation mode raises it to PRESENT_PX (components/lessons.py)
        safe_figure(drawn.figure)  # every string it holds (tokens, titles) is escaped when it is sent
    return drawn
