"""How long a vector file takes to read and apply (core/vector_file.py, core/pretrained_apply.py).

A fastText-like word2vec text file of about 20 MB (the import limit) is parsed for the reviews'
vocabulary, then applied to a fresh explorer of that preset (parse + match + the new lab), and
the same for a file of a million columns on one line (refused after splitting 513 fields). CPU
seconds of this process, interleaved; nothing asserts a time.

    python bench/bench_vector_file.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import machine_note, ms_cells, table
from assets import presets
from core.explorer import Explorer
from core.pretrained_apply import apply_file
from core.vector_file import read_vectors


def big_file(rows: int = 20_000, dim: int = 100) -> bytes:
    """``rows`` lines of a token and ``dim`` floats written like fastText's (4 decimals), reviews' tokens first."""
    tokens = [r[0] for r in presets.load("reviews_ko")["vocab"]] + [f"w{i}" for i in range(rows)]
    values = np.random.default_rng(0).normal(size=(rows, dim))
    lines = [f"{rows} {dim}"] + [tokens[i] + " " + " ".join(f"{x:.4f}" for x in values[i]) for i in range(rows)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    n = ap.parse_args().rounds
    data = big_file()
    wide = ("영화 " + " ".join(["0"] * 1_000_000) + "\n").encode()
    preset = presets.load("reviews_ko")
    times: dict[str, list[float]] = {"parse": [], "apply": [], "wide": []}
    for _ in range(n):
        ex = Explorer.from_preset(preset)
        for name, work in (("parse", lambda: read_vectors([("big.vec", data)], ex.vocab.index)),
                           ("apply", lambda: apply_file(ex, [("big.vec", data)], True)),
                           ("wide", lambda: apply_file(ex, [("wide.vec", wide)], True))):
            t0 = time.process_time()
            work()
            times[name].append(time.process_time() - t0)
    print(f"file: {len(data) / 1e6:.1f} MB, 20,000 × 100; {machine_note()}\n")
    print(table(["work", "p50", "p10–p90", "IQR", "n"], [[k, *ms_cells(v)] for k, v in times.items()]))


if __name__ == "__main__":
    main()
