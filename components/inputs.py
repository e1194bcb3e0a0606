"""The learner's inputs: the vocabulary table and the sentences text area.

Each returns what the learner typed (never thrown away) and leaves validation to core; the
caller shows the problems and keeps the last valid state driving the page. The widgets' keys and
callbacks are the caller's (session.Keys, and the session's callbacks: session/editor.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd
import streamlit as st

from components.i18n import md, problem_text, t
from core import limits
from core.problems import Problem


INDEX_WIDTH = 44  # px of the row-number column (the e2e tests click cells by position)
ID_CHARS = 32  # an id cell's text at most (session/editor.py refuses a longer one sent by a script)


EDITOR_MAX_ROWS = 2_000  # above this, the table shows a window of rows, never all of them
EDITOR_WINDOW = 200  # rows in that window


@dataclass(frozen=True)
class VocabEdit:
    """What the vocabulary table holds now: the edited rows shown, and where they sit in the whole table."""

    shown: pd.DataFrame  # the editor's rows with the learner's edits applied (Streamlit applies them)
    start: int | None = None  # window mode: position of shown's first row in the whole table; None: all rows
    refused: Problem | None = None  # a pending edit too large to apply, dropped before the editor read it

    def whole(self, base: pd.DataFrame) -> pd.DataFrame:
        """The whole edited table: the window's edits in place, the rows outside it as they are, each
        row keeping its number (the index, the table's # column)."""
        if self.start is None:
            return self.shown
        end = self.start + EDITOR_WINDOW
        return pd.concat([base.iloc[:self.start], self.shown, base.iloc[end:]])


@dataclass(frozen=True)
class Window:
    """A large table's window (above EDITOR_MAX_ROWS rows): where it starts and its navigation's widgets.

    ``first`` is its first row, counted from 1: the caller sets the start box's state to it before
    the table is drawn. ``locked`` (an edit in the window has a problem) disables the navigation.
    ``on_find``: the find box's callback (it moves the window so the token is its first row).
    """

    first: int
    locked: bool
    start_key: str
    find_key: str
    on_find: Callable[[], None]


def windowed(rows: int) -> bool:
    """Does a table of ``rows`` rows show a window of them (`Window`) rather than all of them?"""
    return rows > EDITOR_MAX_ROWS


def window_first(rows: int, asked: object, hold: int | None = None) -> int:
    """The window's first row (from 1) for a table of ``rows`` rows: the one ``asked`` for (whatever
    a script put there, a row that exists), or, while an unapplied edit sits in the window drawn at
    position ``hold``, that window's (Streamlit would drop the edit with the old window's rows)."""
    last_first = max(1, rows - EDITOR_WINDOW + 1)
    try:
        first = int(asked or 1)
    except (TypeError, ValueError, OverflowError):
        first = 1
    if hold is not None:
        first = hold + 1
    return min(max(1, first), last_first)


def vocab_editor(lang: str, base: pd.DataFrame, key: str, window: Window | None = None,
                 refuse: Callable[[int], Problem | None] | None = None, problems_prefix: str | None = None,
                 draw_grid: Callable[[], bool] = lambda: True, turn: int = 0) -> VocabEdit:
    """The editable (token, id, role) table under ``key``; rows can be added and deleted.

    ``draw_grid()``, asked once the pending edit is checked, says whether the grid itself is drawn: the
    caller leaves it out of a folded box that holds no edit (it is most of what a browser does to
    open the page), and draws it again from the same base when the box opens.

    Above EDITOR_MAX_ROWS rows only a window of EDITOR_WINDOW rows is sent to the browser (a 100k-row
    table was megabytes per rerun); the learner moves it by first row or by finding a token
    (``window``: where it starts, and its widgets). ``refuse(shown_rows)``, called before the
    editor applies its pending edit, drops an edit too large to apply and returns why (shown
    above the table: `show_problems` with ``problems_prefix``), or None. ``turn`` grows each time the
    table is put back as it was before an edit (an undo), whose edit the browser's grid still holds.
    """
    st.markdown(f"**{t(lang, 'vocab.title')}**")
    st.caption(t(lang, "vocab.help", max=limits.MAX_VOCAB))
    start = None
    shown = base
    if window is not None:
        start = _window_nav(lang, base, window)
        shown = base.iloc[start:start + EDITOR_WINDOW]
    refused = refuse(len(shown)) if refuse is not None else None
    if refused is not None:
        show_problems(lang, "err.vocab_title", [refused], key_prefix=problems_prefix)
    if refused is None and not draw_grid():
        return VocabEdit(shown, start, None)
    edited = st.data_editor(
        shown, key=key, num_rows="dynamic", hide_index=False, width="stretch",
        # A different label gives the editor a new identity, so the browser drops the rows it holds
        # instead of sending them again with every later rerun: for the run that refused an edit, and
        # from an undo on (its turn's label, one of two that both name the table, holds until the next).
        alt=t(lang, "vocab.alt_refused" if refused is not None else ("vocab.title", "vocab.alt_table")[turn % 2]),
        height=min(420, 38 + 35 * (len(shown) + 1)),
        placeholder=" ",  # an empty cell (a new row's) shows blank, not "None" ("" is the proto default: unset)
        column_config={
            "_index": st.column_config.NumberColumn("#", width=INDEX_WIDTH, help=t(lang, "vocab.col.row_help")),
            "token": st.column_config.TextColumn(t(lang, "vocab.col.token"), max_chars=limits.MAX_TOKEN_CHARS,
                                                 help=t(lang, "help.vocab_token")),
            # Text, not a number column: what is typed reaches the vocabulary's checks exactly ("2.5",
            # "abc", "1e21"), is kept in its cell while it is wrong, and is never cast to int64.
            "id": st.column_config.TextColumn(t(lang, "vocab.col.id"), max_chars=ID_CHARS, help=t(lang, "help.vocab_id")),
            "role": st.column_config.SelectboxColumn(t(lang, "vocab.col.role"), options=["normal", "unk", "pad"],
                                                     default="normal", format_func=lambda r: t(lang, f"vocab.role.{r}"),
                                                     help=t(lang, "vocab.col.role_help")),
        },
    )
    return VocabEdit(edited, start, refused)


def _window_nav(lang: str, base: pd.DataFrame, window: Window) -> int:
    """The window's navigation (first row, find a token); returns the window's first position."""
    v, first, locked = len(base), window.first, window.locked
    last_first = max(1, v - EDITOR_WINDOW + 1)
    st.caption(t(lang, "vocab.window", v=v, first=first, last=min(v, first + EDITOR_WINDOW - 1), n=EDITOR_WINDOW))
    left, right = st.columns(2)
    left.number_input(t(lang, "vocab.window_start"), key=window.start_key, min_value=1, max_value=last_first,
                      step=EDITOR_WINDOW, disabled=locked, help=t(lang, "help.vocab_start", n=EDITOR_WINDOW))
    found = right.text_input(t(lang, "vocab.window_find"), key=window.find_key, disabled=locked,
                             help=t(lang, "vocab.window_find_help"), on_change=window.on_find)
    if locked:
        st.caption(t(lang, "vocab.window_locked"))
    elif found and not (base["token"] == found).any():
        st.caption(md(lang, "vocab.window_not_found", token=found))
    return first - 1


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


def sentences_area(lang: str, classes: tuple[str, ...], key: str, example: tuple[str, ...] | None = None) -> str:
    """One sentence per line, tokens split on whitespace, optional ' | label'; below it, the classes
    the labels define (``classes``). ``example``: the example's classes, which a label may name by number."""
    text = st.text_area(t(lang, "sent.title"), key=key, height=180,
                        help=md(lang, "sent.help", classes=" / ".join(classes if example is None else example),
                                classes_max=limits.MAX_CLASSES, max=limits.MAX_SENTENCES))
    st.caption(md(lang, "sent.classes", n=len(classes), classes=" · ".join(classes)))
    return text


def show_notices(lang: str, notices: list[tuple[str, dict]]) -> None:
    """What is worth telling the learner once (a refit, a restored work): each (string key, params)
    as an info box; the list is emptied."""
    for key, params in notices:
        st.info(md(lang, key, **params), icon=":material/info:")
    notices.clear()


def restart_undo(lang: str, steps: int, key: str, on_click: Callable[[], None]) -> None:
    """The restart an edit made, beside a button (``key``) that puts back the inputs and the ``steps``
    steps of training it replaced: ``on_click`` is the button's callback."""
    row = st.container(horizontal=True, vertical_alignment="center", wrap=False)
    row.info(md(lang, "notice.restarted_undo", steps=steps), icon=":material/restart_alt:")
    row.button(t(lang, "notice.undo"), key=key, icon=":material/undo:", on_click=on_click,
               help=t(lang, "notice.undo_help", steps=steps))


def show_problems(lang: str, where: str, problems: list[Problem], limit: int = 8, *, key_prefix: str,
                  kept: str = "err.kept") -> None:
    """One error box listing what is wrong and how to fix it, closed by ``kept``: what the page kept
    (what was typed, or for a refused file, everything as it was).

    Its container is keyed ``key_prefix`` + the kind (session.Keys.PROBLEMS_PREFIX: "problems_vocab_title"
    for "err.vocab_title", …): tests find it without matching text."""
    if not problems:
        return
    lines = [f"- {problem_text(lang, p)}" for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"- {t(lang, 'err.more', n=len(problems) - limit)}")
    st.container(key=key_prefix + where.removeprefix("err.")).error(f"**{t(lang, where)}**\n\n" + "\n".join(lines) + f"\n\n{t(lang, kept)}", icon=":material/error:")
