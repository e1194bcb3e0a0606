"""The keeper's session token and answers (components/keeper): what this session told the browser."""

from __future__ import annotations

from session.own import own


def keeper_token() -> str:
    """This session's random token: the browser keeps this page's work under it (its "slot"), and a
    page that reports an older one was reconnected to this new session."""
    return own().keeper_token


def keeper_opened(param: str | None) -> str | None:
    """The share parameter of the first state the keeper saw in this session (set on the first call)."""
    kept = own()
    if kept.keeper_opened is None and param is not None:
        kept.keeper_opened = param
    return kept.keeper_opened


def keeper_answered() -> int:
    """The number of the last report whose offer the learner answered (restored, or started fresh); -1 if none."""
    return own().keeper_answered


def answer_keeper(n: int) -> None:
    own().keeper_answered = n
