"""The learner's inputs: the vocabulary table and the sentences text area.

Each returns what the learner typed (never thrown away) and leaves validation to core; the
caller shows the problems and keeps the last valid state driving the page.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from components.i18n import md, problem_text, t
from core import limits
from core.problems import Problem
import session
from session import Keys


INDEX_WIDTH = 44  # px of the row-number column (the e2e tests click cells by position)


EDITOR_MAX_ROWS = 2_000  # above this, the table shows a window of rows, never all of them
EDITOR_WINDOW = 200  # rows in that window
# Streamlit applies an editor's added rows one by one, at a cost that grows far faster than their
# number (bench/RESULTS.md): a pending edit with more is refused unread.
MAX_ADDED_ROWS = 500


@dataclass(frozen=True)
class VocabEdit:
    """What the vocabulary table holds now: the edited rows shown, and where they sit in the whole table."""

    shown: pd.DataFrame  # the editor's rows with the learner's edits applied (Streamlit applies them)
    start: int | None = None  # window mode: position of shown's first row in the whole table; None: all rows
    refused: Problem | None = None  # a pending edit too large to apply, dropped before the editor read it

    def whole(self, base: pd.DataFrame) -> pd.DataFrame:
        """The whole edited table: the window's edits in place, the rows outside it as they are."""
        if self.start is None:
            return self.shown
        end = self.start + EDITOR_WINDOW
        return pd.concat([base.iloc[:self.start], self.shown, base.iloc[end:]], ignore_index=True)


def vocab_editor(lang: str, base: pd.DataFrame, locked: bool = False, drawn_start: int | None = None) -> VocabEdit:
    """The editable (token, id, role) table; rows can be added and deleted.

    Above EDITOR_MAX_ROWS rows only a window of EDITOR_WINDOW rows is sent to the browser (a 100k-row
    table was megabytes per rerun); the learner moves it by first row or by finding a token. ``locked``
    (an edit in the window has a problem) keeps the window where it is, so nothing typed is dropped.
    ``drawn_start`` (the last run's `VocabEdit.start`) is where it is: while the table holds an
    unapplied edit (``locked``, or one arriving in this very message), a request to move the window
    is not followed, since Streamlit would drop the edit with the old window's rows.
    """
    st.markdown(f"**{t(lang, 'vocab.title')}**")
    st.caption(t(lang, "vocab.help", max=limits.MAX_VOCAB))
    start = None
    shown = base
    if len(base) > EDITOR_MAX_ROWS:
        hold = drawn_start if drawn_start is not None and (locked or _edit_pending()) else None
        start = _window_start(lang, base, locked, hold)
        shown = base.iloc[start:start + EDITOR_WINDOW]
    refused = refuse_large_edit(len(shown))
    if refused is not None:
        show_problems(lang, "err.vocab_title", [refused])
    edited = st.data_editor(
        shown, key=Keys.VOCAB, num_rows="dynamic", hide_index=False, width="stretch",
        # A different label for the run that refused an edit gives the editor a new identity, so the
        # browser drops the refused rows instead of sending them again with every later rerun.
        alt=t(lang, "vocab.title" if refused is None else "vocab.alt_refused"),
        height=min(420, 38 + 35 * (len(shown) + 1)),
        column_config={
            "_index": st.column_config.NumberColumn("#", width=INDEX_WIDTH, help=t(lang, "vocab.col.row_help")),
            "token": st.column_config.TextColumn(t(lang, "vocab.col.token"), max_chars=limits.MAX_TOKEN_CHARS,
                                                 help=t(lang, "help.vocab_token")),
            "id": st.column_config.NumberColumn(t(lang, "vocab.col.id"), step=1, format="%d", help=t(lang, "help.vocab_id")),
            "role": st.column_config.SelectboxColumn(t(lang, "vocab.col.role"), options=["normal", "unk", "pad"],
                                                     default="normal", format_func=lambda r: t(lang, f"vocab.role.{r}"),
                                                     help=t(lang, "vocab.col.role_help")),
        },
    )
    return VocabEdit(edited, start, refused)


def refuse_large_edit(shown_rows: int) -> Problem | None:
    """Drop the editor's pending edit from session state, unapplied, when it is too large; say why.

    Reads only the sizes of the pending edit (``{"edited_rows", "added_rows", "deleted_rows"}``)
    before ``st.data_editor`` applies it: more than MAX_ADDED_ROWS added rows, edits or deletions
    of more rows than the table shows, or a payload that is not an editor's edit at all.
    """
    try:
        pending = session.get(Keys.VOCAB)
    except Exception:  # a payload Streamlit's own deserializer cannot read (not JSON, wrong shape)
        pending, problem = None, Problem("vocab_edit_invalid")
    else:
        if pending is None:
            return None
        problem = edit_size_problem(pending, shown_rows)
    if problem is not None:
        try:
            session.forget(Keys.VOCAB)
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


def _edit_pending() -> bool:
    """Does the editor's state hold an edit not yet folded into the table?"""
    try:
        pending = session.get(Keys.VOCAB)
        return bool(pending) and any(pending.get(k) for k in ("edited_rows", "added_rows", "deleted_rows"))
    except Exception:  # unreadable: refuse_large_edit drops it and says so
        return False


def _window_start(lang: str, base: pd.DataFrame, locked: bool, hold: int | None = None) -> int:
    """The window's navigation (first row, find a token); returns the window's first position."""
    v = len(base)
    last_first = max(1, v - EDITOR_WINDOW + 1)
    try:  # whatever a script put there, the window starts on a row that exists
        first = int(session.get(Keys.VOCAB_START) or 1)
    except (TypeError, ValueError, OverflowError):
        first = 1
    if hold is not None:  # an unapplied edit sits in the window drawn at ``hold``: it stays there
        first = hold + 1
    first = min(max(1, first), last_first)
    session.set_value(Keys.VOCAB_START, first)
    st.caption(t(lang, "vocab.window", v=v, first=first, last=min(v, first + EDITOR_WINDOW - 1), n=EDITOR_WINDOW))
    left, right = st.columns(2)
    left.number_input(t(lang, "vocab.window_start"), key=Keys.VOCAB_START, min_value=1, max_value=last_first,
                      step=EDITOR_WINDOW, disabled=locked, help=t(lang, "help.vocab_start", n=EDITOR_WINDOW))
    found = right.text_input(t(lang, "vocab.window_find"), key=Keys.VOCAB_FIND, disabled=locked,
                             help=t(lang, "vocab.window_find_help"),
                             on_change=_find_token, args=(base,))
    if locked:
        st.caption(t(lang, "vocab.window_locked"))
    elif found and not (base["token"] == found).any():
        st.caption(md(lang, "vocab.window_not_found", token=found))
    return first - 1


def _find_token(base: pd.DataFrame) -> None:
    """Callback of the find box: move the window so the token is its first row."""
    token = session.get(Keys.VOCAB_FIND, "")
    hits = (base["token"] == token).to_numpy().nonzero()[0]
    if len(hits):
        session.set_value(Keys.VOCAB_START, int(hits[0]) + 1)


def token_list_loader(lang: str, text_key: str, file_key: str, button_key: str) -> str | Problem | None:
    """Paste or upload a token list (one token per line, `core.vocab.Vocab.from_token_list`'s convention).

    Returns the list's text when the button is pressed (the upload if there is one, else the pasted
    text), a Problem for an upload too large or not UTF-8, or None. The caller builds the vocabulary
    with ``Vocab.from_token_list`` and shows its problems; the keys are the caller's (session.Keys).
    """
    with st.expander(t(lang, "vocab.list_title")):
        st.caption(t(lang, "vocab.list_help", max=limits.MAX_VOCAB))
        upload = st.file_uploader(t(lang, "vocab.list_file"), type=["txt", "tsv", "csv"], key=file_key,
                                  help=t(lang, "help.token_list_file"))
        pasted = st.text_area(t(lang, "vocab.list_paste"), key=text_key, height=120, max_chars=limits.MAX_TOKEN_LIST_CHARS,
                              help=t(lang, "help.token_list_paste"))
        if not st.button(t(lang, "vocab.list_load"), key=button_key, help=t(lang, "help.token_list_load")):
            return None
    if upload is None:
        return pasted
    if upload.size > 4 * limits.MAX_TOKEN_LIST_CHARS:  # UTF-8 has at most 4 bytes a character: bound before reading
        return Problem("list_too_long", {"n": upload.size, "max": limits.MAX_TOKEN_LIST_CHARS})
    try:
        return upload.getvalue().decode("utf-8-sig")
    except UnicodeDecodeError:
        return Problem("list_not_text")


def sentences_area(lang: str, classes: tuple[str, ...]) -> str:
    """One sentence per line, tokens split on whitespace, optional ' | label'."""
    return st.text_area(t(lang, "sent.title"), key=Keys.SENTENCES, height=180,
                        help=md(lang, "sent.help", classes=" / ".join(classes), max=limits.MAX_SENTENCES))


def show_problems(lang: str, where: str, problems: list[Problem], limit: int = 8) -> None:
    """One error box listing what is wrong and how to fix it; the page keeps the last valid state."""
    if not problems:
        return
    lines = [f"- {problem_text(lang, p)}" for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"- {t(lang, 'err.more', n=len(problems) - limit)}")
    # A keyed container per kind of problem ("problems_vocab_title", …): tests find it without matching text.
    st.container(key=Keys.PROBLEMS_PREFIX + where.removeprefix("err.")).error(f"**{t(lang, where)}**\n\n" + "\n".join(lines) + f"\n\n{t(lang, 'err.kept')}", icon=":material/error:")
