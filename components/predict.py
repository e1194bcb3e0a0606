"""Predict, then reveal, beside the Step button: the guesses before a Step, each marked after it.

The guesses (core.predict) sit in a popover on one line right under the training bar; the same
line shows, after a Step, each guess right or wrong with what the step actually did. The page
reads the guesses when Step is clicked (`take`), before the step runs.
"""

from __future__ import annotations

import streamlit as st

from components.i18n import t
from components.safe_text import md_escape
from core.explorer import Explorer
from core.predict import Verdict
import session
from session import Keys

MAX_ROW_CHOICES = 200  # above this many rows, no row guess: the list would be too long to pick from
YES_NO = (True, False)


def take(ex: Explorer) -> None:
    """Step was clicked: the guesses on screen become the guess for this step (none: no guess)."""
    ex.predict(session.get(Keys.PREDICT_ROWS), session.get(Keys.PREDICT_PAD), session.get(Keys.PREDICT_LOSS))


def panel(lang: str, ex: Explorer, disabled: bool = False) -> None:
    """The popover of guesses, then the marks of the last Step's guesses, on one line."""
    vocab = ex.vocab
    line = st.container(horizontal=True, vertical_alignment="center", gap="medium", key=Keys.PREDICT)
    box = line.popover(t(lang, "predict.open"), icon=":material/psychology_alt:", help=t(lang, "predict.open_help"),
                       disabled=disabled)
    with box:
        if vocab.size <= MAX_ROW_CHOICES:
            st.multiselect(t(lang, "predict.rows"), list(range(vocab.size)), key=Keys.PREDICT_ROWS,
                           format_func=lambda i: f"{i} · {vocab.tokens[i]}", help=t(lang, "predict.rows_help"),
                           placeholder=t(lang, "predict.rows_placeholder"), select_all=False)
        yes_no = lambda v: t(lang, "predict.yes" if v else "predict.no")  # noqa: E731
        st.radio(t(lang, "predict.pad", pad=vocab.pad_id), YES_NO, index=None, key=Keys.PREDICT_PAD,
                 format_func=yes_no, horizontal=True, help=t(lang, "predict.pad_help"))
        st.radio(t(lang, "predict.loss"), YES_NO, index=None, key=Keys.PREDICT_LOSS, format_func=yes_no,
                 horizontal=True, help=t(lang, "predict.loss_help"))
        st.caption(t(lang, "predict.only_step"))
    verdicts = ex.verdicts()
    if verdicts:
        marks = " · ".join(mark(lang, v, vocab.tokens, ex.answered) for v in verdicts)
        line.container(key=Keys.PREDICT_VERDICTS).markdown(t(lang, "predict.verdicts", step=ex.answered.step,
                                                             marks=marks))


def mark(lang: str, v: Verdict, tokens: tuple[str, ...], ans) -> str:
    """One guess as Markdown: right or wrong, and what the step did. Tokens are escaped (untrusted)."""
    right = t(lang, "predict.right" if v.right else "predict.wrong")
    if v.question == "rows":
        names = lambda ids: md_escape(", ".join(f"{i} · {tokens[i]}" for i in ids) or "—")  # noqa: E731
        return t(lang, "predict.mark.rows", mark=right, guess=names(v.guessed), actual=names(v.actual))
    if v.question == "pad":
        return t(lang, "predict.mark.pad", mark=right,
                 actual=t(lang, "predict.pad_moved" if v.actual else "predict.pad_still"))
    return t(lang, "predict.mark.loss", mark=right, before=f"{ans.loss_before:.4f}", after=f"{ans.loss_after:.4f}")
