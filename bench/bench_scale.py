"""The large preset (V=100,000 tokens × E=300, B=256 sentences, T≤50): build, step, PCA, what the
page sends, the replay drawn in a browser, memory per session.

    python bench/bench_scale.py                 # ~1–2 min
    python bench/bench_scale.py --no-apptest --no-browser   # core, stage data and figures only (~30 s)

Sections:

1. Build: generating the preset, ``Vocab.from_rows`` (from the preset's rows, and from the
   editor's DataFrame the way app.update_vocab does), ``parse_sentences``, ``Lab``.
2. Training: the first step of a fresh Lab, later recorded steps (a Step click), ``Lab.run(2)``
   (only its last step recorded) and an unrecorded ``Lab.step(record=False)`` (Run's other steps).
3. PCA: ``fit_frame`` on every kept snapshot, ``transform`` of every snapshot, the C9 random-table
   baseline (``spectrum_is_flat``) cold and cached, ``axis_ranges``.
4. Views: each component function the training and lookup sections call, called in Streamlit's
   bare mode (the element is built and marshalled; nothing is sent): the step's details, the
   lookup view's tables, the vocabulary editor. Not the stage's element: without a script run
   Streamlit returns before it serializes the component's data, so its cost is in section 5.
5. Payloads: what the page sends, built the way sections/*.py build it, through an Explorer
   around the lab: the stage's data, ``views/training.py``'s ``train_data`` (the first, which
   fits the lab's PCA frame, then after each of 3 Steps) and ``lookup_data``, as
   ``len(json.dumps(data))`` with its build time; and the Plotly figures the page still draws
   (``components/charts.py``: the loss curve in the open details, the 3-D scatter when 3-D is
   chosen, the replay when it is open), as ``len(fig.to_json())``. Then, through AppTest, the
   serialized size of every element the page really sends (the largest listed), per interaction,
   with its time.
6. Browser: plotly.js (the plotly package's bundled plotly.min.js, loaded with page.set_content)
   drawing the replay (``charts.pca_animation``, with its frames) at this size. The stage's own
   drawing at this size is bench_browser.py's (``--presets large --alone``) and bench_stage.py's.
7. Memory: in a fresh child process, RSS (/proc/self/status VmRSS) before and after building a
   Lab, a few steps, the stage's picture and data; then after dropping them; and a second Lab.

Goals: every interaction under 2 s, every payload ≤ 5 MB, memory per session reported and bounded.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (ROOT, fmt_bytes, fmt_ms, goal, hwm_bytes, launch_chromium, machine_note, rss_bytes,  # noqa: E402
                     summary, table)

logging.getLogger("streamlit").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402

GOAL_S = 2.0
GOAL_PAYLOAD = 5_000_000


def timed(fn, n: int = 1):
    """(result of the last call, list of seconds)."""
    out, ts = None, []
    for _ in range(n):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return out, ts


def row(name: str, ts: list[float], note: str = "", limit: float | None = GOAL_S) -> list[str]:
    s = summary(ts)
    return [name, fmt_ms(s["p50"]), f"{fmt_ms(s['min'])}–{fmt_ms(s['max'])}", str(s["n"]),
            goal(s["p50"] < limit) if limit else "–", note]


HEADER = ["what", "p50 ms", "min–max ms", "n", "goal < 2 s", "note"]


def section_build(rows: list, state: dict) -> None:
    from assets import presets
    from core.batch import parse_sentences
    from core.training import Config, Lab, Recipe
    from core.vocab import Vocab
    from session import vocab_frame

    preset, ts = timed(presets.large, 2)
    rows.append(row("generate the preset (presets.large)", ts))
    vocab, ts = timed(lambda: Vocab.from_rows(preset["vocab"]), 2)
    rows.append(row("Vocab.from_rows(preset rows)", ts, "100,000 rows validated"))
    frame, ts = timed(lambda: vocab_frame(vocab), 2)
    rows.append(row("session.vocab_frame (the editor's DataFrame)", ts))
    _, ts = timed(lambda: Vocab.from_rows(frame[["token", "id", "role"]].itertuples(index=False, name=None)), 2)
    rows.append(row("Vocab.from_rows(editor DataFrame) as app.update_vocab", ts))
    classes = tuple(preset["classes"])
    lines, ts = timed(lambda: parse_sentences(preset["sentences"], classes), 3)
    rows.append(row("parse_sentences", ts, f"{len(lines)} sentences"))
    recipe = Recipe.of(vocab, lines, classes, Config(**preset["config"]))
    lab, ts = timed(lambda: Lab(recipe), 2)
    rows.append(row("Lab(recipe): batch, model, optimizer, snapshot 0", ts))
    state.update(preset=preset, vocab=vocab, lines=lines, recipe=recipe, editor_df=frame)


def section_train(rows: list, state: dict) -> None:
    from core.training import Lab

    recipe = state["recipe"]
    lab = Lab(recipe)
    _, ts = timed(lab.step)
    rows.append(row("Lab.step, first step of a fresh Lab", ts, "optimizer state allocated"))
    _, ts = timed(lab.step, 3)
    rows.append(row("Lab.step, steps 2–4 (recorded: a Step click)", ts))
    _, ts = timed(lambda: lab.run(2))
    rows.append(row("Lab.run(2)", [t / 2 for t in ts], "per step; only the last recorded"))
    _, ts = timed(lambda: lab.step(record=False), 2)
    rows.append(row("Lab.step(record=False) (Run's other steps)", ts))
    lab.step()  # the last step recorded again, for the views
    state["lab"] = lab
    gc.collect()


def section_pca(rows: list, state: dict) -> None:
    from core import projection
    from core.projection import axis_ranges, fit_frame, spectrum_is_flat

    lab = state["lab"]
    steps = sorted(lab.snapshots)
    snaps = [lab.snapshots[s] for s in steps]
    frame, ts = timed(lambda: fit_frame(snaps, 2), 2)
    rows.append(row(f"fit_frame on {len(snaps)} kept snapshots ({len(snaps)}×{lab.recipe.vocab.size:,} rows)", ts,
                    f"sampled to {projection.MAX_FIT_ROWS:,} rows"))
    points, ts = timed(lambda: {s: frame.transform(lab.snapshots[s]) for s in steps}, 2)
    rows.append(row(f"transform all {len(steps)} snapshots", ts))
    projection.random_top_ratio.cache_clear()
    _, ts = timed(lambda: spectrum_is_flat(frame, lab.recipe.vocab.size, seed=0))
    rows.append(row(f"spectrum_is_flat, cold ({projection.RANDOM_TABLES} random N(0,1) tables, E={lab.weight.shape[1]})", ts,
                    "once per process and shape (lru_cache)"))
    _, ts = timed(lambda: spectrum_is_flat(frame, lab.recipe.vocab.size, seed=0), 3)
    rows.append(row("spectrum_is_flat, cached", ts))
    _, ts = timed(lambda: axis_ranges(list(points.values())), 3)
    rows.append(row("axis_ranges over all points", ts))
    frame3, ts = timed(lambda: fit_frame(snaps, 3))
    rows.append(row("fit_frame, 3 components", ts))
    state.update(frame=frame, points=points, steps=steps)


def section_views(rows: list, state: dict) -> None:
    """Component functions in bare mode: what each costs the server per rerun at this size."""
    from components import inputs, pipeline, training
    from session import Keys
    from views import training as views_training
    from sections.training_keys import TRAIN

    lab = state["lab"]
    vocab, batch = lab.recipe.vocab, lab.batch
    counts = batch.id_counts(vocab.size).numpy()
    calls = [
        ("training.loss_and_predictions (details)",
         lambda: training.loss_and_predictions("en", TRAIN, lab.losses, views_training.prediction_rows(lab))),
        ("training.grad_view (details: the last step's gradient table)",
         lambda: training.grad_view("en", views_training.grad_data(lab))),
        ("training.moved_view (details)", lambda: training.moved_view("en", views_training.moved_data(lab))),
        ("pipeline.token_table (lookup tables)", lambda: pipeline.token_table("en", vocab, batch, lab.recipe.sentences)),
        ("pipeline.id_matrix (lookup tables: 256×50)", lambda: pipeline.id_matrix("en", vocab, batch, Keys.ID_CELL)),
        ("pipeline.w_frame (lookup tables: W's shown rows)",
         lambda: pipeline.w_frame("en", lab.weight.detach().numpy(), vocab, counts, None)),
        ("pipeline.output_frame (lookup tables: output[0])",
         lambda: pipeline.output_frame("en", lab.vectors()[0].numpy(), vocab, batch, 0)),
        ("inputs.vocab_editor (a 200-row window of 100,000 rows)", lambda: inputs.vocab_editor("en", state["editor_df"], Keys.VOCAB, inputs.Window(
            1, False, Keys.VOCAB_START, Keys.VOCAB_FIND, on_find=lambda: None))),
    ]
    for name, fn in calls:
        try:
            _, ts = timed(fn, 1)
            rows.append(row(name, ts, "bare mode"))
        except Exception as e:  # noqa: BLE001 - report, keep measuring the rest
            rows.append([name, "–", "–", "0", "–", f"failed: {type(e).__name__}: {str(e)[:80]}"])


def section_payloads(rows: list, state: dict, steps: int = 3) -> str | None:
    """What the page sends at this size: the stage's data (``len(json.dumps(data))``), built as the
    sections build it, and the Plotly figures the page still draws (``len(fig.to_json())``).
    Returns the replay's JSON, for the browser section."""
    from components import charts
    from core.explorer import Explorer
    from views.lookup import lookup_data
    from views.training import train_data

    lab = state["lab"]
    vocab = lab.recipe.vocab
    tokens = list(vocab.tokens)
    ex = Explorer.from_lab(lab, state["preset"]["sentences"], "large")  # no frame yet, as after loading

    def sent(section: str, what: str, build, serialize, ts_build: list | None = None) -> str:
        t = time.perf_counter()
        out = build()
        ts = ts_build if ts_build is not None else [time.perf_counter() - t]
        t = time.perf_counter()
        spec = serialize(out)
        t_json = time.perf_counter() - t
        rows.append([section, what, fmt_bytes(len(spec)), fmt_ms(summary(ts)["p50"]), str(len(ts)), fmt_ms(t_json),
                     goal(len(spec) <= GOAL_PAYLOAD)])
        return spec

    height = 470  # sections/*.py's STAGE_HEIGHT
    sent("train", "views.training.train_data, the first (the lab's PCA frame fitted)",
         lambda: train_data(ex, "en", height=height), json.dumps)
    data, ts = None, []
    for _ in range(steps):  # a Step click: the new step's points in the same frame, gliding from the last
        before = ex.lab.steps
        ex.step()
        t = time.perf_counter()
        data = train_data(ex, "en", since=before, height=height)
        ts.append(time.perf_counter() - t)
    sent("train", f"views.training.train_data after a Step ({len(data['scatter']['ids']):,} points, W {len(data['w']['rows'])} rows)",
         lambda: data, json.dumps, ts)
    sent("lookup", "views.lookup.lookup_data (sentence 0)", lambda: lookup_data(ex, "en", height=height),
         json.dumps)

    used = lab.batch.id_counts(vocab.size).numpy() > 0
    sent("train, details open", f"charts.loss_curve ({len(lab.losses)} steps)",
         lambda: charts.loss_curve(lab.losses, "loss"), lambda f: f.to_json())
    pic3 = ex.picture(3)
    sent("train, 3-D chosen", f"charts.pca_scatter, 3-D ({vocab.size:,} rows, never-looked-up ones thinned to ≤ "
         f"{charts.MAX_PLAIN_POINTS:,}; {len(pic3.steps)} steps, trails for ≤ 60)",
         lambda: charts.pca_scatter({s: pic3.points[s] for s in pic3.steps}, pic3.shown, tokens, vocab.pad_id,
                                    vocab.unk_id, used, None, list(pic3.ranges), np.flatnonzero(used)[:60], "W",
                                    ["PC1", "PC2", "PC3"]),
         lambda f: f.to_json())
    pic = ex.picture(2)
    return sent("train, replay open", f"charts.pca_animation ({len(pic.steps)} frames)",
                lambda: charts.pca_animation({s: pic.points[s] for s in pic.steps}, tokens, vocab.pad_id, vocab.unk_id,
                                             used, None, list(pic.ranges), "replay", ["PC1", "PC2"]),
                lambda f: f.to_json())


def apptest_elements(rows_time: list, rows_size: list, errors: list) -> None:
    """The page as AppTest sees it at the large preset: time per interaction, bytes per element."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.session_state["lang"] = "en"
    at.run()

    def elements(node, out):
        children = getattr(node, "children", None)
        if children:
            for c in children.values():
                elements(c, out)
        elif getattr(node, "proto", None) is not None:
            out.append((getattr(node, "type", type(node).__name__), getattr(node, "key", None) or "",
                        len(node.proto.SerializeToString())))

    steps = (
        ("load the large preset", lambda: (at.selectbox(key="preset").set_value("large"), at.button(key="load_preset").click().run())),
        ("switch lookup→train (step 0)", lambda: at.button_group(key="section").set_value("train").run()),
        ("Step", lambda: at.button(key="step").click().run()),
        ("Step (again)", lambda: at.button(key="step").click().run()),
        ("open the replay", lambda: (at.session_state.__setitem__("replay", True), at.run())),
        ("close the replay", lambda: (at.session_state.__setitem__("replay", False), at.run())),
        ("switch train→lookup", lambda: at.button_group(key="section").set_value("lookup").run()),
    )
    for name, call in steps:
        t = time.perf_counter()
        call()
        dt = time.perf_counter() - t
        out: list = []
        elements(at._tree, out)
        total = sum(b for _, _, b in out)
        big = sorted(out, key=lambda x: -x[2])[:4]
        rows_time.append(row(f"AppTest: {name}", [dt], f"page {fmt_bytes(total)} in {len(out)} elements"))
        rows_size.append([name, fmt_bytes(total), "; ".join(f"{k or t} {fmt_bytes(b)}" for t, k, b in big),
                          goal(max(b for _, _, b in out) <= GOAL_PAYLOAD)])
        if at.exception:
            errors.append(f"{name}: {at.exception[0].value}"[:300])
        print(f"  AppTest {name}: {dt:.1f} s, {fmt_bytes(total)}", file=sys.stderr)


def browser_render(rows: list, replay: str, errors: list) -> None:
    """plotly.js drawing the replay (the one Plotly chart of this size the page draws with its
    frames) in Chromium: page.set_content with the bundled plotly.min.js."""
    import plotly
    from playwright.sync_api import sync_playwright

    js = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_content(f"<html><body><div id='plot' style='width:1200px;height:600px'></div>"
                             f"<script>{js}</script></body></html>")
            page.wait_for_function("() => typeof Plotly !== 'undefined'", timeout=60_000)
            ts = []
            for _ in range(3):
                res = page.evaluate("""async (spec) => {
                    const fig = JSON.parse(spec); const el = document.getElementById('plot');
                    Plotly.purge(el);
                    const t0 = performance.now();
                    await Plotly.newPlot(el, fig.data, fig.layout, {displaylogo: false});
                    if (fig.frames) await Plotly.addFrames(el, fig.frames);
                    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
                    return {ms: performance.now() - t0};
                }""", replay)
                ts.append(res["ms"] / 1e3)
            rows.append(row("browser: plotly.js draws the replay (charts.pca_animation) and adds its frames", ts,
                            f"{fmt_bytes(len(replay))} JSON"))
            print(f"  browser replay: {summary(ts)['p50']:.2f} s", file=sys.stderr)
        except Exception as e:  # noqa: BLE001
            errors.append(f"browser render: {type(e).__name__}: {str(e)[:200]}")
        finally:
            browser.close()


def memory_child() -> dict:
    """Run in a fresh process (``--memory-child``): RSS deltas of one session's objects, as JSON."""
    from assets import presets
    from core.batch import parse_sentences
    from core.explorer import Explorer
    from core.training import Config, Lab, Recipe
    from core.vocab import Vocab
    from views.training import train_data

    out: dict = {"rss_imports": rss_bytes()}
    p = presets.large()
    vocab = Vocab.from_rows(p["vocab"])
    classes = tuple(p["classes"])
    lines = parse_sentences(p["sentences"], classes)
    recipe = Recipe.of(vocab, lines, classes, Config(**p["config"]))
    del p
    gc.collect()
    out["rss_base"] = base = rss_bytes()
    lab = Lab(recipe)
    out["lab"] = rss_bytes() - base
    lab.run(3)
    out["steps"] = rss_bytes() - base - out["lab"]
    ex = Explorer.from_lab(lab, "", "large")
    data = train_data(ex, "en")
    spec = json.dumps(data)
    points = ex.picture(2).points
    out["views"] = rss_bytes() - base - out["lab"] - out["steps"]
    out["session"] = rss_bytes() - base
    v, e = lab.weight.shape
    out["held"] = {
        "W (the embedding's weight)": v * e * 4,
        "W.grad": v * e * 4,
        "Adam's two moments": sum(t.numel() * t.element_size() for st in lab.optimizer.state.values()
                                  for t in st.values() if torch.is_tensor(t)),
        f"W snapshots ({len(lab.snapshots)} kept)": sum(a.nbytes for a in lab.snapshots.values()),
        "projected points": sum(q.nbytes for q in points.values()),
        "last StepRecord (grad rows, delta)": sum(t.numel() * t.element_size() for t in (lab.last.grad_rows, lab.last.delta)),
        "Lab.step's W-sized copy of W before a step (none: it reads the kept snapshot)": (
            lab._scratch.numel() * lab._scratch.element_size() if getattr(lab, "_scratch", None) is not None else 0),
    }
    del lab, ex, points, data, spec
    gc.collect()
    out["after_free"] = rss_bytes() - base
    lab2 = Lab(recipe)
    lab2.run(3)
    out["second"] = rss_bytes() - base - out["after_free"]
    out["hwm"] = hwm_bytes()
    return out


def memory(rows: list) -> None:
    """RSS deltas of one session's objects at this size, measured in a fresh process (clean baseline)."""
    import subprocess

    proc = subprocess.run([sys.executable, __file__, "--memory-child"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    try:
        m = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        rows.append(["memory child failed", "–", proc.stderr.strip()[-200:]])
        return
    rows += [
        ["RSS after imports (torch, numpy, plotly, …)", fmt_bytes(m["rss_imports"]), "a fresh process"],
        ["RSS with the recipe built (vocabulary, sentences)", fmt_bytes(m["rss_base"]), "baseline for the rows below"],
        ["+ Lab(recipe)", fmt_bytes(m["lab"]), "W, snapshot 0"],
        ["+ 3 steps", fmt_bytes(m["steps"]), "grad, Adam's moments, snapshots, allocator slack"],
        ["+ the stage's picture and data (PCA frame, points, train_data and its JSON)", fmt_bytes(m["views"]), ""],
        ["one session's lab in total", fmt_bytes(m["session"]), "what a session on the large preset holds"],
        ["after dropping it (gc)", fmt_bytes(m["after_free"]), "relative to the baseline"],
        ["a second session's lab (+3 steps)", fmt_bytes(m["second"]), "each further session"],
        ["peak RSS of the process (VmHWM)", fmt_bytes(m["hwm"]), "per-step temporaries included"],
    ]
    rows += [[f"  of which {k} (computed)", fmt_bytes(b), ""] for k, b in m["held"].items()]


def bound_note() -> str:
    from core import limits

    table = limits.MAX_TABLE_FLOATS * 4
    snaps = max(2, limits.SNAPSHOT_BUDGET_FLOATS // limits.MAX_TABLE_FLOATS)
    return (f"Bound per session at the limits (V·E ≤ {limits.MAX_TABLE_FLOATS:,} floats): W + grad + Adam's two "
            f"moments = 4 × {fmt_bytes(table)}, snapshots max(2, budget/V·E) = {snaps} × {fmt_bytes(table)} "
            f"≈ {fmt_bytes(table * (4 + snaps))} at most, per-step temporaries (gradient rows, aminmax, delta) aside; "
            f"at the large preset (3.0e7 floats) ≈ {fmt_bytes(120_000_000 * 6)}.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-apptest", action="store_true", help="skip the AppTest pass (the page as sent)")
    ap.add_argument("--no-browser", action="store_true", help="skip plotly.js drawing the replay in Chromium")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads first (0: torch's default)")
    ap.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.memory_child:
        print(json.dumps(memory_child()))
        return
    print(f"# bench_scale: the large preset (V=100,000, E=300, B=256, T≤50)\n\n{machine_note()}\n")
    t0 = time.perf_counter()
    state: dict = {}
    timing: list = []
    errors: list = []
    for name, fn in (("build", section_build), ("train", section_train), ("pca", section_pca), ("views", section_views)):
        fn(timing, state)
        print(f"  {name} done at {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    payload_rows: list = []
    replay = section_payloads(payload_rows, state)
    print(f"  payloads done at {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if not args.no_browser:
        browser_render(timing, replay, errors)
    del replay
    element_rows: list = []
    mem_rows: list = []
    state.clear()
    gc.collect()
    memory(mem_rows)
    print(f"  memory done at {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if not args.no_apptest:
        apptest_elements(timing, element_rows, errors)

    print("## Time per operation\n")
    print(table(HEADER, timing))
    print("\n## Payloads: the stage's data (json.dumps) and the Plotly figures the page still draws (fig.to_json()), "
          "built as the sections build them\n")
    print(table(["view", "what", "JSON bytes", "build ms (p50)", "n", "serialize ms", "goal ≤ 5 MB"], payload_rows))
    if element_rows:
        print("\n## What the page sends (AppTest: serialized element protos after each interaction)\n")
        print(table(["after", "page total", "largest elements", "goal: each ≤ 5 MB"], element_rows))
    print("\n## Memory per session (VmRSS deltas, measured in a fresh process)\n")
    print(table(["what", "bytes", "note"], mem_rows))
    print(f"\n{bound_note()}")
    if errors:
        print("\nErrors:\n" + "\n".join(f"- {e}" for e in errors))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
