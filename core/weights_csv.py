"""W as a CSV table for spreadsheets: ``id,token,role,e0,e1,…`` with exact float32 values.

Built in bounded steps: CHUNK_FLOATS values are formatted at once (one ``%`` over the chunk, in
C), each chunk is written to the file as it is made, and the server's budget may stop it
between chunks (core/budget.py). The file itself is the only large thing it holds. A chunk is
small because formatting holds the interpreter's lock: every other session's script waits for
the chunk in progress (with chunks of 2^18 floats, a class beside two exports at 100k saw its
Steps slow many times over: bench/RESULTS.md, bench_limits).
"""

from __future__ import annotations

import io

import numpy as np
import torch

from core.budget import checkpoint
from core.sheet_cells import to_cell
from core.vocab import Vocab

CHUNK_FLOATS = 1 << 13  # values formatted at once: a short hold of the interpreter's lock
FLOAT_FORMAT = "%.9g"  # 9 significant digits: every float32 reads back as itself
MAX_FLOAT_CHARS = 15  # "-1.23456789e-05"
BOM = "\ufeff"  # spreadsheets read the file as UTF-8 with it


def weights_csv(vocab: Vocab, weight: torch.Tensor) -> bytes:
    """W as CSV (UTF-8 with BOM, for spreadsheets), every float32 written so it reads back exactly.

    A token is a text cell a spreadsheet never runs (core/sheet_cells.py); a token holding a comma
    or a quote is quoted as the csv module does.

    >>> weights_csv(vocab, lab.weight).decode("utf-8-sig").splitlines()[:2]
    ['id,token,role,e0,e1,e2', '0,<UNK>,unk,-1.12583983,-1.1523602,0.566650629']
    """
    w = weight.detach().to(torch.float32).cpu().numpy()  # (V, E)
    v, e = w.shape
    out = io.BytesIO()
    out.write((BOM + ",".join(["id", "token", "role"] + [f"e{j}" for j in range(e)]) + "\n").encode("utf-8"))
    row = "%d,%s,%s" + ("," + FLOAT_FORMAT) * e + "\n"
    rows = vocab.rows()
    per_chunk = max(1, CHUNK_FLOATS // max(1, e))
    for start in range(0, v, per_chunk):
        block = w[start:start + per_chunk].tolist()
        values: list = []
        for (token, i, role), floats in zip(rows[start:start + per_chunk], block):
            values += (i, _csv_field(to_cell(token)), role)
            values += floats
        out.write(((row * len(block)) % tuple(values)).encode("utf-8"))
        checkpoint()  # between chunks: the job may have to stop
    return out.getvalue()


def csv_size_bound(v: int, e: int, token_bytes: int) -> int:
    """An upper bound of the file's size in bytes: the header, and V rows of an id, a role and E floats
    at their longest; ``token_bytes``, the tokens' UTF-8 bytes, counted twice (quotes doubled)."""
    return 16 + 8 * e + 2 * token_bytes + v * (7 + 3 + 4 + 1 + e * (MAX_FLOAT_CHARS + 1))


def _csv_field(text: str) -> str:
    """Quoted as csv.writer's QUOTE_MINIMAL does when it holds a comma, a quote or a line break."""
    if any(ch in text for ch in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text
