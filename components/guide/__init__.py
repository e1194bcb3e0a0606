"""The first-visit guide: five steps through the chapter's example, pointing at the real elements.

The id matrix → a row of W → the output (on ① Lookup), then Step → PAD staying put (on ② Training).
It opens by itself on a learner's first visit, on the lookup view, once the page has drawn every
widget (guide.js says why: a click before that would lose the inputs); closing it is remembered in the
browser (localStorage, guide.js), and the sidebar's button opens it again. A teacher turns it off
for a class with ``?guide=off`` in the address or by running the server with
``EXPLORER_GUIDE=off``: it then opens only from the button.

The component reports the step the learner is on (its state ``step``, read by `reported_step`);
the page, before the view selector is drawn, shows the view that step is on (sections/guide_section.py,
which owns the guide's session state and its keys). Its texts are filled with this page's example
(the first sentence's ids, its first token, B, T, E), so each step says what is on screen.
"""

from __future__ import annotations

import os
from pathlib import Path

from typing import Callable

import streamlit as st

from components.i18n import t
from core.explorer import Explorer

_HERE = Path(__file__).resolve().parent
HTML = '<div class="guide-host"></div>'
CSS = (_HERE / "guide.css").read_text(encoding="utf-8")
JS = (_HERE / "guide.js").read_text(encoding="utf-8")
STORAGE_KEY = "nn-embedding-explorer.guide"  # localStorage: {"v": 1, "done": true} once closed
OFF = "off"  # ?guide=off, EXPLORER_GUIDE=off
ENV = "EXPLORER_GUIDE"
# (step, the view it is on, the element it points at, a selector inside it: the stage's parts are in
# its shadow root). The element is named by its part, "stage" or "step": the caller gives their keys.
STEPS = (("ids", "lookup", "stage", ".idspanel"),
         ("row", "lookup", "stage", '.wpanel .wrow[data-token="{id}"]'),
         ("out", "lookup", "stage", ".outpanel"),
         ("step", "train", "step", "button"),
         ("pad", "train", "stage", '[data-role="pad"]'))
VIEWS = tuple(view for _, view, _, _ in STEPS)

_mount = st.components.v2.component("first_visit_guide", html=HTML, css=CSS, js=JS)


def _step_changed() -> None:
    """Streamlit keeps a component state only for names with an on_<name>_change callback."""


def turned_off() -> bool:
    """The teacher turned the guide off: for the whole server, or in this page's address."""
    return os.environ.get(ENV, "").strip().lower() == OFF or st.query_params.get("guide") == OFF


def reported_step(state: object) -> int | None:
    """The step the guide last reported in its component ``state`` (untrusted: an int in range, or None)."""
    step = state.get("step") if hasattr(state, "get") else None
    if isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(STEPS):
        return step
    return None


def reopen_button(lang: str, key: str, on_click: Callable[[], None]) -> None:
    """The sidebar's button that opens the guide again; ``on_click`` asks for it at its first step."""
    st.button(t(lang, "guide.open"), key=key, icon=":material/tour:", width="stretch",
              help=t(lang, "guide.open_help"), on_click=on_click)


def steps(lang: str, ex: Explorer, stage_key: str, step_key: str) -> list[dict]:
    """The five steps' words, filled with this page's example, and where each points (the keys of
    the parts a step points at: the stage, and the training bar's Step button)."""
    hosts = {"stage": stage_key, "step": step_key}
    batch, vocab, dim = ex.lab.batch, ex.vocab, ex.recipe.config.embedding_dim
    b, width = (int(n) for n in batch.ids.shape)
    first = [int(i) for i in batch.ids[0].tolist()]
    params = {"b": b, "t": width, "e": dim, "pad": vocab.pad_id, "id": first[0], "token": vocab.tokens[first[0]],
              "row": str(first)}
    return [{"title": t(lang, f"guide.{name}.title"), "text": t(lang, f"guide.{name}.text", **params),
             "view": view, "host": hosts[part], "inner": inner.format(id=first[0])} for name, view, part, inner in STEPS]


def show(lang: str, ex: Explorer, view: str, key: str, reopen: int, stage_key: str, step_key: str) -> None:
    """Mount the guide under ``key`` (outside every fragment): it opens by itself on a first visit, on
    ``view`` "lookup", unless the teacher turned it off, and whenever ``reopen`` (how many times the
    learner asked for it) changes. ``stage_key``, ``step_key``: what its steps point at (`steps`)."""
    words = {k: t(lang, f"guide.{k}") for k in ("next", "back", "done", "close", "of")}
    _mount(key=key, height=0, on_step_change=_step_changed,
           data={"enabled": not turned_off(), "reopen": reopen,
                 "view": view, "steps": steps(lang, ex, stage_key, step_key), "text": words, "storage": STORAGE_KEY})
