"""The keeper's session token and answers (components/keeper): what this session told the browser."""

from __future__ import annotations

import secrets

import streamlit as st

from session.keys import Private


def keeper_token() -> str:
    """This session's random token: the browser keeps this page's work under it (its "slot"), and a
    page that reports an older one was reconnected to this new session."""
    return st.session_state.setdefault(Private.KEEPER_TOKEN, secrets.token_urlsafe(12))


def keeper_opened(param: str | None) -> str | None:
    """The share parameter of the first state the keeper saw in this session (set on the first call)."""
    if Private.KEEPER_OPENED not in st.session_state and param is not None:
        st.session_state[Private.KEEPER_OPENED] = param
    return st.session_state.get(Private.KEEPER_OPENED)


def keeper_answered() -> int:
    """The number of the last report whose offer the learner answered (restored, or started fresh); -1 if none."""
    return st.session_state.get(Private.KEEPER_ANSWERED, -1)


def answer_keeper(n: int) -> None:
    st.session_state[Private.KEEPER_ANSWERED] = n
