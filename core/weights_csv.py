"""W as a CSV table for spreadsheets: ``id,token,role,e0,e1,…`` with exact float32 values."""

from __future__ import annotations

import csv
import io

import torch

from core.vocab import Vocab


def weights_csv(vocab: Vocab, weight: torch.Tensor) -> bytes:
    """W as CSV (UTF-8 with BOM, for spreadsheets), every float written exactly (``repr``).

    A token a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@`` first) is written
    with a leading ``'``; quoting is the csv module's.

    >>> weights_csv(vocab, lab.weight).decode("utf-8-sig").splitlines()[:2]
    ['id,token,role,e0,e1,e2', '0,<UNK>,unk,-1.1258398294448853,-1.152360200881958,0.5666506290435791']
    """
    w = weight.detach().to(torch.float32)  # (V, E)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "token", "role"] + [f"e{j}" for j in range(w.shape[1])])
    for (token, i, role), row in zip(vocab.rows(), w.tolist()):
        cell = "'" + token if token[:1] in "=+-@" else token
        writer.writerow([i, cell, role] + [repr(float(x)) for x in row])
    return out.getvalue().encode("utf-8-sig")
