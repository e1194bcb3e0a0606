"""W in the TensorFlow Embedding Projector's format: ``vectors.tsv`` and ``metadata.tsv``.

The Projector (projector.tensorflow.org, "Load") takes two tab-separated files: one row of floats
per point, and one row of labels per point, in the same order, with a header row when there is
more than one column. Here a point is a token, in id order, so row ``i`` of both files is row ``i``
of ``W``.

Worked example (the chapter's vocabulary and its two labelled sentences)::

    >>> print(metadata_tsv(vocab, batch, labels=(1, 0), classes=("부정", "긍정")).decode())
    token	id	role	class
    <UNK>	0	unk	긍정          ← "정말" is not in the vocabulary: it is looked up as <UNK>
    <PAD>	1	pad
    영화	2	normal	            ← once in each class: a tie, so no class
    좋다	3	normal	긍정
    나쁘다	4	normal	부정
    재미있다	5	normal	            ← in no sentence

Each float is written as the shortest decimal that reads back as the same float32 (``0.36159506``
rather than ``0.361595064``), so parsing the file at float32, as the Projector does, gives ``W``
bit for bit.
"""

from __future__ import annotations

import io

import numpy as np
import torch

from core.batch import Batch
from core.float_text import MAX_FLOAT_CHARS, arrow_ok, arrow_rows
from core.sheet_cells import to_cell
from core.vocab import ROLE_NAMES, Vocab
from core.work import FREE, Work

_CHUNK_VALUES = 1 << 16  # floats formatted by one call of Arrow's writer
_PYTHON_CHUNK_VALUES = 1 << 13  # the fallback holds the interpreter's lock while it formats: small chunks


def vectors_tsv(weight: torch.Tensor, work: Work = FREE) -> bytes:
    """``W`` (V, E) as vectors.tsv: V lines of E tab-separated floats, no header, each the shortest
    text that reads back as the same float32, formatted without the interpreter's lock
    (core/float_text.py; a table Arrow would write too long: numpy's shortest ``repr``, in Python).

    >>> vectors_tsv(torch.tensor([[0.1, -2.0], [1e-30, 0.0]])).decode()
    '0.1\\t-2\\n1e-30\\t0\\n'
    """
    w = weight.detach().to(torch.float32).cpu().numpy()  # (V, E)
    fast = arrow_ok(w)
    rows_per_chunk = max(1, (_CHUNK_VALUES if fast else _PYTHON_CHUNK_VALUES) // max(1, w.shape[1]))
    out = io.BytesIO()  # each chunk is written as it is made: the file is the only large thing held
    for start in range(0, w.shape[0], rows_per_chunk):
        block = w[start:start + rows_per_chunk]  # (rows, E)
        if fast:
            out.write(arrow_rows(list(np.ascontiguousarray(block.T)), [f"e{j}" for j in range(w.shape[1])], delimiter="\t"))
        else:
            out.write("".join("\t".join(row) + "\n" for row in block.astype(np.str_).tolist()).encode("utf-8"))
        work.checkpoint()  # between chunks: the job may have to stop (core/work.py)
    return out.getvalue()


def vectors_size_bound(v: int, e: int) -> int:
    """An upper bound of vectors.tsv's size in bytes: every float at its longest, and its tab or line end."""
    return v * e * (MAX_FLOAT_CHARS + 1)


def token_classes(vocab: Vocab, batch: Batch, labels, classes) -> list[str]:
    """For each id, the class whose labelled sentences look it up most often, or '' (a tie, or never).

    Counts what the model is trained on: the ids of each labelled sentence up to its length
    (after truncation to a fixed T; a word missing from the vocabulary counts for <UNK>),
    never the padding.
    """
    n_classes = len(classes)
    label = torch.tensor([-1 if y is None else int(y) for y in labels], dtype=torch.long)  # (B,)
    keep = batch.mask & ((label >= 0) & (label < n_classes)).unsqueeze(1)  # (B, T)
    if n_classes == 0 or not bool(keep.any()):
        return [""] * vocab.size
    pairs = label.unsqueeze(1).expand_as(batch.ids)[keep] * vocab.size + batch.ids[keep]  # (N,)
    counts = torch.bincount(pairs, minlength=n_classes * vocab.size).view(n_classes, vocab.size)  # (C, V)
    best = counts.max(dim=0).values  # (V,)
    winners = (counts == best).sum(dim=0)  # (V,) how many classes reach the best count
    top = counts.argmax(dim=0)  # (V,)
    return [to_cell(_field(classes[c])) if b > 0 and w == 1 else ""
            for c, b, w in zip(top.tolist(), best.tolist(), winners.tolist())]


def metadata_tsv(vocab: Vocab, batch: Batch, labels, classes) -> bytes:
    """metadata.tsv: a header, then ``token, id, role, class`` for every id in order (see the module's example).
    Tokens and class names are text cells a spreadsheet never runs (core/sheet_cells.py)."""
    lines = ["token\tid\trole\tclass"]
    for (token, i, role), cls in zip(vocab.rows(), token_classes(vocab, batch, labels, classes)):
        lines.append(f"{to_cell(_field(token))}\t{i}\t{ROLE_NAMES[role]}\t{cls}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _field(text: str) -> str:
    """A TSV field: tabs and line breaks would split it, so they become spaces (tokens never hold them)."""
    return " ".join(str(text).split()) if any(ch in str(text) for ch in "\t\r\n") else str(text)
