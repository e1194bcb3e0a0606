"""Tables of float32 as text, formatted without the interpreter's lock (W as CSV, vectors.tsv).

Formatting tens of millions of floats in Python (``%`` or numpy's ``astype(str)``) holds the
interpreter's lock the whole time: every other learner's script on the server waits. Arrow's CSV
writer formats in C++ and lets go of the lock, so a class's Steps go on on the other core while a
100,000 × 300 file is built (bench/RESULTS.md, bench_limits).

Arrow writes each float32 in its shortest form that reads back as the same float32 (``0.1``,
``-0``, ``1e-45``), in decimals between 1e-6 and 1e21: at most MAX_FLOAT_CHARS characters below
LONG_DECIMALS, where its integer part would take up to 21 digits. `arrow_ok` says whether a table
stays within that; the callers write the others in Python (``%.9g``, 15 characters at most).

    >>> bytes(arrow_rows([np.array([0.1, -0.0], np.float32)], ["e0"], delimiter="\\t")).decode()
    '0.1\\n-0\\n'
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

LONG_DECIMALS = 1e9  # from here to 1e21 Arrow writes every integer digit
MAX_FLOAT_CHARS = 17  # Arrow's longest below LONG_DECIMALS: "-0.00000123456789"


def arrow_ok(w: np.ndarray) -> bool:
    """Whether Arrow writes every value of ``w`` within MAX_FLOAT_CHARS (finite, |x| < LONG_DECIMALS)."""
    return not w.size or bool(np.isfinite(w).all() and float(np.abs(w).max()) < LONG_DECIMALS)


def arrow_rows(columns: list, names: list[str], delimiter: str = ",") -> pa.Buffer:
    """The rows of ``columns`` (arrays or lists of equal length: ints, strings, float32), no header,
    text cells quoted where Arrow's "needed" style quotes them (every string)."""
    table = pa.table([c if isinstance(c, pa.Array) else pa.array(c) for c in columns], names=names)
    sink = pa.BufferOutputStream()
    pacsv.write_csv(table, sink, write_options=pacsv.WriteOptions(include_header=False, delimiter=delimiter,
                                                                  quoting_style="needed"))
    return sink.getvalue()
