"""The first-visit guide (components/guide) on this session: the view its step is on, the sidebar's
button that opens it again, and its mount with the keys of what it points at."""

from __future__ import annotations

import session
from components import guide
from core.explorer import Explorer
from session import Keys

def follow() -> None:
    """Before the view selector is drawn: when the guide moved to a step on another view, show that
    view. Only on a move, so the learner can still change the view while the guide is open, and a
    session that starts with a report already there (the page reconnected to a new session) keeps
    the view the page asked for."""
    step = guide.reported_step(session.get(Keys.GUIDE))
    own = session.own()
    seen = own.guide_seen
    if step is None or step == seen:
        return
    own.guide_seen = step
    if seen is None:  # this session's first report (a new session after a reconnect, too) is no move
        return
    if session.get(Keys.SECTION) != guide.VIEWS[step]:
        session.set_value(Keys.SECTION, guide.VIEWS[step])


def reopen() -> None:
    """Callback of the sidebar's button: the guide opens again at its first step, on the view that step is on."""
    own = session.own()
    own.guide_reopen += 1
    own.guide_seen = guide.reported_step(session.get(Keys.GUIDE))  # the last report is not a move
    session.set_value(Keys.SECTION, guide.VIEWS[0])


def reopen_button(lang: str) -> None:
    guide.reopen_button(lang, Keys.GUIDE_OPEN, on_click=reopen)


def show(lang: str, ex: Explorer, view: str) -> None:
    """Mount the guide (outside every fragment), on the page's ``view``."""
    guide.show(lang, ex, view, Keys.GUIDE, reopen=session.own().guide_reopen,
               stage_key=Keys.STAGE, step_key=Keys.STEP)
