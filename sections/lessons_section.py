"""Section 3: every claim of the chapter (C1–C16) and the pitfalls beyond it (X1–X7), live on the learner's data."""

from __future__ import annotations

import streamlit as st

import session
from components.i18n import t
from components.lessons import render_lessons
from core.explorer import Explorer
from session import Keys

MODES = ("guided", "free")


def render(lang: str, ex: Explorer) -> None:
    st.caption(t(lang, "lessons.intro"))
    session.set_value(Keys.MODE, ex.lesson_mode)  # the workspace remembers it while other views are shown
    mode = st.radio(t(lang, "lessons.mode"), MODES, key=Keys.MODE, horizontal=True,
                    format_func=lambda m: t(lang, f"lessons.mode.{m}"), help=t(lang, "help.lessons_mode"),
                    on_change=lambda: setattr(ex, "lesson_mode", session.get(Keys.MODE)))
    moved = render_lessons(ex.lab, lang, mode, ex.lesson_index, memo=session.memo)
    if moved is not None:
        ex.lesson_index = moved
