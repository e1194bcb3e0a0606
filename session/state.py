"""Reading and writing this session's state: a widget's value, a flag, a memoized figure.

Every other module goes through these (tests/test_architecture.py): one place touches
``st.session_state``, under the keys named in session/keys.py.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import streamlit as st

from session.keys import TRANSLATED_CHOICES, Keys
from session.own import own

T = TypeVar("T")  # what a memoized build returns


def get(key: str, default=None):
    return st.session_state.get(key, default)


def set_value(key: str, value) -> None:
    """Set a widget's value: only in a callback or before the widget is drawn in this run."""
    st.session_state[key] = value


def presentation_switched() -> None:
    """Callback of the presentation toggle: count the times it is switched on (the sidebar folds each time)."""
    if st.session_state.get(Keys.PRESENT):
        own().present_switched_on += 1


def play_asked(on: bool) -> None:
    """Callback of Play and Pause: the state the button offered, kept for ``play_taken``."""
    own().play_asked = on


def play_taken() -> None:
    """At the top of a run of the page or of the training view: Play's or Pause's kept click takes
    effect, once; Play follows the newest step (a timeline scrubbed back is let go).

    Kept, not applied by the callback: Streamlit's browser sends a click on a timer, after the click,
    and a Play tick falling due first carries the click in its rerun of the stage's part; the click's
    own rerun (of the view) brings it again. The stage part's run leaves it, and both copies keep the
    same state: it takes effect once."""
    on = own().take_play()
    if on is not None:
        own().playing = on
        if on:
            forget(Keys.TIMELINE)


def forget(key: str) -> None:
    """Drop a widget's value, so it is drawn afresh (a timeline whose steps are gone)."""
    st.session_state.pop(key, None)


def pop(key: str, default=None):
    """Take a value out of the state (a one-shot request: an import, a preset asked for)."""
    return st.session_state.pop(key, default)


def has(key: str) -> bool:
    return key in st.session_state


def ensure(key: str, value) -> None:
    """Give a widget its first value without passing ``value=`` (avoids Streamlit's double-default warning)."""
    if key not in st.session_state:
        st.session_state[key] = value


def update(values: dict) -> None:
    """Set several widgets' values at once (before they are drawn)."""
    st.session_state.update(values)


def memo(name: str, key: tuple, build: Callable[[], T]) -> T:
    """``build()``, or the value it returned last time under ``name`` when ``key`` is equal.

    ``key`` must hold everything the value is built from (arrays as bytes, a lab by its uid; see
    components/memo.py). A rerun that changed nothing a chart shows then skips rebuilding it.
    Per session, like everything in session state.
    """
    built = own().built
    hit = built.get(name)
    if hit is not None and hit[0] == key:
        return hit[1]  # type: ignore[return-value]
    value = build()
    built[name] = (key, value)
    return value


def keep_choices_across_language() -> None:
    """Callback of the language radio: re-assign every translated choice so it survives the new labels."""
    for key in TRANSLATED_CHOICES:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
