"""The first-visit guide: five steps through the chapter's example, pointing at the real elements.

The id matrix → a row of W → the output (on ① Lookup), then Step → PAD staying put (on ② Training).
It opens by itself on a learner's first visit, on the lookup view; closing it is remembered in the
browser (localStorage, guide.js), and the sidebar's button opens it again. A teacher turns it off
for a class with ``?guide=off`` in the address or by running the server with
``EXPLORER_GUIDE=off``: it then opens only from the button.

The component reports the step the learner is on (its state ``step``); `follow`, called before the
view selector is drawn, shows the view that step is on. Its texts are filled with this page's
example (the first sentence's ids, its first token, B, T, E), so each step says what is on screen.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

import session
from components.i18n import t
from core.explorer import Explorer
from session import Keys

_HERE = Path(__file__).resolve().parent
HTML = '<div class="guide-host"></div>'
CSS = (_HERE / "guide.css").read_text(encoding="utf-8")
JS = (_HERE / "guide.js").read_text(encoding="utf-8")
STORAGE_KEY = "nn-embedding-explorer.guide"  # localStorage: {"v": 1, "done": true} once closed
OFF = "off"  # ?guide=off, EXPLORER_GUIDE=off
ENV = "EXPLORER_GUIDE"
# (step, the view it is on, the element's key, a selector inside it: the stage's parts are in its shadow root)
STEPS = (("ids", "lookup", Keys.STAGE, ".idspanel"),
         ("row", "lookup", Keys.STAGE, '.wpanel .wrow[data-token="{id}"]'),
         ("out", "lookup", Keys.STAGE, ".outpanel"),
         ("step", "train", Keys.STEP, "button"),
         ("pad", "train", Keys.STAGE, '[data-role="pad"]'))
VIEWS = tuple(view for _, view, _, _ in STEPS)

_mount = st.components.v2.component("first_visit_guide", html=HTML, css=CSS, js=JS)


def _step_changed() -> None:
    """Streamlit keeps a component state only for names with an on_<name>_change callback."""


def turned_off() -> bool:
    """The teacher turned the guide off: for the whole server, or in this page's address."""
    return os.environ.get(ENV, "").strip().lower() == OFF or st.query_params.get("guide") == OFF


def reported_step() -> int | None:
    """The step the guide last reported (untrusted: an int in range, or None)."""
    state = session.get(Keys.GUIDE)
    step = state.get("step") if hasattr(state, "get") else None
    if isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(STEPS):
        return step
    return None


def follow() -> None:
    """Before the view selector is drawn: when the guide moved to a step on another view, show that
    view. Only on a move, so the learner can still change the view while the guide is open, and a
    session that starts with a report already there (the page reconnected to a new session) keeps
    the view the page asked for."""
    step = reported_step()
    seen = session.get(Keys.GUIDE_SEEN)
    if step is None or step == seen:
        return
    session.set_value(Keys.GUIDE_SEEN, step)
    if seen is None:  # this session's first report (a new session after a reconnect, too) is no move
        return
    if session.get(Keys.SECTION) != VIEWS[step]:
        session.set_value(Keys.SECTION, VIEWS[step])


def reopen_button(lang: str) -> None:
    """The sidebar's button that opens the guide again, at its first step."""
    st.button(t(lang, "guide.open"), key=Keys.GUIDE_OPEN, icon=":material/tour:", width="stretch",
              help=t(lang, "guide.open_help"), on_click=_reopen)


def _reopen() -> None:
    """Callback: the guide opens again at its first step, on the view that step is on."""
    session.set_value(Keys.GUIDE_REOPEN, int(session.get(Keys.GUIDE_REOPEN) or 0) + 1)
    session.set_value(Keys.GUIDE_SEEN, reported_step())  # the last report is not a move
    session.set_value(Keys.SECTION, VIEWS[0])


def steps(lang: str, ex: Explorer) -> list[dict]:
    """The five steps' words, filled with this page's example, and where each points."""
    batch, vocab, dim = ex.lab.batch, ex.vocab, ex.recipe.config.embedding_dim
    b, width = (int(n) for n in batch.ids.shape)
    first = [int(i) for i in batch.ids[0].tolist()]
    params = {"b": b, "t": width, "e": dim, "pad": vocab.pad_id, "id": first[0], "token": vocab.tokens[first[0]],
              "row": str(first)}
    return [{"title": t(lang, f"guide.{name}.title"), "text": t(lang, f"guide.{name}.text", **params),
             "view": view, "host": host, "inner": inner.format(id=first[0])} for name, view, host, inner in STEPS]


def show(lang: str, ex: Explorer, view: str) -> None:
    """Mount the guide (outside every fragment): it opens by itself on a first visit, on ``view``
    "lookup", unless the teacher turned it off, and whenever the learner asks for it again."""
    words = {k: t(lang, f"guide.{k}") for k in ("next", "back", "done", "close", "of")}
    _mount(key=Keys.GUIDE, height=0, on_step_change=_step_changed,
           data={"enabled": not turned_off(), "reopen": int(session.get(Keys.GUIDE_REOPEN) or 0),
                 "view": view, "steps": steps(lang, ex), "text": words, "storage": STORAGE_KEY})
