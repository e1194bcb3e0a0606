"""Predict, then reveal, beside the Step button: the guesses before a Step, each marked after it.

The guesses (core.predict) sit in a popover in the training bar, beside Step; after a guessed
Step, a line under the bar marks each guess right or wrong with what the step actually did. The
popover's widgets are built only while it is open; the page keeps the guesses (each widget's
``on_change``) and hands them to the explorer when Step is clicked, before the step runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from components.i18n import t
from components.safe_text import md_escape
from core.explorer import Explorer
from core.predict import Verdict

MAX_ROW_CHOICES = 200  # above this many rows, no row guess: the list would be too long to pick from
YES_NO = (True, False)


@dataclass(frozen=True)
class PredictKeys:
    """The guesses' widget keys, given by the caller (the app's are session.Keys)."""

    popover: str
    rows: str
    pad: str
    loss: str
    verdicts: str

    @property
    def guesses(self) -> tuple[str, str, str]:
        """The three guesses' keys, in the order Explorer.predict takes them."""
        return self.rows, self.pad, self.loss


def guesses(lang: str, keys: PredictKeys, ex: Explorer, where, disabled: bool, on_open, on_change) -> None:
    """The popover of guesses, drawn in ``where``: a slot of the training bar, beside Step. Its
    widgets are built only while it is open: first ``on_open()`` (the caller gives each widget the
    guess kept for it), then each widget, whose ``on_change(key)`` keeps the new guess."""
    vocab = ex.vocab
    box = where.popover(t(lang, "predict.open"), help=t(lang, "predict.open_help"),
                        disabled=disabled, width="stretch", key=keys.popover, on_change="rerun")
    if not box.open:
        return
    on_open()
    with box:
        if vocab.size <= MAX_ROW_CHOICES:
            st.multiselect(t(lang, "predict.rows"), list(range(vocab.size)), key=keys.rows,
                           format_func=lambda i: f"{i} · {vocab.tokens[i]}", help=t(lang, "predict.rows_help"),
                           placeholder=t(lang, "predict.rows_placeholder"), select_all=False,
                           on_change=on_change, args=(keys.rows,))
        yes_no = lambda v: t(lang, "predict.yes" if v else "predict.no")  # noqa: E731
        st.radio(t(lang, "predict.pad", pad=vocab.pad_id), YES_NO, index=None, key=keys.pad,
                 format_func=yes_no, horizontal=True, help=t(lang, "predict.pad_help"),
                 on_change=on_change, args=(keys.pad,))
        st.radio(t(lang, "predict.loss"), YES_NO, index=None, key=keys.loss, format_func=yes_no,
                 horizontal=True, help=t(lang, "predict.loss_help"), on_change=on_change, args=(keys.loss,))
        st.caption(t(lang, "predict.only_step"))


def shown_rows(rows, size: int) -> list[int]:
    """The kept row guesses that are rows of a vocabulary of ``size`` (the lab may have changed since)."""
    if size > MAX_ROW_CHOICES or not isinstance(rows, (list, tuple)):
        return []
    return [i for i in rows if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < size]


def marks(lang: str, keys: PredictKeys, ex: Explorer) -> None:
    """Under the bar, only after a guessed Step: each guess marked right or wrong, with what the step did."""
    verdicts = ex.verdicts()
    if verdicts:
        text = " · ".join(mark(lang, v, ex.vocab.tokens, ex.answered) for v in verdicts)
        st.container(key=keys.verdicts).markdown(t(lang, "predict.verdicts", step=ex.answered.step, marks=text))


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
