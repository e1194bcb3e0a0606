"""The learner's inputs: the vocabulary table and the sentences text area.

Each returns what the learner typed (never thrown away) and leaves validation to core; the
caller shows the problems and keeps the last valid state driving the page.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from components.i18n import problem_text, t
from core import limits
from core.problems import Problem
import session
from session import Keys


INDEX_WIDTH = 44  # px of the row-number column (the e2e tests click cells by position)


EDITOR_MAX_ROWS = 2_000  # above this, the table shows a window of rows, never all of them
EDITOR_WINDOW = 200  # rows in that window


@dataclass(frozen=True)
class VocabEdit:
    """What the vocabulary table holds now: the edited rows shown, and where they sit in the whole table."""

    shown: pd.DataFrame  # the editor's rows with the learner's edits applied (Streamlit applies them)
    start: int | None = None  # window mode: position of shown's first row in the whole table; None: all rows

    def whole(self, base: pd.DataFrame) -> pd.DataFrame:
        """The whole edited table: the window's edits in place, the rows outside it as they are."""
        if self.start is None:
            return self.shown
        end = self.start + EDITOR_WINDOW
        return pd.concat([base.iloc[:self.start], self.shown, base.iloc[end:]], ignore_index=True)


def vocab_editor(lang: str, base: pd.DataFrame, locked: bool = False) -> VocabEdit:
    """The editable (token, id, role) table; rows can be added and deleted.

    Above EDITOR_MAX_ROWS rows only a window of EDITOR_WINDOW rows is sent to the browser (a 100k-row
    table was 3.7 MB per rerun); the learner moves it by first row or by finding a token. ``locked``
    (an edit in the window has a problem) keeps the window where it is, so nothing typed is dropped.
    """
    st.markdown(f"**{t(lang, 'vocab.title')}**")
    st.caption(t(lang, "vocab.help", max=limits.MAX_VOCAB))
    start = None
    shown = base
    if len(base) > EDITOR_MAX_ROWS:
        start = _window_start(lang, base, locked)
        shown = base.iloc[start:start + EDITOR_WINDOW]
    edited = st.data_editor(
        shown, key=Keys.VOCAB, num_rows="dynamic", hide_index=False, width="stretch",
        height=min(420, 38 + 35 * (len(shown) + 1)),
        column_config={
            "_index": st.column_config.NumberColumn("#", width=INDEX_WIDTH, help=t(lang, "vocab.col.row_help")),
            "token": st.column_config.TextColumn(t(lang, "vocab.col.token"), max_chars=limits.MAX_TOKEN_CHARS),
            "id": st.column_config.NumberColumn(t(lang, "vocab.col.id"), step=1, format="%d"),
            "role": st.column_config.SelectboxColumn(t(lang, "vocab.col.role"), options=["normal", "unk", "pad"],
                                                     default="normal", format_func=lambda r: t(lang, f"vocab.role.{r}"),
                                                     help=t(lang, "vocab.col.role_help")),
        },
    )
    return VocabEdit(edited, start)


def _window_start(lang: str, base: pd.DataFrame, locked: bool) -> int:
    """The window's navigation (first row, find a token); returns the window's first position."""
    v = len(base)
    last_first = max(1, v - EDITOR_WINDOW + 1)
    try:  # whatever a script put there, the window starts on a row that exists
        first = int(session.get(Keys.VOCAB_START) or 1)
    except (TypeError, ValueError, OverflowError):
        first = 1
    first = min(max(1, first), last_first)
    session.set_value(Keys.VOCAB_START, first)
    st.caption(t(lang, "vocab.window", v=v, first=first, last=min(v, first + EDITOR_WINDOW - 1), n=EDITOR_WINDOW))
    left, right = st.columns(2)
    left.number_input(t(lang, "vocab.window_start"), key=Keys.VOCAB_START, min_value=1, max_value=last_first,
                      step=EDITOR_WINDOW, disabled=locked)
    found = right.text_input(t(lang, "vocab.window_find"), key=Keys.VOCAB_FIND, disabled=locked,
                             help=t(lang, "vocab.window_find_help"),
                             on_change=_find_token, args=(base,))
    if locked:
        st.caption(t(lang, "vocab.window_locked"))
    elif found and not (base["token"] == found).any():
        st.caption(t(lang, "vocab.window_not_found", token=found))
    return first - 1


def _find_token(base: pd.DataFrame) -> None:
    """Callback of the find box: move the window so the token is its first row."""
    token = session.get(Keys.VOCAB_FIND, "")
    hits = (base["token"] == token).to_numpy().nonzero()[0]
    if len(hits):
        session.set_value(Keys.VOCAB_START, int(hits[0]) + 1)


def sentences_area(lang: str, classes: tuple[str, ...]) -> str:
    """One sentence per line, tokens split on whitespace, optional ' | label'."""
    return st.text_area(t(lang, "sent.title"), key=Keys.SENTENCES, height=180,
                        help=t(lang, "sent.help", classes=" / ".join(classes), max=limits.MAX_SENTENCES))


def show_problems(lang: str, where: str, problems: list[Problem], limit: int = 8) -> None:
    """One error box listing what is wrong and how to fix it; the page keeps the last valid state."""
    if not problems:
        return
    lines = [f"- {problem_text(lang, p)}" for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"- {t(lang, 'err.more', n=len(problems) - limit)}")
    # A keyed container per kind of problem ("problems_vocab_title", …): tests find it without matching text.
    st.container(key=Keys.PROBLEMS_PREFIX + where.removeprefix("err.")).error(f"**{t(lang, where)}**\n\n" + "\n".join(lines) + f"\n\n{t(lang, 'err.kept')}", icon=":material/error:")
