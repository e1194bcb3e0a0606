"""Build + serialize time of every chart builder, the way st.plotly_chart serializes a figure.

    python bench/bench_charts.py            # chapter, reviews_ko, large (~15–45 s)
    python bench/bench_charts.py --quick    # fewer repetitions
    python bench/bench_charts.py --against <commit>

For each builder of ``components/charts.py`` at the chapter, review and 100k × 300 sizes, the
current module (figures built and serialized through Plotly's public API) next to the module as it
was at ``--against`` (default: the last commit whose builders skipped Plotly's validation and encoded
the arrays themselves on Plotly's private attributes), read from git history so that the old way
lives nowhere in the app. Both are timed in the same run, interleaved.

What is timed is what a rerun pays for one chart: the builder's call, then what ``st.plotly_chart``
does with the figure (``plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)``,
which calls ``fig.to_dict()``, then ``plotly.io.to_json(…, validate=False)``). A column says
whether both send the same JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, build_lab, fmt_bytes, fmt_ms, fmt_ratio, machine_note, summary, table  # noqa: E402

import numpy as np  # noqa: E402
import plotly.io  # noqa: E402
import plotly.tools  # noqa: E402

OLD_COMMIT = "279367e"  # components/charts.py with _Figure/_plain/_figure (private-attribute encoder)
SIZES = {"chapter": 60, "reviews_ko": 60, "large": 3}  # preset → recorded steps (one kept snapshot each)


def old_charts(commit: str):
    """components/charts.py as it was at ``commit``, imported as its own module."""
    src = subprocess.run(["git", "show", f"{commit}:components/charts.py"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    module = types.ModuleType(f"charts_{commit}")
    exec(compile(src, f"git:{commit}:components/charts.py", "exec"), module.__dict__)
    return module


def chart_inputs(preset: str, steps: int) -> dict:
    """A trained lab of ``preset`` and what the sections pass the builders (as in bench_scale.py)."""
    from components import pipeline
    from core.projection import axis_ranges, fit_frame

    lab = build_lab(preset)
    for _ in range(steps):
        lab.step()
    vocab, batch = lab.recipe.vocab, lab.batch
    kept = sorted(lab.snapshots)
    frame = fit_frame([lab.snapshots[s] for s in kept], 2)
    points = {s: frame.transform(lab.snapshots[s]) for s in kept}
    counts = batch.id_counts(vocab.size).numpy()
    rows = pipeline.shown_rows(vocab.size, counts, None, (vocab.pad_id, vocab.unk_id))
    ids0 = batch.ids[0].tolist()
    return dict(lab=lab, vocab=vocab, tokens=list(vocab.tokens), w=lab.weight_numpy(), counts=counts,
                used=counts > 0, rows=rows, points=points, ranges=axis_ranges(list(points.values())),
                vectors=lab.vectors().numpy()[0], ids0=ids0, kept=kept)


def builders(c: dict) -> list[tuple[str, object]]:
    """(label, call(charts_module) → figure) for each builder, called as the sections call it."""
    v, tokens = c["vocab"], c["tokens"]
    trail = np.flatnonzero(c["used"])[:60]
    last = c["kept"][-1]
    return [
        (f"w_heatmap ({len(c['rows'])} rows × {c['w'].shape[1]})",
         lambda m: m.w_heatmap(c["w"][c["rows"]], c["rows"], tokens, c["counts"], v.pad_id, v.unk_id, 2, "W")),
        (f"output_heatmap ({len(c['ids0'])} × {c['w'].shape[1]})",
         lambda m: m.output_heatmap(c["vectors"], [tokens[i] for i in c["ids0"]], c["ids0"], 0, "out")),
        (f"loss_curve ({len(c['lab'].losses)} steps)", lambda m: m.loss_curve(c["lab"].losses, "loss")),
        (f"pca_scatter ({v.size:,} rows, {len(c['kept'])} kept steps)",
         lambda m: m.pca_scatter(c["points"], last, tokens, v.pad_id, v.unk_id, c["used"], 2, c["ranges"], trail,
                                 "W", ["PC1", "PC2"])),
        (f"pca_animation ({len(c['kept'])} frames)",
         lambda m: m.pca_animation(c["points"], tokens, v.pad_id, v.unk_id, c["used"], 2, c["ranges"], "replay",
                                   ["PC1", "PC2"])),
    ]


def as_sent(module, call) -> tuple[float, str]:
    """Seconds to build the figure and serialize it as st.plotly_chart does, and the JSON it sends."""
    t = time.perf_counter()
    fig = call(module)
    spec = plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True), validate=False)
    return time.perf_counter() - t, spec


def without_template(spec: str) -> dict:
    """The figure as sent, less ``layout.template``: both sides set it empty, which Plotly's
    validation (the new side) writes as ``{"data": {"scatter": [{"type": "scatter"}]}}``."""
    fig = json.loads(spec)
    fig["layout"].pop("template", None)
    return fig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--against", default=OLD_COMMIT, help="git commit of the components/charts.py to compare with")
    ap.add_argument("--presets", default=",".join(SIZES))
    args = ap.parse_args()
    from components import charts

    old = old_charts(args.against)
    print("# bench_charts: build + serialize each chart, public Plotly API vs the old private-attribute encoder\n")
    print(machine_note() + "\n")
    rows = []
    for preset in args.presets.split(","):
        c = chart_inputs(preset, SIZES[preset])
        n = (3 if args.quick else 7) if preset == "large" else (10 if args.quick else 40)
        for label, call in builders(c):
            as_sent(charts, call), as_sent(old, call)  # warm both (imports, validators' first use)
            new_t, old_t, ratios = [], [], []
            for _ in range(n):  # interleaved: a busy moment slows both alike
                t_new, spec_new = as_sent(charts, call)
                t_old, spec_old = as_sent(old, call)
                new_t.append(t_new), old_t.append(t_old), ratios.append(t_new / t_old)
            same = without_template(spec_new) == without_template(spec_old)
            s_new, s_old, s_r = summary(new_t), summary(old_t), summary(ratios)
            rows.append([preset, label, fmt_ms(s_old["p50"]), fmt_ms(s_new["p50"]),
                         f"{fmt_ms(s_new['p10'])}–{fmt_ms(s_new['p90'])}", fmt_ratio(s_r["p50"]),
                         fmt_bytes(len(spec_new)), "yes" if same else "NO", str(n)])
    print(f"## Build + serialize per chart (ms): old = components/charts.py at {args.against}, new = this tree\n")
    print(table(["preset", "builder", "old p50", "new p50", "new p10–p90", "new/old p50", "JSON sent", "same JSON (less template)", "n"],
                rows))
    print("\nnew/old is the median of paired ratios. Serialize = return_figure_from_figure_or_data(fig, "
          "validate_figure=True) + plotly.io.to_json(…, validate=False), as st.plotly_chart does.\n")
    print(machine_note())


if __name__ == "__main__":
    main()
