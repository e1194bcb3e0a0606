"""Section 3: every claim of the chapter (C1–C16) and the pitfalls beyond it (X1–X9), live on the learner's data."""

from __future__ import annotations

from functools import partial
from typing import Callable

import streamlit as st

import session
from components.i18n import t
from components.lessons import LessonKeys, View, render_lessons, seed
from components.memo import Memo, no_memo
from core import morphemes
from core.explorer import Explorer
from core.training import Lab
from session import Keys
from views.tokens import lesson_source

MORPHEMES_WAIT_S = 120  # the longest X8 waits for the morpheme analyzer to load

KEYS = LessonKeys(picker=Keys.LESSON, prev=Keys.LESSON_PREV, next=Keys.LESSON_NEXT, predict=Keys.PREDICT_PREFIX,
                  reveal=Keys.REVEAL_PREFIX, try_box=Keys.TRY_PREFIX, figure=Keys.LESSON_FIGURE_PREFIX,
                  open=Keys.LESSON_OPEN_PREFIX, head=Keys.LESSON_HEAD, body=Keys.LESSON_BODY)

MODES = ("guided", "free")
# Presentation mode: the lessons' text as large as the page's other text there (style.PRESENT) and
# their headings to match; plain CSS, no user data.
#
# A guided lesson then fits one projector screen: the page is exactly the window's height, a column
# of flex boxes from the main block down to the lesson's box (`lesson_body`, components/lessons.py),
# which takes the height left under the header row (claim, verdict, previous/next) and scrolls inside
# itself; the page never scrolls. Each box of that column may shrink (min-height 0); only the lesson's
# box does, the others keep their own height. The page's components that draw nothing there (keeper,
# guide, widget_text) are taken out of the column, so its gaps add no height. In the box, the figure
# and the verdict under it fill the first screen: the column's and the box's gaps and the verdict's
# padding are tighter (components/lesson_projector.py sizes the figure to the room they leave). A phone (≤ 640 px) keeps
# scrolling the page.
PRESENT_CSS = """
.st-key-lessons [data-testid="stMarkdownContainer"] p, .st-key-lessons li { font-size: 1.3rem !important; line-height: 1.55; }
.st-key-lessons [data-testid="stCaptionContainer"] p { font-size: 1.1rem !important; }
.st-key-lessons h2 { font-size: 1.6rem !important; padding: 0 !important; }
.st-key-lessons [data-testid="stMetricValue"], .st-key-lessons [data-testid="stTable"] td,
.st-key-lessons [data-testid="stTable"] th { font-size: 1.5rem !important; }
@media (min-width: 641px) {
  [data-testid="stMainBlockContainer"]:has(.st-key-lesson_body) {
    height: 100vh; box-sizing: border-box; padding-bottom: .75rem; display: flex; flex-direction: column; }
  [data-testid="stMainBlockContainer"]:has(.st-key-lesson_body) :is([data-testid="stVerticalBlock"],
    [data-testid="stLayoutWrapper"]):has(.st-key-lesson_body) { flex: 1 1 0; min-height: 0; }
  .st-key-lesson_body { flex: 1 1 0; min-height: 0; overflow-y: auto; overflow-x: hidden; padding-right: .5rem; }
  [data-testid="stMainBlockContainer"]:has(.st-key-lesson_body) [data-testid="stVerticalBlock"]:has(.st-key-lesson_body),
  .st-key-lesson_body [data-testid="stVerticalBlock"] { gap: .6rem; }
  .st-key-lesson_body [data-testid="stAlertContainer"] { padding: .5rem .9rem; }
  .st-key-lesson_body [data-testid="stAlert"] [data-testid="stMarkdownContainer"] p { line-height: 1.35; }
  [data-testid="stMainBlockContainer"]:has(.st-key-lesson_body) > [data-testid="stVerticalBlock"]
    > :is(.st-key-keeper, .st-key-guide, .st-key-widget_text) { position: absolute; }
  .st-key-lesson_head h2 { font-size: 1.7rem !important; }
  .st-key-lesson_head [data-testid="stMarkdownContainer"] span:not(h2 *) { font-size: 1.4rem !important; padding: .25rem .8rem; }
}
"""


def render(lang: str, ex: Explorer) -> None:
    session.set_value(Keys.MODE, ex.lesson_mode)  # the workspace remembers it while other views are shown

    def mode_picker(compact: bool) -> None:  # drawn in the lessons' row of controls
        st.radio(t(lang, "lessons.mode"), MODES, key=Keys.MODE, horizontal=True,
                 label_visibility="collapsed" if compact else "visible",
                 format_func=lambda m: t(lang, f"lessons.mode.{m}"), help=t(lang, "help.lessons_mode"),
                 on_change=lambda: setattr(ex, "lesson_mode", session.get(Keys.MODE)))

    if session.get(Keys.PRESENT):
        st.html(f"<style>{PRESENT_CSS}</style>")
    view = View(present=bool(session.get(Keys.PRESENT)), selected=ex.selected_token, frame=lambda: ex.frame(2),
                tokens=lambda: x8_source(lang, ex))
    with st.container(key=Keys.LESSONS):  # .st-key-lessons: presentation mode's larger lesson text (style.py)
        moved = lessons(ex.lab, lang, ex.lesson_mode, ex.lesson_index, memo=session.memo, view=view,
                        mode_picker=mode_picker)
        if not (view.present and ex.lesson_mode == "guided"):  # presenting, the lesson has the whole screen
            st.caption(t(lang, "lessons.intro"))
    if moved is not None:
        ex.lesson_index = moved


def x8_source(lang: str, ex: Explorer):
    """X8's reading of the learner's sentences, with the morpheme analyzer (loaded now if it is not)."""
    analyzer = ex.analyzer()
    if analyzer is None:
        with st.spinner(t(lang, "tok.loading")):
            analyzer = morphemes.wait(MORPHEMES_WAIT_S)
    return lesson_source(ex, analyzer)


def lessons(lab: Lab, lang: str, mode: str, index: int, memo: Memo = no_memo, view: View = View(),
            mode_picker: Callable[[bool], None] = lambda compact: None) -> int | None:
    """The lessons panel (components/lessons.py) on this session's widgets: in guided mode the
    picker's state is seeded with ``index`` on its first draw and wins once it exists, and the
    previous/next buttons move it. Returns the lesson index the learner moved to, or None."""
    picked = None
    if mode == "guided":
        session.ensure(Keys.LESSON, seed(index))  # first draw: the caller's index seeds the picker
        picked = session.get(Keys.LESSON)
    return render_lessons(lab, lang, mode, index, KEYS, on_go=partial(session.set_value, Keys.LESSON), picked=picked,
                          memo=memo, view=view, mode_picker=mode_picker)
