"""The vocabulary editor's widget state: its pending edit (refused unread when too large) and the
window a large table shows (components/inputs.py draws them)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.problems import Problem
from session.keys import Keys

# Streamlit applies an editor's added rows one by one, at a cost that grows far faster than their
# number (bench/RESULTS.md): a pending edit with more is refused unread.
MAX_ADDED_ROWS = 500
EDIT_FIELDS = ("edited_rows", "added_rows", "deleted_rows")


def refuse_large_edit(shown_rows: int) -> Problem | None:
    """Drop the editor's pending edit from session state, unapplied, when it is too large; say why.

    Called before ``st.data_editor`` applies it, with the number of rows the table shows. Reads only
    the sizes of the pending edit (``{"edited_rows", "added_rows", "deleted_rows"}``): more than
    MAX_ADDED_ROWS added rows, edits or deletions of more rows than the table shows, or a payload
    that is not an editor's edit at all.
    """
    try:
        pending = st.session_state.get(Keys.VOCAB)
    except Exception:  # a payload Streamlit's own deserializer cannot read (not JSON, wrong shape)
        pending, problem = None, Problem("vocab_edit_invalid")
    else:
        if pending is None:
            return None
        problem = edit_size_problem(pending, shown_rows)
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


def edit_pending() -> bool:
    """Does the editor's state hold an edit not yet folded into the table?"""
    try:
        pending = st.session_state.get(Keys.VOCAB)
        return bool(pending) and any(pending.get(k) for k in EDIT_FIELDS)
    except Exception:  # unreadable: refuse_large_edit drops it and says so
        return False


def find_in_editor(frame: pd.DataFrame) -> None:
    """Callback of the window's find box: move the window so the token is its first row."""
    token = st.session_state.get(Keys.VOCAB_FIND, "")
    hits = (frame["token"] == token).to_numpy().nonzero()[0]
    if len(hits):
        st.session_state[Keys.VOCAB_START] = int(hits[0]) + 1
