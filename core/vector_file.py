"""Reading an untrusted file of word vectors: word2vec text, or the Embedding Projector's pair.

Two formats, as other tools write them:

- **word2vec text** (``.vec``/``.txt``, as fastText publishes it): one line per token, the token
  then its E numbers, separated by spaces; optionally a first line ``count dim``::

      2 3
      영화 0.1 -0.25 1e-3
      좋다 0.5 0 -1

- **The Embedding Projector's** ``vectors.tsv`` (E tab-separated numbers a line, no token) with
  ``metadata.tsv`` (the tokens, in the same order: one column without a header, or several under a
  header whose ``token`` column names them). This app writes that pair (core/projector_tsv.py), so
  a table trained on one example can be loaded into another; its ``role`` column, when present,
  marks the file's ``pad`` and ``unk`` rows, which then go to the vocabulary's PAD and UNK rows
  whatever they are called (special tokens are chosen by role, not by name).

A number is decimal text (``-0.25``, ``1e-3``, ``3``): ``nan``, ``inf``, ``1_0`` or hex are refused
on every line. The rows the vocabulary uses are then converted (the others are checked as text
only), and a finite number too large for float32 is refused too. A value is **Python's ``float``
of the text (the nearest double), cast to float32** (round to nearest even): what
``np.array(texts, np.float64).astype(np.float32)`` gives, and, for the shortest text of a float32
(what this app writes), that float32 exactly.

Untrusted input, bounded: at most `limits.MAX_IMPORT_BYTES` bytes in all (checked before anything
is read), UTF-8 (a NUL byte means binary, not text), at most `limits.MAX_EMBEDDING_DIM` numbers a
line (a line is split at most that far, so a line of a million columns costs no more than one of
513), one dimension for every line, no token twice, every number finite. Nothing is evaluated or
unpickled. Each problem is a `Problem` naming the file and the line (``err.vec_*`` in
``assets/strings/pretrained.json``); only the vectors of ``wanted`` tokens are kept.

    >>> f = read_vectors([("tiny.vec", b"2 3\\n\\xec\\x98\\x81\\xed\\x99\\x94 0.1 -0.25 1e-3\\nx 0 0 1\\n")], {"영화"})
    >>> f.dim, f.rows, f.vectors["영화"].dtype
    (3, 2, dtype('float32'))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Collection, Sequence

import numpy as np

from core import limits
from core.problems import Problem, require
from core.sheet_cells import from_cell  # a metadata.tsv cell as the app writes it, read back

NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"  # decimal text: no nan, inf, underscores or hex
_NUMBERS = MappingProxyType({sep: re.compile(rf"{NUMBER}(?:{sep}{NUMBER})*") for sep in (" ", "\t")})  # read-only
_NUMBER = re.compile(NUMBER)
_HEADER = re.compile(r"(\d{1,9}) (\d{1,9})")
SHOWN_CHARS = 20  # of a bad field, quoted in a message
CHECK_LINES = 2000  # lines read between two checkpoints: a fraction of a second of a large file


@dataclass(frozen=True)
class VectorFile:
    """What a vector file holds for a vocabulary: its dimension, how many vectors it has in all, and
    the float32 vector of each wanted token it has (by token; ``specials``: by role, from a
    metadata.tsv with a role column)."""

    dim: int
    rows: int
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # token → (E,) float32
    specials: dict[str, np.ndarray] = field(default_factory=dict)  # "pad"/"unk" → (E,) float32
    fmt: str = "word2vec"  # or "projector"


def read_vectors(files: Sequence[tuple[str, bytes]], wanted: Collection[str],
                 checkpoint: Callable[[], None] = lambda: None) -> VectorFile:
    """One word2vec text file, or vectors.tsv with metadata.tsv (by name: the one called
    ``*metadata*`` holds the tokens). Raises `InputError` naming the file and line of every refusal.
    ``checkpoint`` is called every `CHECK_LINES` lines (core/work.py: it raises `Cancelled` when
    the reading must stop)."""
    files = [(str(name)[:80], data) for name, data in files]
    if not files or len(files) > 2:
        require([Problem("vec_files", {"n": len(files)})])
    total = sum(len(data) for _, data in files)
    if total > limits.MAX_IMPORT_BYTES:
        require([Problem("vec_too_large", {"mb": f"{total / 1e6:.1f}", "max_mb": f"{limits.MAX_IMPORT_BYTES / 1e6:.0f}"})])
    texts = [(name, _text(name, data)) for name, data in files]
    if len(texts) == 1:
        name, text = texts[0]
        if "metadata" in name.lower():
            require([Problem("vec_pair_missing", {"file": name})])
        return _word2vec(name, text, wanted, checkpoint)
    meta = [t for t in texts if "metadata" in t[0].lower()]
    if len(meta) != 1:
        require([Problem("vec_pair_names", {"a": texts[0][0], "b": texts[1][0]})])
    vectors = next(t for t in texts if t is not meta[0])
    return _projector(vectors, meta[0], wanted, checkpoint)


def _text(name: str, data: bytes) -> str:
    """UTF-8 text (a BOM dropped); binary (a NUL byte) or bad UTF-8 refused naming the line."""
    nul = data.find(b"\x00")
    if nul >= 0:
        require([Problem("vec_binary", {"file": name, "line": data.count(b"\n", 0, nul) + 1})])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        require([Problem("vec_not_utf8", {"file": name, "line": data.count(b"\n", 0, e.start) + 1})])
    raise AssertionError("unreachable")


def _lines(text: str) -> list[tuple[int, str]]:
    """(line number from 1, line without its line end) of every non-blank line."""
    return [(no, line.rstrip("\r")) for no, line in enumerate(text.split("\n"), start=1) if line.strip()]


def _numbers(name: str, no: int, fields: list[str], sep: str, dim: int | None, convert: bool = True) -> np.ndarray | None:
    """The float32 values of one line's number fields (None unless ``convert``: a row no token of the
    vocabulary uses is checked as text only), or `InputError` naming the line (and column)."""
    if not fields:
        require([Problem("vec_columns", {"file": name, "line": no, "n": 0, "e": dim or "E"})])
    if len(fields) > limits.MAX_EMBEDDING_DIM:
        require([Problem("vec_too_wide", {"file": name, "line": no, "max": limits.MAX_EMBEDDING_DIM})])
    if dim is not None and len(fields) != dim:
        require([Problem("vec_columns", {"file": name, "line": no, "n": len(fields), "e": dim})])
    if not _NUMBERS[sep].fullmatch(sep.join(fields)):
        col, bad = next(((i, f) for i, f in enumerate(fields, start=1) if not _NUMBER.fullmatch(f)), (1, ""))
        code = "vec_not_finite" if bad.strip("+-").lower() in ("nan", "inf", "infinity") else "vec_number"
        require([Problem(code, {"file": name, "line": no, "column": col, "value": _shown(bad)})])
    if not convert:
        return None
    with np.errstate(over="ignore"):  # Python's float of each text, rounded to the nearest float32
        values = np.array([float(f) for f in fields], dtype=np.float64).astype(np.float32)
    if not np.isfinite(values).all():  # finite text beyond float32's range became inf
        col = int(np.argmin(np.isfinite(values))) + 1
        require([Problem("vec_not_finite", {"file": name, "line": no, "column": col, "value": _shown(fields[col - 1])})])
    return values


def _word2vec(name: str, text: str, wanted: Collection[str], checkpoint: Callable[[], None]) -> VectorFile:
    lines = _lines(text)
    if not lines:
        require([Problem("vec_empty", {"file": name})])
    dim = count = None
    header = _HEADER.fullmatch(lines[0][1].strip())
    if header:
        count, dim = int(header.group(1)), int(header.group(2))
        if not 1 <= dim <= limits.MAX_EMBEDDING_DIM:
            require([Problem("vec_header_dim", {"file": name, "line": lines[0][0], "e": dim,
                                                "max": limits.MAX_EMBEDDING_DIM})])
        lines = lines[1:]
    seen: dict[str, int] = {}
    out: dict[str, np.ndarray] = {}
    for k, (no, line) in enumerate(lines):
        if k % CHECK_LINES == 0:
            checkpoint()
        fields = line.split(maxsplit=limits.MAX_EMBEDDING_DIM + 1)  # bounded: a longer line is refused as such
        token = fields[0]
        if token in seen:
            require([Problem("vec_duplicate", {"file": name, "line": no, "first": seen[token], "token": _shown(token)})])
        seen[token] = no
        values = _numbers(name, no, fields[1:], " ", dim, convert=token in wanted)
        dim = len(fields) - 1 if dim is None else dim
        if values is not None:
            out[token] = values
    if count is not None and count != len(seen):
        require([Problem("vec_count", {"file": name, "count": count, "n": len(seen)})])
    if dim is None:
        require([Problem("vec_empty", {"file": name})])
    return VectorFile(dim, len(seen), out)


def _projector(vectors: tuple[str, str], meta: tuple[str, str], wanted: Collection[str],
               checkpoint: Callable[[], None]) -> VectorFile:
    """vectors.tsv rows ↔ metadata.tsv rows, in order; the header's ``token`` column (or the only
    column) names each row's token, its ``role`` column (if any) marks the PAD and UNK rows."""
    (vname, vtext), (mname, mtext) = vectors, meta
    rows = [(no, line.split("\t")) for no, line in _lines(mtext)]
    if not rows:
        require([Problem("vec_empty", {"file": mname})])
    head = [h.strip().lower() for h in rows[0][1]]
    if len(head) > 1:  # several columns: the first line is the header
        if "token" not in head:
            require([Problem("vec_meta_header", {"file": mname, "line": rows[0][0]})])
        col, role_col, rows = head.index("token"), head.index("role") if "role" in head else None, rows[1:]
    else:
        col, role_col = 0, None
    vec_lines = _lines(vtext)
    if len(vec_lines) != len(rows):
        require([Problem("vec_pair_rows", {"a": vname, "n": len(vec_lines), "b": mname, "m": len(rows)})])
    seen: dict[str, int] = {}
    out: dict[str, np.ndarray] = {}
    specials: dict[str, np.ndarray] = {}
    dim = None
    for k, ((no, line), (mno, cells)) in enumerate(zip(vec_lines, rows)):
        if k % CHECK_LINES == 0:
            checkpoint()
        if len(cells) <= max(col, role_col or 0):
            require([Problem("vec_meta_columns", {"file": mname, "line": mno})])
        token = from_cell(cells[col].strip())
        if not token:
            require([Problem("vec_meta_token", {"file": mname, "line": mno})])
        if token in seen:
            require([Problem("vec_duplicate", {"file": mname, "line": mno, "first": seen[token], "token": _shown(token)})])
        seen[token] = mno
        role = cells[role_col].strip() if role_col is not None else ""
        fields = line.strip("\t ").split("\t", limits.MAX_EMBEDDING_DIM + 1)
        values = _numbers(vname, no, fields, "\t", dim, convert=role in ("pad", "unk") or token in wanted)
        dim = len(fields) if dim is None else dim
        if role in ("pad", "unk"):
            specials[role] = values
        elif values is not None:
            out[token] = values
    return VectorFile(dim, len(seen), out, specials, "projector")


def _shown(text: str) -> str:
    """A field of an untrusted file, fit to quote inside a message: short and printable (the message's
    parameters are escaped for Markdown where they are shown: components.i18n.problem_text)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text[:SHOWN_CHARS])
