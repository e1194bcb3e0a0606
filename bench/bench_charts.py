"""Build + serialize time of each Plotly chart the page still draws, the way st.plotly_chart serializes it.

    python bench/bench_charts.py            # chapter, reviews_ko, large (~15–30 s)
    python bench/bench_charts.py --quick    # fewer repetitions
    python bench/bench_charts.py --presets chapter,large

The stage (components/stage/) draws the lookup and training views; ``components/charts.py``
builds what Plotly still draws, each timed here as the sections call it, on a trained lab of the
chapter example, the 40 reviews and the 100k × 300 preset, through an Explorer around that lab
(the frame and points the page uses):

- ``loss_curve``: the loss in the step's details (sections/training_details.py);
- ``pca_scatter`` in 3-D: drawn under the stage when the learner picks 3 dimensions
  (``projection_3d``);
- ``pca_animation`` in 2-D: the replay of every kept step, when its expander is open
  (``replay_view``).

What is timed is what a rerun pays for one chart: the builder's call, then what ``st.plotly_chart``
does with the figure (``plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)``,
which calls ``fig.to_dict()``, then ``plotly.io.to_json(…, validate=False)``), with the bytes of
the JSON it sends. The stage's own data is timed by bench_scale.py (Payloads) and bench_server.py.

Every figure is a ``SafeFigure``, whose strings are escaped as it is serialized (components/safe_text.py
``plotly_spec``); each chart is also timed as a plain ``go.Figure`` in the same run, and the ratio printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import build_lab, fmt_bytes, fmt_ms, machine_note, summary, table  # noqa: E402

import numpy as np  # noqa: E402
import plotly.io  # noqa: E402
import plotly.tools  # noqa: E402

SIZES = {"chapter": 60, "reviews_ko": 60, "large": 3}  # preset → recorded steps (one kept snapshot each)


def builders(preset: str, steps: int) -> list[tuple[str, object]]:
    """(label, call → figure) for each chart the page draws, called as the sections call it."""
    from components import charts
    from core.explorer import Explorer
    from views.training import MAX_TRAILS

    lab = build_lab(preset)
    for _ in range(steps):
        lab.step()
    ex = Explorer.from_lab(lab, "", preset)
    vocab = lab.recipe.vocab
    tokens = list(vocab.tokens)
    used = lab.batch.id_counts(vocab.size).numpy() > 0
    pic3, pic2 = ex.picture(3), ex.picture(2)
    titles = [[f"PC{j + 1} ({pic.explained[j]:.0%})" for j in range(pic.dims)] for pic in (pic3, pic2)]
    return [
        (f"loss_curve ({len(lab.losses)} steps)", lambda: charts.loss_curve(lab.losses, "loss")),
        (f"pca_scatter, {pic3.dims}-D ({vocab.size:,} rows, {len(pic3.steps)} kept steps)",
         lambda: charts.pca_scatter({s: pic3.points[s] for s in pic3.steps}, pic3.shown, tokens, vocab.pad_id,
                                    vocab.unk_id, used, None, list(pic3.ranges), np.flatnonzero(used)[:MAX_TRAILS],
                                    "W", titles[0])),
        (f"pca_animation, 2-D ({len(pic2.steps)} kept steps)",
         lambda: charts.pca_animation({s: pic2.points[s] for s in pic2.steps}, tokens, vocab.pad_id, vocab.unk_id,
                                      used, None, list(pic2.ranges), "replay", titles[1])),
    ]


def as_sent(call, escaped: bool = True) -> tuple[float, str]:
    """Seconds to build the figure and serialize it as st.plotly_chart does, and the JSON it sends;
    ``escaped=False`` serializes it as a plain go.Figure (no escaping), for the ratio."""
    import plotly.graph_objects as go

    t = time.perf_counter()
    fig = call()
    if not escaped:
        fig.__class__ = go.Figure
    spec = plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True), validate=False)
    return time.perf_counter() - t, spec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--presets", default=",".join(SIZES), help="comma-separated subset of " + ", ".join(SIZES))
    args = ap.parse_args()
    print("# bench_charts: build + serialize each Plotly chart the page still draws\n")
    print(machine_note() + "\n")
    rows = []
    for preset in args.presets.split(","):
        n = (3 if args.quick else 7) if preset == "large" else (10 if args.quick else 40)
        for label, call in builders(preset, SIZES[preset]):
            as_sent(call)  # warm (imports, validators' first use)
            as_sent(call, escaped=False)
            ts, raw, spec = [], [], ""
            for _ in range(n):  # interleaved: the machine's drift falls on both alike
                t, spec = as_sent(call)
                ts.append(t)
                raw.append(as_sent(call, escaped=False)[0])
            s, r = summary(ts), summary(raw)
            rows.append([preset, label, fmt_ms(s["p50"]), f"{fmt_ms(s['p10'])}–{fmt_ms(s['p90'])}",
                         fmt_ms(r["p50"]), f"{s['p50'] / r['p50']:.2f}×", fmt_bytes(len(spec)), str(n)])
    print("## Build + serialize per chart (ms)\n")
    print(table(["preset", "builder", "p50", "p10–p90", "p50 unescaped", "ratio", "JSON sent", "n"], rows))
    print("\nSerialize = return_figure_from_figure_or_data(fig, validate_figure=True) + "
          "plotly.io.to_json(…, validate=False), as st.plotly_chart does.\n")
    print(machine_note())


if __name__ == "__main__":
    main()
