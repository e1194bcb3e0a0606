"""Pure Plotly figure builders: plain arrays in, figures out. No streamlit here, so tests read them directly.

The stage (components/stage/) draws the lookup and training views; Plotly draws what is left: the
loss curve in the step's details, the 3-D PCA scatter and the replay of every kept step.

Each figure is built and validated by Plotly in one ``go.Figure`` call, its NumPy arrays already in
plotly.js's typed-array form (``typed_array``), which is how Plotly would send them.

Every figure the page shows is a `SafeFigure` (`safe_figure`): what it hands to Streamlit is its
data with every string escaped for Plotly's text HTML and templates (components.safe_text
`plotly_spec`), so a token, class name or title from a file or a link shows as itself. Builders
put plain strings in; nothing is escaped twice.

The scatter's marks are the stage's (components/palette.py reads its one definition): PAD a large
diamond, UNK an outlined square, never-looked-up rows grey rings, looked-up rows coloured and shaped
by the class of the sentences they appear in most (a filled grey circle: no majority class), the
selected token outlined; every kind of mark drawn has a legend entry.
"""

from __future__ import annotations

import base64
from types import MappingProxyType

import numpy as np
import plotly.graph_objects as go

from components import palette
from components.safe_text import plotly_spec

PAD_COLOR = "#9aa0a6"
UNK_COLOR = "#e8710a"
USED_COLOR = "#1a73e8"
SELECT_COLOR = "#d93025"
PLAIN_COLOR = "#5f6368"
FONT = MappingProxyType(dict(size=15))


class SafeFigure(go.Figure):
    """A go.Figure whose plain data (what st.plotly_chart and plotly.io serialize) has every string
    escaped by `plotly_spec`. Its traces and layout, read from Python, hold the strings as given."""

    def to_dict(self) -> dict:  # to_plotly_json and plotly.io call this too
        return plotly_spec(super().to_dict())

    def __reduce__(self):  # a copy or a pickle is built from the strings as given, escaped once when sent
        props = go.Figure.to_dict(self)
        props["_grid_str"], props["_grid_ref"] = self._grid_str, self._grid_ref
        return (self.__class__, (props,))


def safe_figure(fig: go.Figure) -> SafeFigure:
    """``fig`` as a `SafeFigure`, the same object (no copy, no second validation)."""
    if not isinstance(fig, SafeFigure):
        fig.__class__ = SafeFigure
    return fig


def chart_config(name: str) -> dict:
    """Plotly's mode bar for st.plotly_chart: the camera button downloads the chart as PNG (``name``.png)."""
    return {"displaylogo": False, "toImageButtonOptions": {"format": "png", "filename": name, "scale": 2}}
MAX_LABELS = 300  # label points in a scatter only up to this many
MAX_ANIMATION_POINTS = 200_000  # frames × points in a client-side animation
MAX_ANIMATION_FRAMES = 100  # frames in a client-side animation (the steps are strided to fit)
MAX_PLAIN_POINTS = 20_000  # rows never looked up drawn in the scatter; more are thinned to an even stride


_PLOTLY_JS_DTYPES = MappingProxyType({"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4",
                                       "uint32": "u4", "float32": "f4", "float64": "f8"})


def typed_array(a: np.ndarray) -> dict | list:
    """``a`` as a plotly.js typed array, ``{"dtype": "f4", "bdata": <base64>[, "shape": "r, c"]}``.

    Plotly's validators take this form as it is and its ``to_dict`` passes it through, so a figure
    built from it is validated and serialized by Plotly's public API without Plotly examining each
    NumPy array (copying it and asking narwhals what kind of array it is while validating, encoding
    it again in ``to_dict``). With the replay's hundreds of arrays that is most of its build and
    serialize time (bench/bench_charts.py).

    plotly.js has no 64-bit integers: int64 (NumPy's default, e.g. ids) is narrowed to the smallest
    int type that holds its values, as Plotly does, or else sent as a list. An empty array is an
    empty list.
    """
    a = np.asarray(a)
    if a.size == 0:
        return []
    if a.dtype == np.int64:
        lo, hi = int(a.min()), int(a.max())
        narrow = next((t for t in (np.int8, np.int16, np.int32) if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max), None)
        if narrow is None:
            return a.tolist()
        a = a.astype(narrow)
    a = np.ascontiguousarray(a)
    spec = {"dtype": _PLOTLY_JS_DTYPES[a.dtype.name], "bdata": base64.b64encode(a).decode("ascii")}
    if a.ndim > 1:
        spec["shape"] = ", ".join(str(n) for n in a.shape)
    return spec


def _layout(height: int, title: str, **kw) -> dict:
    """The layout every chart shares. Figures are built in one ``go.Figure(data, layout, frames)``
    call: each later ``update_*``/``add_shape`` would validate the whole figure again."""
    # template={}: no copy of Streamlit's Plotly template in every figure. It only holds colour
    # placeholders (every colour here is explicit); the browser applies Streamlit's theme either way.
    return dict(height=height, font=dict(FONT), title=dict(text=title), template={}, **kw)


# The charts a Step may redraw (the loss curve while the details are open, the 3-D scatter) have
# numeric axes with room for their labels kept in the margin, so plotly.js skips two passes on each
# draw: measuring every tick label against the page (ticklabeloverflow "hide past div") and growing
# the margin to fit them (automargin), which replots the chart. Those passes were a third of a
# chapter Step in Chromium when Plotly drew the training view (bench/README.md, "Charts in the browser").
FIXED_MARGIN = MappingProxyType(dict(l=80, r=10, t=40, b=50))  # read-only: each layout gets its own copy
FIXED_AXIS = MappingProxyType(dict(ticklabeloverflow="allow", automargin=False))
LEGEND = MappingProxyType(dict(orientation="h", x=0, xanchor="left", y=1.0, yanchor="bottom"))  # one row above the plot


def loss_curve(losses: list[float], title: str, axis_titles: tuple[str, str] = ("step", "loss")) -> SafeFigure:
    """The loss at every step, from step 1. The steps are implied (x0, dx) rather than sent as an
    array, and the losses go as float32, what the loss is: a third of the bytes a long run would send."""
    line = dict(type="scatter", x0=1, dx=1, y=typed_array(np.asarray(losses, dtype=np.float32)),
                mode="lines+markers" if len(losses) < 60 else "lines", line=dict(color=USED_COLOR))
    return SafeFigure(data=[line], layout=_layout(280, title, margin=dict(FIXED_MARGIN), xaxis=dict(title=dict(text=axis_titles[0]), **FIXED_AXIS),
                                                 yaxis=dict(title=dict(text=axis_titles[1]), rangemode="tozero", **FIXED_AXIS)))


SELECTED_OUTLINE = "#5e35b1"  # the stage's selection colour (stage.css --selc)
# scatter3d knows 8 symbols: the nearest of each 2-D mark (colours still tell the classes apart).
SYMBOLS_3D = MappingProxyType({"triangle-up": "x", "triangle-down": "cross", "diamond-wide": "diamond-open",
                               "hexagon": "square", "circle-open": "circle-open", "square-open": "square-open"})


def point_groups(n: int, pad_id: int, unk_id: int, used: np.ndarray, selected: int | None,
                 cls: np.ndarray | None = None, dark: bool = False) -> list[tuple[str, np.ndarray, dict]]:
    """Split the V points into drawn groups (name, ids, marker): one trace per kind of mark, so no
    per-point lists. Names: "plain" (never looked up), "used" (looked up, no majority class),
    "class <c>", "PAD", "UNK", "selected" (drawn as its own kind, outlined)."""
    group = np.where(used, -1, -2)  # -2 plain, -1 looked up with no class, c ≥ 0 its class
    if cls is not None:
        group = np.where(used & (np.asarray(cls) >= 0), np.asarray(cls), group)
    group[unk_id], group[pad_id] = -3, -4
    base = {-2: ("plain", dict(symbol=palette.role_symbol("unused") + "-open", color=palette.role_color("unused", dark), size=8)),
            -1: ("used", dict(symbol=palette.role_symbol("noclass"), color=palette.role_color("noclass", dark), size=11)),
            -3: ("UNK", dict(symbol=palette.role_symbol("unk") + "-open", color=palette.role_color("ink", dark), size=13,
                             line=dict(width=2))),
            -4: ("PAD", dict(symbol=palette.role_symbol("pad"), color=palette.role_color("pad", dark), size=16))}
    looks = dict(base)
    for c in sorted(set(group[group >= 0].tolist())):
        looks[c] = (f"class {c}", dict(symbol=palette.class_symbol(c), color=palette.class_color(c), size=12))
    out = []
    chosen = selected if selected is not None and 0 <= selected < n else None
    for g, (name, marker) in looks.items():
        ids = np.flatnonzero((group == g) & (np.arange(n) != chosen))
        if len(ids):
            out.append((name, ids, marker))
    if chosen is not None:
        marker = {**looks[int(group[chosen])][1], "line": dict(color=SELECTED_OUTLINE, width=3)}
        out.append(("selected", np.array([chosen]), marker))
    return out


def legend_names(tokens_text: dict[str, str], classes: list[str] | tuple[str, ...]) -> dict[str, str]:
    """The legend's label of each group name, from the stage's own words (stage_text) and the class names."""
    words = {"plain": tokens_text.get("unused", "never looked up"), "used": tokens_text.get("noclass", "looked up"),
             "PAD": tokens_text.get("pad", "PAD"), "UNK": tokens_text.get("unk", "UNK"),
             "selected": tokens_text.get("selected", "selected")}
    used = tokens_text.get("used", "looked up")
    prefix = tokens_text.get("class_prefix", "")
    words.update({f"class {c}": f"{used}: {prefix}{name}" for c, name in enumerate(classes)})
    if not classes:
        words["used"] = used
    return words


def plain_shown(ids: np.ndarray) -> np.ndarray:
    """The never-looked-up rows the scatter draws: all up to MAX_PLAIN_POINTS, else an even stride of
    them (the same rows at every step, so the cloud moves as one). At 100k×300 drawing all of them
    sends megabytes of JSON per Step and the page settles much later (bench/RESULTS.md).
    Looked-up and special rows are always drawn."""
    if len(ids) <= MAX_PLAIN_POINTS:
        return ids
    return ids[:: -(-len(ids) // MAX_PLAIN_POINTS)]


def _points_traces(xy: np.ndarray, k: int, tokens: list[str], groups, big: bool,
                   names: dict[str, str] | None = None) -> list[dict]:
    """One trace per group, each named in the legend (``names``: the page's words for each group)."""
    v = xy.shape[0]
    show_text = v <= MAX_LABELS
    traces = []
    for name, ids, marker in groups:
        special = name in ("PAD", "UNK", "selected")
        label = show_text or special
        traces.append(_trace(xy[ids].astype(np.float32), k, gl=big,
                             mode="markers+text" if label else "markers",
                             text=[tokens[i] for i in ids] if label else None, textposition="top center",
                             hovertext=[f"{i} · {tokens[i]}" for i in ids] if len(ids) <= 5000 else None,
                             hoverinfo="text" if len(ids) <= 5000 else "skip", customdata=typed_array(ids),
                             marker=_marker_in(k, marker if not big or special else {**marker, "size": 3}),
                             name=(names or {}).get(name, name), meta=name, showlegend=True))
    return traces


def _marker_in(k: int, marker: dict) -> dict:
    """``marker`` as a k-D scatter can draw it (scatter3d has fewer symbols)."""
    if k < 3 or marker["symbol"] in ("circle", "cross", "diamond", "square", "x"):
        return marker
    return {**marker, "symbol": SYMBOLS_3D.get(marker["symbol"], "circle")}


def pca_scatter(points: dict[int, np.ndarray], step: int, tokens: list[str], pad_id: int, unk_id: int,
                used: np.ndarray, selected: int | None, ranges: list[tuple[float, float]],
                trail_ids: np.ndarray, title: str, axis_titles: list[str], cls: np.ndarray | None = None,
                names: dict[str, str] | None = None, dark: bool = False) -> go.Figure:
    """W's rows projected in one fixed frame at ``step``, with trails over every kept step.

    ``points`` maps step → (V, k) coordinates, all from the same frame. Axis ranges are fixed.
    ``cls``: each token's class (explorer.token_classes), for the marks; ``names``: the legend's
    words for each group (legend_names); ``dark``: the page's theme.
    """
    xy = points[step]
    v, k = xy.shape
    big = v > 1000
    steps = sorted(s for s in points if s <= step)
    # Trails: where each watched token has been, one trace for all. Drawn (empty) from step 0 on so
    # the traces keep their places: a trace added later makes plotly.js rebuild every WebGL trace
    # (most of a 100k-point scatter's first Step in the browser).
    flat = np.zeros((0, k), np.float32)
    if len(steps) > 1 and len(trail_ids):
        path = np.stack([points[s][trail_ids] for s in steps], axis=1)  # (n, S, k)
        gaps = np.full((len(trail_ids), 1, k), np.nan)
        flat = np.concatenate([path, gaps], axis=1).reshape(-1, k).astype(np.float32)
    data = [_trace(flat, k, mode="lines", line=dict(width=1, color="#c0c4c8"), hoverinfo="skip",
                   showlegend=False, connectgaps=False, gl=big, name="trails")]
    groups = [(name, plain_shown(ids) if name == "plain" else ids, marker)
              for name, ids, marker in point_groups(v, pad_id, unk_id, used, selected, cls, dark)]
    data += _points_traces(xy, k, tokens, groups, big, names)
    return SafeFigure(data=data, layout=_layout(520, title, margin=dict(FIXED_MARGIN, t=80), legend=dict(LEGEND),
                                                **_axes(k, ranges, axis_titles)))


def pca_animation(points: dict[int, np.ndarray], tokens: list[str], pad_id: int, unk_id: int, used: np.ndarray,
                  selected: int | None, ranges: list[tuple[float, float]], title: str, axis_titles: list[str],
                  play_label: str = "▶", pause_label: str = "❚❚", cls: np.ndarray | None = None,
                  names: dict[str, str] | None = None, dark: bool = False) -> go.Figure:
    """Every kept snapshot as a Plotly frame: replayed in the browser without a server round trip.

    At large V only the looked-up and special rows are animated, so the payload stays small.
    The pause label is ❚❚, not ⏸: U+23F8 is missing from many machines' fonts (a box in Debian's Chromium).
    """
    steps = sorted(points)
    v, k = points[steps[0]].shape
    groups = point_groups(v, pad_id, unk_id, used, selected, cls, dark)
    if v > MAX_LABELS * 10:
        groups = [g for g in groups if g[0] != "plain"]
    n = sum(len(g[1]) for g in groups)
    stride = max(1, int(np.ceil(len(steps) * n / MAX_ANIMATION_POINTS)), int(np.ceil(len(steps) / MAX_ANIMATION_FRAMES)))
    steps = steps[::stride] + ([steps[-1]] if (len(steps) - 1) % stride else [])

    def moves(s: int) -> list[dict]:
        """A frame holds only where each group's points are at step ``s``: plotly.js keeps the
        traces' labels, colours and hover texts from the first frame, so they are sent once."""
        return [_trace(points[s][ids].astype(np.float32), k, name=(names or {}).get(name, name)) for name, ids, _ in groups]

    menus = [dict(type="buttons", showactive=False, x=0, y=-0.08, xanchor="left", buttons=[
        dict(label=play_label, method="animate", args=[None, dict(frame=dict(duration=120, redraw=k == 3), fromcurrent=True, transition=dict(duration=0))]),
        dict(label=pause_label, method="animate", args=[[None], dict(mode="immediate", frame=dict(duration=0, redraw=False))]),
    ])]
    sliders = [dict(active=0, x=0.12, len=0.88, y=-0.04, currentvalue=dict(prefix="step "), steps=[
        dict(label=str(s), method="animate", args=[[str(s)], dict(mode="immediate", frame=dict(duration=0, redraw=k == 3), transition=dict(duration=0))])
        for s in steps])]
    return SafeFigure(data=_points_traces(points[steps[0]], k, tokens, groups, big=False, names=names),
                     frames=[dict(data=moves(s), name=str(s)) for s in steps],
                     layout=_layout(560, title, margin=dict(FIXED_MARGIN, t=80, b=90), updatemenus=menus, sliders=sliders,
                                    legend=dict(LEGEND),
                                    **_axes(k, ranges, axis_titles)))


def _trace(xy: np.ndarray, k: int, gl: bool = False, connectgaps: bool | None = None, **kw) -> dict:
    """The trace drawing ``xy`` (n, k), as a dict with its ``type``: 2-D (y = 0 when k = 1, WebGL when
    ``gl``) or 3-D. go.Figure validates it; as a frame's data it is validated once, by the figure."""
    if connectgaps is not None and k < 3:
        kw["connectgaps"] = connectgaps
    x = xy[:, 0]
    props = dict(type="scatter3d" if k >= 3 else "scattergl" if gl else "scatter", x=typed_array(x),
                 y=typed_array(xy[:, 1] if k > 1 else np.zeros_like(x)), **kw)
    if k >= 3:
        props["z"] = typed_array(xy[:, 2])
    return props


def _axes(k: int, ranges: list[tuple[float, float]], titles: list[str]) -> dict:
    """Layout entries that fix the axes to ``ranges`` (one frame of reference for every step)."""
    if k >= 3:
        return dict(scene=dict(
            xaxis=dict(range=list(ranges[0]), title=dict(text=titles[0]), autorange=False),
            yaxis=dict(range=list(ranges[1]), title=dict(text=titles[1]), autorange=False),
            zaxis=dict(range=list(ranges[2]), title=dict(text=titles[2]), autorange=False), aspectmode="cube"))
    xaxis = dict(range=list(ranges[0]), title=dict(text=titles[0]), autorange=False, zeroline=True, **FIXED_AXIS)
    if k > 1:
        return dict(xaxis=xaxis, yaxis=dict(range=list(ranges[1]), title=dict(text=titles[1]), autorange=False, zeroline=True,
                                            **FIXED_AXIS))
    return dict(xaxis=xaxis, yaxis=dict(range=[-1, 1], visible=False))
