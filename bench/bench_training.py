"""N training steps through the app's core (`core.training.Lab.run`) versus the same N steps in a
plain hand-written torch loop, at the chapter example, the 40-review preset and the large preset.

    python bench/bench_training.py            # all three scales (~1–3 min)
    python bench/bench_training.py --quick    # fewer repetitions
    python bench/bench_training.py --profile  # add cProfile's top functions of Lab.run per scale
    python bench/bench_training.py --threads 1    # only at 1 torch thread (default: 0,1 = torch's default, then 1)
    python bench/bench_training.py --clock cpu    # this thread's CPU time, not wall time: steadier on a busy machine

The plain loop is the same model math (nn.Embedding → masked mean over real tokens → Linear →
cross-entropy), the same optimizer and hyper-parameters, the same initial weights (copied from
the fresh Lab) and it keeps the losses (``loss.item()``) like any training loop that shows them.
After the timed steps both sides hold the same W (the script prints the largest difference).

Each repetition builds two fresh Labs and a fresh plain model (not timed), takes warm-up steps on
each (not timed: 1, or 2 at the large preset), then times N steps on each, the order rotating
between repetitions: ``Lab.run(N)`` (what "Run N steps" does: only its last step keeps a
StepRecord) and N × ``Lab.step()`` (what N Step clicks do: every step keeps one), against the plain
loop. The ratio columns are medians of the per-repetition ratios X/plain (paired, so machine noise
that hits one repetition hits every variant), with their p10–p90 range; the goal is on Lab.run.
Each scale is measured at torch's default intra-op thread count and at 1 thread (``--threads``):
on a busy 2-core machine the default (2 OpenMP threads) makes even the 6×3 chapter step wait for CPU.

A second table splits one recorded Lab step (a Step click) into its parts: a line-by-line mirror
of core/training.py's Lab.step with timers, checked against Lab.step (W, losses, snapshots and the
last StepRecord bitwise equal after a run) so the overhead has a name. The "also unrecorded" column
says which parts Lab.run's other steps (``record=False``) pay too; where only the first and the
latest snapshot fit (the large preset), those steps keep no snapshot either.

A last table times ``optimizer.step()`` alone for each of the four optimizers, torch's default
per-tensor loop against ``fused=True`` (what ``core.training.make_optimizer`` builds), on each
preset's parameters with one fixed gradient.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import build_lab, fmt_ms, fmt_ratio, goal, machine_note, ms_cells, summary, table  # noqa: E402
from support.torch_reference import PlainLoop  # noqa: E402  (after _common, which puts the root on the path)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

GOAL_RATIO = 1.2

# scale id → (preset, steps timed per repetition, most repetitions, quick repetitions)
SCALES = {
    "chapter": ("chapter", 20, 40, 6),
    "reviews_ko": ("reviews_ko", 20, 40, 6),
    "large": ("large", 20, 3, 2),  # 20 steps like the others (the app's Run default is 50); only the last is recorded
}


# ---- the plain loop: support.torch_reference.PlainLoop, the tests' answer key -----------------
def Plain(lab):  # noqa: N802  (reads as the class it builds)
    """The hand-written loop (what a learner would type after reading the chapter), from ``lab``'s weights."""
    return PlainLoop(lab.recipe, from_lab=lab)


# ---- a mirror of Lab.step with timers --------------------------------------------------------
# (name, paid by unrecorded steps too), in the order Lab.step does them
PARTS = (
    ("require() + this step's rows, lengths, targets (a slice)", True),
    ("before = W as kept in this step's snapshot (a view, no copy)", False),
    ("zero_grad + forward + backward", True),
    ("unique(ids) + grad.index_select(used)", False),
    ("unused max: index_fill_ 0, aminmax, index_copy_ back", False),
    ("optimizer.step()", True),
    ("losses.append(loss.item())", True),
    ("delta = ‖W − before‖ per row, in blocks + StepRecord", False),
    ("_keep_snapshot (W → numpy copy, thinning)", True),
)


def timed_step(lab, parts: dict[str, list[float]], record: bool = True) -> None:
    """Lab.step(record) of core/training.py, line by line (``_gradient_facts`` inlined), a timer per part."""
    from core.problems import require
    from core.training import StepRecord

    clock = time.perf_counter
    ts = [clock()]
    require(lab._problems)
    ids, lengths, targets = lab._step_batch(lab.steps + 1)
    ts.append(clock())
    w = lab.weight.detach()
    before = lab._before(w) if record else None
    ts.append(clock())
    lab.optimizer.zero_grad()
    loss = nn.functional.cross_entropy(lab.model(ids, lengths), targets)
    loss.backward()
    ts.append(clock())
    if record:
        grad = lab.weight.grad.detach()
        used = torch.unique(ids)
        grad_rows = grad.index_select(0, used)
    ts.append(clock())
    unused_max = 0.0
    if record and used.numel() != grad.shape[0]:
        grad.index_fill_(0, used, 0.0)
        lo, hi = torch.aminmax(grad)
        grad.index_copy_(0, used, grad_rows)
        unused_max = float(torch.maximum(lo.abs(), hi.abs()))
    ts.append(clock())
    lab.optimizer.step()
    lab.steps += 1
    ts.append(clock())
    lab.losses.append(loss.item())
    ts.append(clock())
    if record:
        lab.last = StepRecord(lab.steps, lab.losses[-1], lab.step_rows(lab.steps), used, grad_rows, unused_max,
                              lab._moved(w, before))
    ts.append(clock())
    lab._keep_snapshot()
    ts.append(clock())
    for (name, _), a, b in zip(PARTS, ts, ts[1:]):
        parts.setdefault(name, []).append(b - a)


def check_mirror(preset: str, steps: int = 3) -> float:
    """The mirror must do what Lab.step does, else the breakdown lies: after a warm-up step and a
    run of ``steps`` (only the last recorded), W, losses, snapshots and the last StepRecord must be
    bitwise equal. Returns max |ΔW| (0.0); raises AssertionError on any difference."""
    a, b = build_lab(preset), build_lab(preset)
    a.step()
    a.run(steps)
    scratch: dict[str, list[float]] = {}
    timed_step(b, scratch)
    for i in range(steps):
        timed_step(b, scratch, record=i == steps - 1)
    assert torch.equal(a.weight, b.weight), "W differs"
    assert a.losses == b.losses, "losses differ"
    assert sorted(a.snapshots) == sorted(b.snapshots) and all(
        np.array_equal(a.snapshots[s], b.snapshots[s]) for s in a.snapshots), "snapshots differ"
    ra, rb = a.last, b.last
    assert (ra.step, ra.loss, ra.unused_grad_max) == (rb.step, rb.loss, rb.unused_grad_max), "StepRecord differs"
    for f in ("rows", "grad_ids", "grad_rows", "delta"):
        assert torch.equal(getattr(ra, f), getattr(rb, f)), f"StepRecord.{f} differs"
    return float((a.weight.detach() - b.weight.detach()).abs().max())


# ---- the benchmark ---------------------------------------------------------------------------
VARIANTS = ("Lab.run", "Lab.step×N", "plain")


def bench_scale(name: str, preset: str, n: int, min_reps: int, max_reps: int, budget_s: float, warmup: int,
                clock=time.perf_counter) -> dict:
    """Repetitions of: two fresh Labs and a plain model, ``warmup`` untimed steps each, then N timed
    steps each (``Lab.run(N)``, N × ``Lab.step()``, the plain loop), in an order that rotates between
    repetitions. Stops after ``max_reps`` or once ``min_reps`` are done and ``budget_s`` has passed."""
    times: dict[str, list[float]] = {v: [] for v in VARIANTS}
    ratios: dict[str, list[float]] = {v: [] for v in VARIANTS[:-1]}
    diffs = []
    t_start = time.perf_counter()
    r = 0
    while r < max_reps and (r < min_reps or time.perf_counter() - t_start < budget_s):
        lab = build_lab(preset)
        lab_each = build_lab(preset)
        plain = Plain(lab)
        runs = {"Lab.run": lambda k: lab.run(k), "Lab.step×N": lambda k: [lab_each.step() for _ in range(k)],
                "plain": lambda k: plain.run(k)}
        for f in runs.values():
            f(warmup)
        k = r % len(VARIANTS)
        order = VARIANTS[k:] + VARIANTS[:k]
        got = {}
        for v in order:
            t = clock()
            runs[v](n)
            got[v] = clock() - t
        for v in VARIANTS:
            times[v].append(got[v] / n)
        for v in ratios:
            ratios[v].append(got[v] / got["plain"])
        w = lab.weight.detach()
        diffs.append(max(float((w - plain.emb.weight.detach()).abs().max()),
                         float((w - lab_each.weight.detach()).abs().max())))
        del lab, lab_each, plain, runs
        r += 1
    return {"name": name, "n": n, "times": times, "ratios": ratios, "wdiff": max(diffs)}


def breakdown(preset: str, n: int) -> dict:
    lab = build_lab(preset)
    lab.step()
    parts: dict[str, list[float]] = {}
    for _ in range(n):
        timed_step(lab, parts)
    return parts


def profile_run(preset: str, n: int) -> str:
    lab = build_lab(preset)
    lab.step()
    prof = cProfile.Profile()
    prof.enable()
    lab.run(n)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
    return buf.getvalue()


def bench_optimizers(preset: str, reps: int) -> list[list[str]]:
    """optimizer.step() alone, torch's default (per-tensor loop) vs fused=True (what the app uses), on
    the preset's parameters with one fixed gradient, interleaved; one row per optimizer."""
    from core.training import OPTIMIZERS, make_optimizer

    lab = build_lab(preset)
    lab.step()  # real gradients in .grad
    cfg = lab.recipe.config
    rows = []
    for name in OPTIMIZERS:
        times: dict[bool, list[float]] = {True: [], False: []}
        opts = {}
        for fused in (True, False):
            params = [p.detach().clone().requires_grad_(True) for p in lab.model.parameters()]
            for p, q in zip(params, lab.model.parameters()):
                p.grad = q.grad.detach().clone()
            opts[fused] = make_optimizer(name, params, cfg.lr, cfg.weight_decay)
            if not fused:
                for g in opts[fused].param_groups:
                    g["fused"] = None  # torch's default: the per-tensor loop on CPU
            opts[fused].step()  # state allocated, not timed
        for r in range(reps):
            for fused in ((True, False) if r % 2 else (False, True)):
                t = time.perf_counter()
                opts[fused].step()
                times[fused].append(time.perf_counter() - t)
        ratio = summary(times[False])["p50"] / summary(times[True])["p50"]
        rows.append([preset, name, *ms_cells(times[False])[:2], *ms_cells(times[True])[:2], fmt_ratio(ratio), str(reps)])
    return rows


def shape_of(preset: str) -> str:
    if preset == "large":
        return "V=100000, E=300, (B,T)=(256, 50)"
    lab = build_lab(preset)
    return f"V={lab.recipe.vocab.size}, E={lab.recipe.config.embedding_dim}, (B,T)={tuple(lab.batch.ids.shape)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, smaller time budget")
    ap.add_argument("--profile", action="store_true", help="print cProfile's top functions of Lab.run per scale")
    ap.add_argument("--threads", default="0,1",
                    help="comma-separated torch.set_num_threads values to measure at (0: torch's default)")
    ap.add_argument("--scales", default=",".join(SCALES), help="comma-separated subset of " + ", ".join(SCALES))
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="what the per-step columns time: wall time, or this thread's CPU time (at --threads 1 "
                         "every op runs in it; other processes' load then does not enter the ratio)")
    args = ap.parse_args()
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    default_threads = torch.get_num_threads()
    print(f"# bench_training: Lab.run vs a plain torch loop\n\n{machine_note()}\n")
    results = []
    for threads in [int(x) for x in args.threads.split(",")]:
        torch.set_num_threads(threads or default_threads)
        for name in args.scales.split(","):
            preset, n, reps, quick = SCALES[name]
            budget = {"large": 0.0}.get(name, 8.0 if args.quick else 25.0)
            t = time.perf_counter()
            res = bench_scale(name, preset, n, min_reps=quick if args.quick else min(reps, 5),
                              max_reps=quick if args.quick else reps, budget_s=budget, warmup=2 if name == "large" else 1,
                              clock=clock)
            res["threads"] = torch.get_num_threads()
            res["wall"] = time.perf_counter() - t
            results.append(res)
            print(f"  {name} threads={res['threads']}: {len(res['times']['plain'])} reps in {res['wall']:.1f} s", file=sys.stderr)

    shapes = {name: shape_of(SCALES[name][0]) for name in args.scales.split(",")}
    rows = []
    for res in results:
        t, rt = res["times"], res["ratios"]
        lab_r, each_r = summary(rt["Lab.run"]), summary(rt["Lab.step×N"])
        rows.append([res["name"], shapes[res["name"]], str(res["threads"]), str(res["n"]),
                     *ms_cells(t["Lab.run"])[:2], *ms_cells(t["plain"])[:2],
                     fmt_ratio(lab_r["p50"]), f"{fmt_ratio(lab_r['p10'])}–{fmt_ratio(lab_r['p90'])}",
                     goal(lab_r["p50"] <= GOAL_RATIO), str(lab_r["n"]),
                     ms_cells(t["Lab.step×N"])[0], fmt_ratio(each_r["p50"]),
                     f"{fmt_ratio(each_r['p10'])}–{fmt_ratio(each_r['p90'])}", f"{res['wdiff']:.0e}"])
    print(f"## Per step (ms, {args.clock} time): Lab.run(N) vs the plain loop; ratio = median of paired "
          "per-repetition ratios\n")
    print(table(["scale", "shape", "threads", "N", "Lab.run p50", "Lab.run p10–p90", "plain p50", "plain p10–p90",
                 "Lab.run/plain p50", "Lab.run/plain p10–p90", f"goal ≤ {GOAL_RATIO}×", "n reps",
                 "Lab.step()×N p50", "Lab.step()×N/plain p50", "Lab.step()×N/plain p10–p90",
                 "max |ΔW| Lab vs plain, run vs step×N"], rows))
    print("\n`Lab.run(N)` records only its last step (\"Run N steps\"); `Lab.step()×N` records every step, "
          "as N Step clicks do (the goal applies to Lab.run).")

    torch.set_num_threads(1)
    for name in args.scales.split(","):
        preset, n, _, _ = SCALES[name]
        parts = breakdown(preset, max(3, min(50, n if name != "large" else 3)))
        total = sum(summary(v)["p50"] for v in parts.values())
        one = [r for r in results if r["name"] == name and r["threads"] == 1]
        mirror = check_mirror(preset, 2 if name == "large" else 3)
        print(f"\n## Where one recorded Lab step (a Step click) goes: {name}, threads=1 (mirror of Lab.step, "
              f"n={len(next(iter(parts.values())))} steps; mirror ≡ Lab.step, bitwise: max |ΔW| = {mirror:.0e})\n")
        body = []
        unrecorded = 0.0
        only_latest = build_lab(preset).snapshot_limit() <= 2  # Lab.run then copies W once, at its end
        for part, also in PARTS:
            also = also and not (only_latest and part.startswith("_keep_snapshot"))
            s = summary(parts[part])
            unrecorded += s["p50"] if also else 0.0
            body.append([part, fmt_ms(s["p50"]), f"{fmt_ms(s['p10'])}–{fmt_ms(s['p90'])}", f"{s['p50'] / total:.0%}",
                         "yes" if also else ""])
        body.append(["sum of medians (recorded step)", fmt_ms(total), "", "100%", ""])
        body.append(["sum of the parts an unrecorded step pays", fmt_ms(unrecorded), "", f"{unrecorded / total:.0%}", ""])
        if one:
            plain_p50 = summary(one[0]["times"]["plain"])["p50"]
            body.append(["(plain loop step at threads=1, for scale)", fmt_ms(plain_p50), "", f"{plain_p50 / total:.0%}", ""])
        print(table(["part of Lab.step", "p50 ms", "p10–p90 ms", "share", "also unrecorded"], body))
        if args.profile:
            print(f"\n### cProfile of Lab.run({n}) at {name}, threads=1 (tottime)\n\n```\n{profile_run(preset, n).strip()}\n```")
    torch.set_num_threads(1)
    opt_rows = []
    for name in args.scales.split(","):
        opt_rows += bench_optimizers(SCALES[name][0], 5 if name == "large" else (50 if args.quick else 200))
    print("\n## optimizer.step() alone, threads=1: torch's default per-tensor loop vs fused=True (the app's)\n")
    print(table(["preset", "optimizer", "default p50 ms", "default p10–p90", "fused p50 ms", "fused p10–p90",
                 "default/fused", "n"], opt_rows))
    print(f"\n{machine_note()}")


if __name__ == "__main__":
    main()
