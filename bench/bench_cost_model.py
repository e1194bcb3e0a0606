"""Calibrates core/cost.py's cost model: what one training step costs in CPU time and peak memory,
for shapes chosen to isolate each term of the model, next to what the model estimates.

    python bench/bench_cost_model.py            # ~3 minutes on a 2-core machine
    python bench/bench_cost_model.py --quick    # fewer steps per shape

Each shape runs in a fresh process at one torch thread (what the app uses): the lab is built, one
warm-up step is taken, then the median of N timed steps is printed, with the process's peak RSS
growth from just before the first step (gradient, optimizer state, the step's activations and
temporaries). The model's constants (core/cost.py) were read off these rows:

- a large table with one short sentence: the per-parameter cost (optimizer, gradient);
- many long sentences over a small table with a mean: the per-activation cost;
- the same through an LSTM at several E: the per-multiply-add cost and the LSTM's saved state;
- one word through a wide LSTM: the LSTM's parameters under the optimizer (the share-link case).

A benchmark, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _common import ROOT

SHAPES = [  # (name, V, E, B, T, pooling, optimizer)
    ("table 100k×300 adam", 100_000, 300, 2, 2, "masked_mean", "adam"),
    ("table 100k×300 sgd", 100_000, 300, 2, 2, "masked_mean", "sgd"),
    ("table 20k×512 adam", 20_000, 512, 2, 2, "masked_mean", "adam"),
    ("batch 512×256×256 mean", 50, 256, 512, 256, "masked_mean", "adam"),
    ("batch 256×256×512 mean", 50, 512, 256, 256, "mean", "sgd"),
    ("lstm 64×64×128", 50, 128, 64, 64, "lstm", "adam"),
    ("lstm 64×64×256", 50, 256, 64, 64, "lstm", "adam"),
    ("lstm 32×128×512", 50, 512, 32, 128, "lstm", "adam"),
    ("packed 32×128×512", 50, 512, 32, 128, "packed_lstm", "adam"),
    ("lstm one word E=512", 3, 512, 1, 1, "lstm", "adam"),
    ("lstm one word E=256", 3, 256, 1, 1, "lstm", "adam"),
]

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
import torch
torch.set_num_threads(1)
from core.training import Config, Lab, Recipe
from core.vocab import Vocab
name, V, E, B, T, pooling, optimizer, n = json.loads(sys.argv[1])
rows = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad")] + [(f"w{{i}}", i, "") for i in range(2, V)]
g = torch.Generator().manual_seed(0)
ids = torch.randint(2, V, (B, T), generator=g).tolist()
sentences = tuple(tuple(f"w{{i}}" for i in row) for row in ids)
recipe = Recipe(Vocab.from_rows(rows), sentences, tuple(i % 2 for i in range(B)), ("a", "b"),
                Config(embedding_dim=E, pooling=pooling, optimizer=optimizer, lr=0.01))
lab = Lab(recipe)
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
before = rss()
lab.step(); times = []
for _ in range(n):
    t0 = time.perf_counter(); lab.step(); times.append(time.perf_counter() - t0)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({{"median_s": sorted(times)[len(times) // 2], "peak_growth": peak - before}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from core.cost import step_cost

    print(f"{'shape':28} {'step ms':>8} {'model ms':>9} {'peak MB':>8} {'model MB':>9}")
    for shape in SHAPES:
        name, v, e, b, t, pooling, optimizer = shape
        n = 3 if args.quick or "100k" in name else 5
        out = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT)), json.dumps([*shape, n])],
                             capture_output=True, text=True, check=True)
        got = json.loads(out.stdout.strip().splitlines()[-1])
        model = step_cost(v, e, b, t, pooling, optimizer)
        kept = 4 * v * e  # each step also keeps a snapshot of W (core/cost.lab_bytes counts snapshots apart)
        print(f"{name:28} {got['median_s'] * 1000:8.1f} {model.seconds * 1000:9.1f} "
              f"{got['peak_growth'] / 2**20:8.0f} {(model.step_bytes + kept) / 2**20:9.0f}")
    print("(peak MB: RSS growth from before the first step; model MB: gradient, optimizer state, activations "
          "and the snapshot a step keeps)")


if __name__ == "__main__":
    main()
