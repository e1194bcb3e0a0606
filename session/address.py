"""The address (URL state, core/url_state.py): opening what it asks for, writing what the page shows.

The browser makes each change of the address an entry of its history, so Back returns to the
page before it; a Back/Forward run follows the address instead of writing it.
"""

from __future__ import annotations

from typing import Callable
from contextlib import AbstractContextManager

import streamlit as st

from server import streamlit_private
from assets import presets
from core import url_state
from core.explorer import Explorer
from core.problems import Problem
from core.share_link import SHARE_PARAM
from session import workspace
from session.keys import Keys
from session.state import keep_choices_across_language

Busy = Callable[[str], AbstractContextManager]  # a string key → a context that shows it while slow work runs


def history_navigation() -> bool:
    """Whether the browser's Back or Forward started this run (the address changed under the page)."""
    return streamlit_private.history_navigation()


def follow_address(busy: Busy, langs: tuple[str, ...]) -> None:
    """Open what the address asks for (core/url_state.py), before any widget is drawn.

    A share link (``?s=…``) first, else the example (``preset``); then the language, the knobs and
    the view on top, as if the learner had changed them after opening it. A value the app cannot
    use is left as it was and named (shown once under "url").
    """
    params = {name: st.query_params.get_all(name) for name in st.query_params}  # every value: a repeat is named
    one = url_state.single(params)
    link, preset = one.get(SHARE_PARAM), one.get("preset")
    if len(url_state.values_of(params, SHARE_PARAM)) > 1:
        workspace.current().problems["link"] = [Problem("share_repeated", {"n": len(params[SHARE_PARAM])})]
    elif link is not None and link != workspace.opened_link():
        with busy("urlstate.opening_link"):
            workspace.open_share_link(link)
    elif link is None and preset in presets.ORDER and preset != workspace.current().preset_id:
        with busy("urlstate.loading_preset"):
            workspace.replace_with_preset(preset)
    ex = workspace.current()  # the one opened: a refused value names what it shows
    values, problems = url_state.read(params, _address_now(ex), {"section": url_state.SECTIONS, "lang": langs,
                                                                 "preset": presets.ORDER})
    values.pop("preset", None)
    lang = values.pop("lang", None)
    if lang is not None and lang != st.session_state.get(Keys.LANG):
        st.session_state[Keys.LANG] = lang
        keep_choices_across_language()
    present = values.pop("present", None)
    if present is not None and present != bool(st.session_state.get(Keys.PRESENT)):
        st.session_state[Keys.PRESENT] = present  # the sidebar folds when the page opens presenting
    if "fixed_len" in values and "pad_mode" not in values:
        values["pad_mode"] = "fixed"  # a length alone asks for fixed padding
    st.session_state.update(values)  # section, pad_mode and the knobs: every name is its widget's key
    if problems:
        ex.problems["url"] = problems


def _address_now(ex: Explorer) -> dict:
    """What the page shows now, by address parameter (a refused value names the one it keeps)."""
    return {"section": st.session_state.get(Keys.SECTION), "lang": st.session_state.get(Keys.LANG),
            "preset": ex.preset_id, "present": "1" if st.session_state.get(Keys.PRESENT) else "0",
            **workspace.config_widgets(ex.config_values())}


def write_address(ex: Explorer) -> None:
    """Put the view, language, example, presentation mode and knobs in the address, with the share
    link the page was opened from while it still shows that link's lab.

    Not on a Back/Forward run: the address is already the one the learner went to, and writing
    another would drop the entries Forward leads to.
    """
    if history_navigation():
        return
    now = {name: st.query_params.get_all(name) for name in st.query_params}
    link = workspace.opened_link()
    want: dict[str, list[str]] = {SHARE_PARAM: [link]} if link is not None else {}
    want.update((k, v) for k, v in now.items() if k not in url_state.NAMES and k != SHARE_PARAM)  # kept as they came
    view = {"section": st.session_state.get(Keys.SECTION), "lang": st.session_state.get(Keys.LANG),
            "preset": ex.preset_id if ex.preset_id in presets.ORDER else None,
            "present": bool(st.session_state.get(Keys.PRESENT))}
    want.update((k, [v]) for k, v in url_state.write(view, ex.config_values()).items())
    if want != now:
        st.query_params.from_dict(want)
