"""How long training stays worth watching at each preset: today's training knobs and the presets' own
side by side (issue 25, "Training worth watching").

    python bench/bench_learning.py                 # chapter, reviews_ko, reviews_en (~2–3 min)
    python bench/bench_learning.py --quick         # fewer timing repetitions, one preview length
    python bench/bench_learning.py --large 50      # also the 100k × 300 preset, 50 steps (~1 min more)

Every setting is a fresh lab built as the app builds it (`_common.build_lab`: the preset's
vocabulary, sentences and config, with the setting's knobs on top), trained N steps (500) through
``Lab.step()``, the path of a Step click. Only the training knobs (optimizer, lr, batch_size,
weight_decay) differ between settings; the vocabulary, sentences, E and seed are the preset's.

**Which loss.** The lab's loss is the loss of that step's batch, before the update. With mini-batches
(``batch_size`` k: each step takes the next k sentences in turn) it jumps from batch to batch, and a
criterion on it would measure which batch came last. So after every step this script computes the
**full-batch loss** L(s) of the weights after s steps (one forward over every sentence under
``no_grad``; it does not touch training), and every loss column below is L(s). L(0) is the fresh table.

**The columns** (first steps, counted 1…N; "> N" when not reached within N steps):

- *within 1 % of L(N)*: the issue's measure: the first step s from which |L(t) − L(N)| ≤ 1 % of L(N)
  for every t from s to N. On sentences that the model can separate, and with no weight decay, the
  loss keeps falling towards 0 forever, so 1 % of a shrinking L(N) is only reached near N: this
  column reads ~N for every such setting, today's included, and cannot tell them apart.
- *99 % of the drop*: the first step from which |L(t) − L(N)| ≤ 1 % of (L(0) − L(N)): when the loss
  curve, drawn on a linear axis from L(0) down (the stage's sparkline), has come to rest to within
  1 % of its height. This is the measure the presets' knobs were chosen on.
- *p ≥ 0.99*: the first step at which every sentence's predicted probability of its own label is
  at least 0.99 (the stage's two decimals then read 0.99 or 1.00 on every sentence).
- *∇ < 1 %*: the first step from which the largest ‖∇‖ of a non-PAD row stays below 1 % of step 1's;
  *∇ = 0*: the first step at which every non-PAD row the step looked up has an exactly zero
  gradient (float32 softmax saturated), if ever.
- *moved outside the batch*: rows the step did not look up (zero gradient, C8) that still moved,
  per step on average: Adam's and momentum's state moves them; weight decay moves every row.
- *Step ms*: one recorded ``Lab.step()`` (a Step click's training part), torch at 1 thread as the
  server runs it, p50 over repetitions interleaved with the other settings of the preset; the ratio
  is the median of the paired ratios to today's.

A second table says what the stage's frame shows: ``core.explorer`` fits the PCA frame on a private
preview run ``PREVIEW_STEPS`` steps ahead. For each setting and preview length (the module's value
and the ones ``--preview`` lists, set on the module in this process only), the share of the rows'
motion since step 0 that lies in the frame's plane (‖(W_s − W_0)·Aᵀ‖ / ‖W_s − W_0‖), the median
non-PAD row's on-screen move since step 0 (in the frame, as a share of the axis range), and the
first picture's time (the preview run and the fit: what the first view of the stage waits for).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import build_lab, fmt_ms, fmt_ratio, machine_note, summary, table  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

STEPS = 500
TIMED_STEPS = 20
MARKS = (20, 200)  # steps whose loss is printed
FRAME_STEPS = (1, 20, 100, 200)
KNOB_NAMES = ("optimizer", "lr", "batch_size", "weight_decay")

# The training knobs the presets had before issue 25 (assets/presets/*.json, config).
TODAY = {
    "chapter": {"optimizer": "adam", "lr": 0.1, "batch_size": 0, "weight_decay": 0.0},
    "reviews_ko": {"optimizer": "adam", "lr": 0.05, "batch_size": 0, "weight_decay": 0.0},
    "reviews_en": {"optimizer": "adam", "lr": 0.05, "batch_size": 0, "weight_decay": 0.0},
}
# Alternatives considered for the review presets, as changes to the presets' own knobs.
CONSIDERED = {
    "full batch": {"batch_size": 0},
    "weight decay 0.01": {"weight_decay": 0.01},
    "SGD lr 0.5": {"optimizer": "sgd", "lr": 0.5},
}


def preset_knobs(preset: str) -> dict:
    lab = build_lab(preset)
    return {k: getattr(lab.recipe.config, k) for k in KNOB_NAMES}


def settings(preset: str, considered: bool) -> list[tuple[str, dict]]:
    """(name, knobs) for one preset: today's, the preset's own ("new") and the alternatives."""
    new = preset_knobs(preset)
    out = [("today", TODAY[preset]), ("new (preset)", new)] if preset in TODAY else [("preset", new)]
    if considered and preset.startswith("reviews"):
        out += [(f"new, {name}", {**new, **change}) for name, change in CONSIDERED.items()]
    return out


def knob_text(k: dict) -> str:
    batch = "all" if not k["batch_size"] else str(k["batch_size"])
    return f"{k['optimizer']} lr {k['lr']:g}, batch {batch}, wd {k['weight_decay']:g}"


# ---- one training curve ---------------------------------------------------------------------
@dataclass
class Curve:
    loss: list[float] = field(default_factory=list)  # full-batch loss after s steps, s = 0…N
    min_p: list[float] = field(default_factory=list)  # smallest probability of a sentence's own label
    grad: list[float] = field(default_factory=list)  # step s (1…N): largest non-PAD ‖∇‖ row
    moved_outside: list[int] = field(default_factory=list)  # step s: rows not looked up that moved
    batch: int = 0
    sentences: int = 0


def curve(preset: str, knobs: dict, steps: int) -> Curve:
    lab = build_lab(preset, **knobs)
    ids, lengths = lab.batch.ids, lab.batch.lengths  # (B, T), (B,)
    targets = torch.tensor(lab.recipe.labels)  # (B,)
    pad = lab.recipe.vocab.pad_id
    out = Curve(batch=int(lab.step_rows(1).shape[0]), sentences=int(ids.shape[0]))

    def measure() -> None:
        with torch.no_grad():
            logits = lab.model(ids, lengths)  # (B, C)
            out.loss.append(float(nn.functional.cross_entropy(logits, targets)))
            out.min_p.append(float(torch.softmax(logits, dim=-1).gather(1, targets[:, None]).min()))

    measure()
    for _ in range(steps):
        rec = lab.step()
        if rec is None:  # diverged: the curve ends here
            break
        measure()
        real = rec.grad_ids != pad
        out.grad.append(float(rec.grad_rows[real].norm(dim=1).max()) if bool(real.any()) else 0.0)
        outside = torch.ones(rec.delta.shape[0], dtype=torch.bool)
        outside[rec.grad_ids] = False
        out.moved_outside.append(int((rec.delta[outside] > 0).sum()))
    lab.release()
    return out


def settles(xs: list[float], target: float, tol: float) -> int | None:
    """The first index from which every later value is within ``tol`` of ``target``."""
    s = len(xs) - 1
    if abs(xs[s] - target) > tol:
        return None
    while s > 0 and abs(xs[s - 1] - target) <= tol:
        s -= 1
    return s


def stays_below(xs: list[float], bound: float) -> int | None:
    """The first index from which every later value is below ``bound`` (None: the last one is not)."""
    s = len(xs)
    while s > 0 and xs[s - 1] < bound:
        s -= 1
    return s if s < len(xs) else None


def first(xs: list[float], ok) -> int | None:
    return next((i for i, x in enumerate(xs) if ok(x)), None)


def step_text(s: int | None, n: int, offset: int = 0) -> str:
    return f"> {n}" if s is None else str(s + offset)


def curve_cells(c: Curve, n: int) -> list[str]:
    L = c.loss
    last = L[-1]
    within = settles(L, last, 0.01 * last)
    drop = settles(L, last, 0.01 * (L[0] - last)) if L[0] > last else None
    p99 = first(c.min_p, lambda p: p >= 0.99)
    fades = stays_below(c.grad, 0.01 * c.grad[0]) if c.grad and c.grad[0] > 0 else None
    zero = first(c.grad, lambda g: g == 0.0)
    marks = [f"{L[m]:.3g}" if m < len(L) else "–" for m in MARKS]
    return ([f"{L[0]:.3f}", *marks, f"{last:.3g}", step_text(within, n), step_text(drop, n), step_text(p99, n),
             step_text(fades, n, 1), "never" if zero is None else str(zero + 1),
             f"{np.mean(c.moved_outside):.1f}" if c.moved_outside else "–"])


# ---- per-step time --------------------------------------------------------------------------
def step_times(preset: str, named: list[tuple[str, dict]], reps: int) -> dict[str, list[float]]:
    """Per-step seconds of TIMED_STEPS recorded Lab.step() calls per repetition, settings interleaved
    (the order rotates), each repetition on a fresh lab after one untimed step."""
    times: dict[str, list[float]] = {name: [] for name, _ in named}
    for r in range(reps):
        order = named[r % len(named):] + named[:r % len(named)]
        for name, knobs in order:
            lab = build_lab(preset, **knobs)
            lab.step()
            t0 = time.perf_counter()
            for _ in range(TIMED_STEPS):
                lab.step()
            times[name].append((time.perf_counter() - t0) / TIMED_STEPS)
            lab.release()
    return times


def paired_ratio(xs: list[float], ys: list[float]) -> float:
    return summary([x / y for x, y in zip(xs, ys)])["p50"] if xs and ys else float("nan")


# ---- the frame ------------------------------------------------------------------------------
def frame_cells(preset: str, knobs: dict, preview: int) -> list[str]:
    """What the stage's frame shows at FRAME_STEPS, with the preview run ``preview`` steps long."""
    from assets import presets
    import core.explorer as cx

    kept = cx.PREVIEW_STEPS
    cx.PREVIEW_STEPS = preview
    try:
        p = presets.load(preset)
        p["config"] = {**p.get("config", {}), **knobs}
        ex = cx.Explorer.from_preset(p)
        t0 = time.perf_counter()
        ex.picture(2)
        first_ms = time.perf_counter() - t0
        state = ex._frames[2]
        axes, pad = state.frame.axes.astype(np.float64), ex.vocab.pad_id  # (2, E)
        w0 = ex.lab.snapshots[0].astype(np.float64)  # (V, E)
        xy0 = state.frame.transform(ex.lab.snapshots[0])
        captured, moves, done = [], [], 0
        for s in FRAME_STEPS:
            ex.run(s - done)
            done = s
            pic = ex.picture(2)
            d = ex.lab.snapshots[s].astype(np.float64) - w0
            full = float(np.linalg.norm(d))
            captured.append(float(np.linalg.norm(d @ axes.T)) / full if full else float("nan"))
            span = np.array([hi - lo for lo, hi in pic.ranges])
            move = np.linalg.norm((pic.points[s] - xy0) / span, axis=1)  # (V,)
            moves.append(float(np.median(np.delete(move, pad))))
        basis = state.basis
    finally:
        cx.PREVIEW_STEPS = kept
    return ([str(preview), basis] + [f"{c:.2f}" for c in captured]
            + [f"{100 * m:.1f} %" for m in (moves[1], moves[-1])] + [fmt_ms(first_ms)])


# ---- main -----------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", default="chapter,reviews_ko,reviews_en")
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--reps", type=int, default=15, help="timing repetitions per setting")
    ap.add_argument("--preview", default="120,200", help="preview lengths to compare with core.explorer's")
    ap.add_argument("--large", type=int, default=0, help="also the 100k × 300 preset, this many steps (0: skip)")
    ap.add_argument("--no-considered", action="store_true", help="only today's knobs and the presets' own")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)  # as the server runs (page.py, TORCH_THREADS)
    reps = 4 if args.quick else args.reps
    import core.explorer as cx

    previews = [cx.PREVIEW_STEPS] + ([] if args.quick else [int(x) for x in args.preview.split(",") if x])
    n = args.steps
    print("# bench_learning: how long training stays worth watching, today's knobs vs the presets'\n")
    print(machine_note() + "\n")
    print(f"N = {n} steps per setting. Losses: the full-batch loss after s steps (see the script's docstring; "
          "the lab's own loss is that step's batch loss). Steps are counted from 1; \"> N\": not within N.\n")
    rows, trows, frows = [], [], []
    for preset in args.presets.split(","):
        named = settings(preset, not args.no_considered)
        for name, knobs in named:
            c = curve(preset, knobs, n)
            rows.append([preset, name, knob_text(knobs), f"{c.batch} of {c.sentences}", *curve_cells(c, n)])
        times = step_times(preset, named, reps)
        base = times[named[0][0]]
        for name, _ in named:
            s = summary(times[name])
            trows.append([preset, name, fmt_ms(s["p50"]), f"{fmt_ms(s['p10'])}–{fmt_ms(s['p90'])}",
                          fmt_ratio(paired_ratio(times[name], base)), str(s["n"])])
        for name, knobs in named[:2]:
            for pv in previews:
                frows.append([preset, name, *frame_cells(preset, knobs, pv)])
    if args.large:
        knobs = preset_knobs("large")
        c = curve("large", knobs, args.large)
        rows.append(["large", "preset", knob_text(knobs), f"{c.batch} of {c.sentences}", *curve_cells(c, args.large)])
    head = ["preset", "setting", "knobs", "sentences a step", "L(0)", *[f"L({m})" for m in MARKS], f"L(N)",
            "within 1 % of L(N)", "99 % of the drop", "p ≥ 0.99", "∇ < 1 %", "∇ = 0", "moved outside the batch"]
    print("## Steps until training has nothing left to show\n")
    print(table(head, rows) + "\n")
    if args.large:
        print(f"The large preset: {args.large} steps only (N = {args.large} in its row; a step takes ~0.1–0.2 s "
              "there), its knobs unchanged by issue 25.\n")
    else:
        print("The large preset (100k × 300) is skipped: 500 steps there take minutes; `--large 50` adds a "
              "shorter row. Its knobs are not the review examples' and issue 25 left them as they were.\n")
    print(f"## Per-step time: one recorded Lab.step() (ms, torch at 1 thread, {TIMED_STEPS} steps a repetition)\n")
    print(table(["preset", "setting", "p50 ms", "p10–p90", "÷ today (paired p50)", "n"], trows) + "\n")
    print("## The stage's frame: share of the rows' motion in the frame's plane, and the on-screen move\n")
    print(f"`core.explorer.PREVIEW_STEPS` is {cx.PREVIEW_STEPS} in the code; the other lengths are set on the "
          "module in this process only. \"move\": the median non-PAD row's move since step 0, in the frame, as a "
          "share of the axis range.\n")
    print(table(["preset", "setting", "preview steps", "basis", *[f"in plane @{s}" for s in FRAME_STEPS],
                 "move @20", "move @200", "first picture ms"], frows) + "\n")


if __name__ == "__main__":
    main()
