"""W as a CSV table for spreadsheets: ``id,token,role,e0,e1,…`` with exact float32 values.

Built in bounded steps: CHUNK_FLOATS values at once, each chunk written to the file as it is made,
and the work it runs as may stop it between chunks (core/work.py). The file itself is the only
large thing it holds. Each chunk is formatted without the interpreter's lock (core/float_text.py):
each float32 in its shortest form that reads back as the same float32, every text cell quoted.
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import torch

from core.float_text import MAX_FLOAT_CHARS, arrow_ok, arrow_rows
from core.sheet_cells import to_cell
from core.vocab import ROLE_NAMES, Vocab
from core.work import FREE, Work

CHUNK_FLOATS = 1 << 16  # values formatted by one call of Arrow's writer
FLOAT_FORMAT = "%.9g"  # a table Arrow would write too long: 9 significant digits, every float32 reads back as itself
PERCENT_CHUNK_FLOATS = 1 << 13  # that fallback formats in Python, holding the interpreter's lock: small chunks
BOM = "\ufeff"  # spreadsheets read the file as UTF-8 with it


def weights_csv(vocab: Vocab, weight: torch.Tensor, work: Work = FREE) -> bytes:
    """W as CSV (UTF-8 with BOM, for spreadsheets), every float32 written so it reads back exactly.

    A token is a text cell a spreadsheet never runs (core/sheet_cells.py), quoted with its quotes
    doubled, as RFC 4180 and the csv module read it.

    >>> weights_csv(vocab, lab.weight).decode("utf-8-sig").splitlines()[:2]
    ['id,token,role,e0,e1,e2', '0,"<UNK>","unk",-1.1258398,-1.1523602,0.5666506']
    """
    w = weight.detach().to(torch.float32).cpu().numpy()  # (V, E)
    v, e = w.shape
    out = io.BytesIO()
    out.write((BOM + ",".join(["id", "token", "role"] + [f"e{j}" for j in range(e)]) + "\n").encode("utf-8"))
    rows = [(i, to_cell(token), ROLE_NAMES[role]) for token, i, role in vocab.rows()]
    exact_short = arrow_ok(w)
    write = _arrow_chunk if exact_short else _percent_chunk
    per_chunk = max(1, (CHUNK_FLOATS if exact_short else PERCENT_CHUNK_FLOATS) // max(1, e))
    for start in range(0, v, per_chunk):
        out.write(write(rows[start:start + per_chunk], w[start:start + per_chunk]))
        work.checkpoint()  # between chunks: the job may have to stop
    return out.getvalue()


def _arrow_chunk(rows: list[tuple[int, str, str]], block: np.ndarray) -> pa.Buffer:
    """One chunk of rows as CSV, formatted by Arrow (no interpreter lock held while it formats)."""
    ids, tokens, roles = zip(*rows)
    floats = np.ascontiguousarray(block.T)  # (E, rows): each column contiguous, taken by Arrow as it is
    return arrow_rows([pa.array(ids, pa.int64()), pa.array(tokens, pa.string()), pa.array(roles, pa.string()), *floats],
                      ["id", "token", "role"] + [f"e{j}" for j in range(len(floats))])


def _percent_chunk(rows: list[tuple[int, str, str]], block: np.ndarray) -> bytes:
    """One chunk as CSV with FLOAT_FORMAT (a table Arrow would write too long, or one not finite)."""
    values: list = []
    for (i, token, role), floats in zip(rows, block.tolist()):
        values += (i, _csv_field(token), _csv_field(role))
        values += floats
    row = "%d,%s,%s" + ("," + FLOAT_FORMAT) * block.shape[1] + "\n"
    return ((row * len(rows)) % tuple(values)).encode("utf-8")


def csv_size_bound(v: int, e: int, token_bytes: int) -> int:
    """An upper bound of the file's size in bytes: the header, and V rows of an id, a quoted role
    and E floats at their longest; ``token_bytes``, the tokens' UTF-8 bytes, counted twice (quotes
    doubled) with the two quotes and the formula mark of each row."""
    return 16 + 8 * e + 2 * token_bytes + v * (7 + 3 + 3 + 6 + 1 + e * (MAX_FLOAT_CHARS + 1))


def _csv_field(text: str) -> str:
    """Quoted, its quotes doubled, as Arrow's writer quotes every text cell."""
    return '"' + text.replace('"', '""') + '"'
