"""The downloads at the 100,000 × 300 example: time, CPU and peak memory of building each file,
before (the code of commit b67fced, kept below) and now (core/weights_csv.py, core/projector_tsv.py).

    python bench/bench_exports.py                        # W as CSV and vectors.tsv, before and now (~5 min)
    python bench/bench_exports.py --files csv --variants now --rows 20000

Each (file, variant) is built once in a fresh subprocess, so its peak RSS (VmHWM) is its own:
W is a seeded N(0, 1) table of the example's shape with the example's tokens, like a lab's fresh
W. Printed: wall and CPU seconds, the peak RSS above the process before the build, the file's
size and the size bound the budget admits it by (core/exports.py), and whether the file reads
back to W bit for bit (core/sheet_cells.py; "now" only). Prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, fmt_bytes, hwm_bytes, machine_note, rss_bytes, table  # noqa: E402

MAX_ROWS = 100_000


def before_csv(vocab, weight) -> bytes:
    """core/weights_csv.py at b67fced: csv.writer, one repr per float."""
    import torch

    w = weight.detach().to(torch.float32)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "token", "role"] + [f"e{j}" for j in range(w.shape[1])])
    for (token, i, role), row in zip(vocab.rows(), w.tolist()):
        cell = "'" + token if token[:1] in "=+-@" else token
        writer.writerow([i, cell, role] + [repr(float(x)) for x in row])
    return out.getvalue().encode("utf-8-sig")


def before_tsv(weight) -> bytes:
    """core/projector_tsv.vectors_tsv at b67fced: chunks kept in a list, joined at the end."""
    import numpy as np
    import torch

    w = weight.detach().to(torch.float32).cpu().numpy()
    rows_per_chunk = max(1, (1 << 18) // max(1, w.shape[1]))
    chunks = []
    for start in range(0, w.shape[0], rows_per_chunk):
        text = w[start:start + rows_per_chunk].astype(np.str_)
        chunks.append("".join("\t".join(row) + "\n" for row in text.tolist()).encode("utf-8"))
    return b"".join(chunks)


def child(kind: str, variant: str, rows: int, dim: int) -> dict:
    """Build one file in this process; what it cost."""
    import numpy as np
    import torch

    torch.set_num_threads(1)
    from assets import presets
    from core import exports
    from core.projector_tsv import vectors_tsv
    from core.sheet_cells import read_weights_csv
    from core.vocab import Vocab
    from core.weights_csv import weights_csv

    vocab = Vocab.from_rows(presets.load("large")["vocab"][:rows] if rows < MAX_ROWS else presets.load("large")["vocab"])
    weight = torch.randn(vocab.size, dim, generator=torch.Generator().manual_seed(0))
    base = rss_bytes()
    w0, c0 = time.perf_counter(), time.process_time()
    if kind == "csv":
        data = before_csv(vocab, weight) if variant == "before" else weights_csv(vocab, weight)
    else:
        data = before_tsv(weight) if variant == "before" else vectors_tsv(weight)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    peak = hwm_bytes() - base
    exact = None
    if variant == "now" and kind == "csv":
        head = data[:data.index(b"\n", len(data) // 50) + 1]  # the header and the first ~2 % of rows
        got_rows, w = read_weights_csv(head)
        exact = bool(np.array_equal(w.view(np.int32), weight[:len(got_rows)].numpy().view(np.int32)))
    bound = exports.size_bound("w_csv" if kind == "csv" else "projector_vectors", vocab.size, dim,
                               exports.token_bytes(vocab.tokens))
    return {"wall": wall, "cpu": cpu, "peak": peak, "size": len(data), "bound": bound, "exact": exact}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", default="csv,tsv")
    ap.add_argument("--variants", default="before,now")
    ap.add_argument("--rows", type=int, default=MAX_ROWS)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    rows = max(10, min(args.rows, MAX_ROWS))
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], rows, args.dim)))
        return
    print(machine_note())
    out = []
    for kind in args.files.split(","):
        for variant in args.variants.split(","):
            proc = subprocess.run([sys.executable, __file__, "--child", kind, variant, "--rows", str(rows),
                                   "--dim", str(args.dim)], cwd=ROOT, capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                out.append([kind, variant, "failed: " + proc.stderr.strip().splitlines()[-1][:80], "", "", "", "", ""])
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            out.append([{"csv": "W as CSV", "tsv": "vectors.tsv"}[kind], variant, f"{r['wall']:.1f}", f"{r['cpu']:.1f}",
                        fmt_bytes(r["peak"]), fmt_bytes(r["size"]), fmt_bytes(r["bound"]),
                        "–" if r["exact"] is None else str(r["exact"])])
            print(" | ".join(out[-1]), flush=True)
    print(f"\n{rows:,} × {args.dim} ({time.strftime('%Y-%m-%d %H:%M')})\n")
    print(table(["file", "code", "wall s", "CPU s", "peak RSS above start", "file size", "size bound admitted",
                 "reads back bitwise"], out))
    print("\n" + machine_note())


if __name__ == "__main__":
    main()
