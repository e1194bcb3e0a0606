"""What a download costs: estimated before it is built, refused above a size.

W as CSV at 100,000 × 300 is hundreds of megabytes of text and many seconds of a core, and two
clicks used to take several gigabytes of the server (bench/RESULTS.md). So each file built on click is estimated first (`export_cost`: an upper
bound of its size, and CPU seconds per float measured by bench/bench_exports.py), refused above
``limits.MAX_EXPORT_BYTES`` with a message the page shows before anyone clicks
(`export_problem`), and otherwise built as one job of the server's budget (server/download_jobs.py):
a lane, its bytes set aside in the memory admission while it is built, stopped between chunks
when its session ends or the server stops.
"""

from __future__ import annotations

from types import MappingProxyType

from core import limits
from core.problems import Problem
from core.projector_tsv import vectors_size_bound
from core.weights_csv import csv_size_bound

SECONDS_PER_FLOAT = MappingProxyType({"w_csv": 0.7e-6, "projector_vectors": 0.7e-6})  # bench/bench_exports.py, one core
HELD_FACTOR = 1.25  # the file while it grows (BytesIO over-allocates by an eighth) and one chunk


def token_bytes(tokens) -> int:
    """The tokens' UTF-8 bytes, for `size_bound`."""
    return sum(len(token.encode("utf-8")) for token in tokens)


def size_bound(kind: str, v: int, e: int, token_bytes: int) -> int:
    """An upper bound of the file's size in bytes (0 for the small files: state, script, notebook)."""
    if kind == "w_csv":
        return csv_size_bound(v, e, token_bytes)
    if kind == "projector_vectors":
        return vectors_size_bound(v, e)
    return 0


def export_cost(kind: str, v: int, e: int, token_bytes: int) -> tuple[float, int]:
    """(estimated CPU seconds, bytes held at the peak) of building a file of W (V × E)."""
    return SECONDS_PER_FLOAT.get(kind, 0.0) * v * e, int(HELD_FACTOR * size_bound(kind, v, e, token_bytes))


def export_problem(kind: str, v: int, e: int, token_bytes: int) -> Problem | None:
    """``download_too_large`` when the file could be over the size a download may have."""
    size = size_bound(kind, v, e, token_bytes)
    if size <= limits.MAX_EXPORT_BYTES:
        return None
    return Problem("download_too_large", {"mb": -(-size // 10**6), "max_mb": limits.MAX_EXPORT_BYTES // 10**6})
