"""Text cells that a spreadsheet opens as text, and that read back exactly.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula (and some
read a leading tab or carriage return the same way): a token ``=HYPERLINK("http://…")`` in a
shared vocabulary would run in every student's spreadsheet that opens W as CSV or the
Projector's metadata.tsv. Such a cell is written with a leading ``'`` (the mark spreadsheets
themselves use for "this is text"), and so is a cell that already starts with ``'``, so that
removing one leading ``'`` always gives the original back:

    >>> to_cell("=1+1"), to_cell("'quoted"), to_cell("영화")
    ("'=1+1", "''quoted", '영화')
    >>> from_cell(to_cell("-ing")) == "-ing"
    True

`read_weights_csv` and `read_metadata_tsv` read the app's two files back to exactly what was
written (README, "Reading the files back").
"""

from __future__ import annotations

import csv
import io

import numpy as np

ESCAPED_FIRST = ("=", "+", "-", "@", "\t", "\r", "\n", "'")  # a cell starting with one of these gets a "'"


def to_cell(text: str) -> str:
    """``text`` as a cell no spreadsheet runs as a formula; `from_cell` undoes it."""
    text = str(text)
    return "'" + text if text.startswith(ESCAPED_FIRST) else text


def from_cell(cell: str) -> str:
    """The text `to_cell` was given."""
    return cell[1:] if cell.startswith("'") else cell


def read_weights_csv(data: bytes) -> tuple[list[tuple[int, str, str]], np.ndarray]:
    """W as CSV (core/weights_csv.py) read back: the (id, token, role) rows and W (V, E) at float32,
    bit for bit what was written."""
    reader = csv.reader(io.StringIO(data.decode("utf-8-sig")))
    header = next(reader)
    rows, values = [], []
    for fields in reader:
        rows.append((int(fields[0]), from_cell(fields[1]), fields[2]))
        values.append(fields[3:])
    return rows, np.array(values, dtype=np.float32).reshape(len(rows), len(header) - 3)


def read_metadata_tsv(data: bytes) -> list[list[str]]:
    """metadata.tsv (core/projector_tsv.py) read back: the header, then token, id, role, class as written."""
    lines = data.decode("utf-8").split("\n")
    table = [line.split("\t") for line in lines if line]
    return table[:1] + [[from_cell(token), i, role, from_cell(cls)] for token, i, role, cls in table[1:]]
