"""The vocabulary editor's widget state: its pending edit (refused unread when too large) and the
window a large table shows (components/inputs.py draws them)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import pandas as pd
import streamlit as st

from core import limits
from core.problems import Problem
from session.keys import Keys

# Streamlit applies an editor's added rows one by one, at a cost that grows far faster than their
# number (bench/RESULTS.md): a pending edit with more is refused unread.
MAX_ADDED_ROWS = 500
EDIT_FIELDS = ("edited_rows", "added_rows", "deleted_rows")
# The table's columns and the longest text each cell may hold (the browser's editor takes no more:
# components/inputs.py gives the same bounds as max_chars). "_index" is the row number: Streamlit
# ignores it in an added row of a table numbered by a range, and it is never edited in place.
CELL_CHARS = MappingProxyType({"token": limits.MAX_TOKEN_CHARS, "id": 32, "role": 16})  # id: components.inputs.ID_CHARS
ADDED_CELL_CHARS = MappingProxyType({**CELL_CHARS, "_index": 32})


def refuse_edit(shown_rows: int) -> Problem | None:
    """Drop the editor's pending edit from session state, unapplied, when it is too large or does
    not fit the table; say why.

    Called before ``st.data_editor`` applies it, with the number of rows the table shows: Streamlit
    and pandas never see an edit of a row or column the table does not have, a deletion outside
    it, or a value that is not a short scalar (`edit_problem`), which they would fail on at every
    later run of the session.
    """
    try:
        pending = st.session_state.get(Keys.VOCAB)
    except Exception:  # a payload Streamlit's own deserializer cannot read (not JSON, wrong shape)
        pending, problem = None, Problem("vocab_edit_invalid")
    else:
        if pending is None:
            return None
        problem = edit_problem(pending, shown_rows)
    if problem is not None:
        try:
            st.session_state.pop(Keys.VOCAB, None)
        except Exception:  # already gone, or unreadable even to delete: the editor starts clean anyway
            pass
    return problem


def edit_size_problem(pending: object, shown_rows: int) -> Problem | None:
    """The problem with an editor edit of these sizes, or None: constant time, whatever the edit holds."""
    if not hasattr(pending, "get"):
        return Problem("vocab_edit_invalid")
    added, edited, deleted = (pending.get(k) or [] for k in ("added_rows", "edited_rows", "deleted_rows"))
    if not all(hasattr(x, "__len__") for x in (added, edited, deleted)):
        return Problem("vocab_edit_invalid")
    if len(added) > MAX_ADDED_ROWS:
        return Problem("vocab_edit_too_many_rows", {"n": len(added), "max": MAX_ADDED_ROWS})
    if len(edited) > shown_rows + len(added) or len(deleted) > shown_rows:
        return Problem("vocab_edit_invalid")
    return None


def edit_problem(pending: object, shown_rows: int) -> Problem | None:
    """The problem with an editor's pending edit of a table of ``shown_rows`` rows, or None.

    Sizes first (`edit_size_problem`, constant time), then every entry, each in constant time:
    edited rows and deleted rows are positions inside the table (added rows are edited in
    ``added_rows``, not by position), cells name the table's columns, and every value is None, a
    number, or text no longer than its column takes (so an id is bounded as text: 2^63 or 1e300
    reach the vocabulary's checks as text, never pandas' integer column).
    """
    problem = edit_size_problem(pending, shown_rows)
    if problem is not None:
        return problem
    invalid = Problem("vocab_edit_invalid")
    edited, added, deleted = pending.get("edited_rows") or {}, pending.get("added_rows") or [], pending.get("deleted_rows") or []
    if not isinstance(edited, dict) or not isinstance(added, list) or not isinstance(deleted, list):
        return invalid
    if not all(_position(i, shown_rows, key=False) is not None for i in deleted) or len(set(deleted)) != len(deleted):
        return invalid
    for row, cells in edited.items():
        if _position(row, shown_rows) is None or not _cells_fit(cells, CELL_CHARS):
            return invalid
    if not all(_cells_fit(cells, ADDED_CELL_CHARS) for cells in added):
        return invalid
    return None


def _position(row: object, shown_rows: int, key: bool = True) -> int | None:
    """A row position as the editor's state holds it (an int, or as a ``key`` of edited rows also its
    digits, as JSON writes keys), inside the table."""
    if isinstance(row, bool):
        return None
    if key and isinstance(row, str) and row.isascii() and row.isdigit() and len(row) <= 9:
        row = int(row)
    return row if isinstance(row, int) and 0 <= row < shown_rows else None


def _cells_fit(cells: object, columns: Mapping[str, int]) -> bool:
    """Is ``cells`` a mapping of the table's columns to None, a number, or text within the column's length?"""
    if not isinstance(cells, dict) or len(cells) > len(columns):
        return False
    for column, value in cells.items():
        if column not in columns:
            return False
        if value is None or isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            if isinstance(value, int) and value.bit_length() > 128:  # its text would be longer than any id
                return False
            continue
        if not isinstance(value, str) or len(value) > columns[column]:
            return False
    return True


def edit_pending() -> bool:
    """Does the editor's state hold an edit not yet folded into the table?"""
    try:
        pending = st.session_state.get(Keys.VOCAB)
        return bool(pending) and any(pending.get(k) for k in EDIT_FIELDS)
    except Exception:  # unreadable: refuse_edit drops it and says so
        return False


def find_in_editor(frame: pd.DataFrame) -> None:
    """Callback of the window's find box: move the window so the token is its first row."""
    token = st.session_state.get(Keys.VOCAB_FIND, "")
    hits = (frame["token"] == token).to_numpy().nonzero()[0]
    if len(hits):
        st.session_state[Keys.VOCAB_START] = int(hits[0]) + 1
