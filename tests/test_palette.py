"""One visual language: the stage (components/stage/js/paint.mjs, run in node) and the lessons'
Plotly figures give the same value of W the same colour, from the one definition in palette.mjs.

The lessons' figures are read from their specs (colorscale, zmin, zmax, z) on a lab that is not the
chapter's, and each cell's colour, interpolated as Plotly does between the scale's stops, is
compared with what the stage's own ``heat`` gives for the same value and the stage's ``absmax``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from components import palette
from components.lesson_figures import draw
from views.lookup import lookup_data
from core.explorer import Explorer
from core.lessons import run_demo
from tests.test_lessons import lab_a

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
TOLERANCE = 2  # of 255, per channel: Plotly's straight lines between COLORSCALE_STOPS stops vs the stage's curve


def stage_heat(values: list[float], absmax: float, dark: bool = False) -> list[tuple[int, ...]]:
    """The stage's colour of each value, computed by paint.mjs itself in node."""
    script = ("import { heat } from './components/stage/js/paint.mjs';"
              f"const vs = {json.dumps(values)};"
              f"console.log(JSON.stringify(vs.map((v) => heat(v, {absmax!r}, {str(dark).lower()}).bg)));")
    out = subprocess.run([NODE, "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return [tuple(int(x) for x in re.findall(r"\d+", c)) for c in json.loads(out)]


def plotly_color(colorscale, zmin: float, zmax: float, v: float) -> np.ndarray:
    """The colour Plotly gives ``v`` on ``colorscale``: straight lines in RGB between the stops."""
    pos = np.array([float(p) for p, _ in colorscale])
    rgb = np.array([[int(x) for x in re.findall(r"\d+", c)] for _, c in colorscale], dtype=float)
    p = np.clip((v - zmin) / (zmax - zmin), 0, 1)
    return np.array([np.interp(p, pos, rgb[:, k]) for k in range(3)])


@needs_node
@pytest.mark.parametrize("dark", [False, True])
def test_python_reads_the_stage_palette_and_computes_its_heat_exactly(dark):
    values = [-2.5, -1.0, -0.37, -1e-3, 0.0, 1e-3, 0.2, 0.5, 0.999, 1.0, 3.0]
    assert stage_heat(values, 1.0, dark) == [palette.heat_rgb(v, dark) for v in values]
    stops = palette.colorscale(dark)
    assert [tuple(int(x) for x in re.findall(r"\d+", c)) for _, c in stops] == \
        stage_heat([2 * p - 1 for p, _ in stops], 1.0, dark)


@needs_node
@pytest.mark.parametrize("lesson_id", ["C1", "C3", "C4"])
def test_a_lessons_W_cells_have_the_colour_the_stage_gives_them(lesson_id):
    lab = lab_a()
    lab.run(2)  # a trained W, not a fresh one
    ex = Explorer.from_lab(lab, "a b a c | 1")
    stage_absmax = lookup_data(ex, "en")["w"]["absmax"]
    fig = draw("en", run_demo(lesson_id, lab)).figure
    heatmaps = [tr for tr in fig.data if tr.type == "heatmap" and tr.colorscale[0][1] != "#ffffff"]
    assert heatmaps
    for tr in heatmaps:
        assert tr.zmin == -stage_absmax and tr.zmax == stage_absmax  # the stage's ends
        z = np.asarray(tr.z, dtype=float).ravel().tolist()
        want = stage_heat(z, stage_absmax)
        got = [plotly_color(tr.colorscale, tr.zmin, tr.zmax, v) for v in z]
        worst = max(float(np.abs(g - np.array(w)).max()) for g, w in zip(got, want))
        assert worst <= TOLERANCE, (lesson_id, worst)
    assert sum(bool(tr.showscale) for tr in heatmaps) == 1  # one colour bar per figure


def test_the_stage_css_names_the_palettes_role_colours():
    css = (ROOT / "components" / "stage" / "stage.css").read_text(encoding="utf-8")
    light, dark = css.split(".stage.dark", 1)
    for block, theme in ((light, "light"), (dark.split("}", 1)[0], "dark")):
        roles = palette.palette()["roles"][theme]
        for var, role in (("--pad", "pad"), ("--noclass", "noclass"), ("--muted", "unused")):
            assert re.search(rf"{var}:\s*{re.escape(roles[role])};", block, re.I), (theme, var)


def test_twenty_classes_have_twenty_marks_in_the_charts_as_on_the_stage():
    marks = [(palette.class_color(c), palette.class_symbol(c)) for c in range(20)]
    assert len(set(marks)) == 20  # colour and symbol together tell every class apart
    assert [palette.class_symbol(c) for c in range(6)] == [palette.PLOTLY_SYMBOLS[s] for s in palette.palette()["classes"]["shapes"]]
