"""The app's one visual language, read from the stage's own definition (components/stage/js/palette.mjs).

W's diverging scale (blue below 0, orange above, the background at 0, ±absmax at the ends) and the
marks of roles and classes are written once, in that module; the stage imports it and this module
parses the same object, so a lesson's heatmap, the replay and the stage give one value one colour.

    >>> heat_rgb(-1.0)          # the most negative value of the panel: the scale's blue end
    (0, 90, 160)
    >>> colorscale()[0]         # Plotly's colorscale, for zmin = -absmax, zmax = absmax
    [0.0, 'rgb(0,90,160)']
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

PALETTE_FILE = Path(__file__).resolve().parent / "stage" / "js" / "palette.mjs"
_OBJECT = re.compile(r"^export const PALETTE = (\{.*?\n\});", re.S | re.M)
COLORSCALE_STOPS = 41  # Plotly interpolates linearly between stops: at 41 the scale's curve is within 1/255

# Plotly's marker symbols for the stage's shapes (components/stage/js/paint.mjs, shapePath).
PLOTLY_SYMBOLS = MappingProxyType({"circle": "circle", "triangle": "triangle-up", "square45": "diamond-wide",
                                   "tri_down": "triangle-down", "hexagon": "hexagon", "cross": "cross",
                                   "diamond": "diamond", "square": "square"})


@lru_cache(maxsize=1)
def palette() -> MappingProxyType:
    """The object of palette.mjs (read once: it is part of the code, not of a session)."""
    found = _OBJECT.search(PALETTE_FILE.read_text(encoding="utf-8"))
    if not found:
        raise ValueError(f"{PALETTE_FILE}: no `export const PALETTE = {{…}};` object")
    return MappingProxyType(json.loads(found.group(1)))


def heat_rgb(t: float, dark: bool = False) -> tuple[int, int, int]:
    """The colour of ``t`` = value / absmax (clamped to ±1), as the stage's ``heat`` computes it."""
    scale = palette()["heat"]["dark" if dark else "light"]
    t = min(1.0, max(-1.0, float(t)))
    end = scale["neg"] if t < 0 else scale["pos"]
    u = abs(t) ** palette()["heat"]["gamma"]
    return tuple(_js_round(m + (e - m) * u) for m, e in zip(scale["mid"], end))


def _js_round(x: float) -> int:
    """JavaScript's Math.round: halves go up (Python's round goes to the even neighbour)."""
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)


def colorscale(dark: bool = False) -> list[list]:
    """W's scale as a Plotly colorscale over [-absmax, absmax]: set ``zmin=-absmax, zmax=absmax``."""
    n = COLORSCALE_STOPS
    stops = [-1 + 2 * i / (n - 1) for i in range(n)]
    return [[(s + 1) / 2, "rgb({},{},{})".format(*heat_rgb(s, dark))] for s in stops]


def class_color(cls: int) -> str:
    colors = palette()["classes"]["colors"]
    return colors[cls % len(colors)]


def class_symbol(cls: int) -> str:
    """Shape i for the first classes, then turned by one each round of colours, as paint.mjs's
    classShape: no two of up to 36 classes share both colour and symbol."""
    shapes, n = palette()["classes"]["shapes"], len(palette()["classes"]["colors"])
    return PLOTLY_SYMBOLS[shapes[(cls % n + cls // n) % len(shapes)]]


def role_color(role: str, dark: bool = False) -> str:
    return palette()["roles"]["dark" if dark else "light"][role]


def role_symbol(role: str) -> str:
    return PLOTLY_SYMBOLS[palette()["roles"]["shapes"][role]]
