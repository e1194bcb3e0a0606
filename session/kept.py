"""What a widget's state would lose between runs, kept for the run that needs it.

Streamlit drops the state of a widget that a run does not draw, so a widget drawn only while its
popover or expander is open keeps the learner's choice here: its ``on_change`` is `keep`, the page
reads the choice with `kept` whether the widget is drawn or not, and `show_kept` gives the widget
its value again before it is drawn.
"""

from __future__ import annotations

import streamlit as st

from session.own import own


def keep(key: str) -> None:
    """Callback of a widget drawn only while open: keep its value beyond the runs that draw it."""
    own().kept[key] = st.session_state.get(key)


def kept(key: str, default=None):
    """The value the learner last chose in the widget ``key`` (``default`` before any choice)."""
    return own().kept.get(key, default)


def show_kept(values: dict) -> None:
    """Before the widgets are drawn: each one that has no state (not drawn in the last run) gets its
    value from ``values`` (the kept one, or its default, as the caller decided)."""
    for key, value in values.items():
        if key not in st.session_state:
            st.session_state[key] = value
