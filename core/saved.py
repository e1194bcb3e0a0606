"""Work kept in the learner's own browser: the compact state written there, and reading it back.

The browser (components/keeper) keeps one entry in ``localStorage``: the share link's parameter
for the current state (no tensors: the seeded replay rebuilds them bitwise), the step count and
when the state was made::

    {"s": "eNo9kE1Lw0AQ…", "steps": 7, "at": 1764524400000}     # at: Unix time in ms

What comes back from the browser is untrusted (anyone can edit their localStorage, or send any
component state over the websocket): `read_found` checks its shape and size before decoding,
then reads ``s`` exactly as a share link (`from_query_params`: bounded, validated, replay
budget). `restore_found` replays it. Nothing here imports streamlit.

    >>> entry = saved_entry(recipe, text, "ko", lab, now_ms=1764524400000)
    >>> found = read_found(entry)                     # an InputError for anything else
    >>> found.steps, saved_at_text(found.saved_at_ms, -540)
    (7, '02:40')
    >>> restore_found(found).lab.weight               # bitwise the W of `lab`
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from core.problems import InputError, Problem, require
from core.share_link import MAX_SHARE_JSON_BYTES, MAX_SHARE_PARAM_CHARS, SHARE_PARAM, from_query_params, to_query_params
from core.state import AppState, Restored, export_state, restore
from core.training import Lab, Recipe

MAX_SAVED_CHARS = 200_000  # the browser refuses to store an entry longer than this (keeper.js says so too)
ENTRY_KEYS = frozenset({SHARE_PARAM, "steps", "at"})
MAX_AT_MS = 10**14  # far past any real clock (year 5138): a bound, not a date check


@dataclass(frozen=True)
class Found:
    """A valid saved state from the browser: the state, its share-link parameter, its steps, when it was saved."""

    state: AppState
    param: str
    saved_at_ms: int | None

    @property
    def steps(self) -> int:
        return self.state.steps


def saved_entry(recipe: Recipe, text: str, lang: str, lab: Lab, now_ms: int) -> dict | None:
    """The entry the browser keeps for this state, or None when it cannot be kept there.

    None when the state makes no share link (too many steps, a link over
    `MAX_SHARE_PARAM_CHARS`, an invalid state); the page then keeps nothing and says so.
    """
    if min_state_chars(recipe) > MAX_SHARE_JSON_BYTES:  # known too large without building it
        return None
    try:
        small = export_state(recipe, text, lang, lab, include_weights=False)
        if len(small) > MAX_SHARE_JSON_BYTES:  # the link could not be read back
            return None
        params = to_query_params(AppState.model_validate_json(small))
    except (InputError, ValueError):
        return None
    return {SHARE_PARAM: params[SHARE_PARAM], "steps": lab.steps, "at": int(now_ms)}


MIN_ROW_CHARS = len('["",0,""]')  # the shortest a vocabulary row can be in the state's JSON


def min_state_chars(recipe: Recipe) -> int:
    """A lower bound of the length of the state's JSON (its vocabulary rows with their tokens and
    the commas between them): a 100,000-token table is known not to fit a link in milliseconds,
    without writing the state out at every Step."""
    return recipe.vocab.size * (MIN_ROW_CHARS + 1) - 1 + sum(map(len, recipe.vocab.tokens))


def read_found(entry: object) -> Found:
    """Check an entry reported by the browser and parse its state; `InputError` when it is not valid.

    Shape and size first (a dict of the three known keys, ``s`` a string within the share
    link's bound), then the state itself, read as a share link (`from_query_params`).
    """
    if not isinstance(entry, dict) or not entry.keys() <= ENTRY_KEYS or SHARE_PARAM not in entry:
        require([Problem("saved_invalid")])
    param = entry[SHARE_PARAM]
    if not isinstance(param, str):
        require([Problem("saved_invalid")])
    if len(param) > MAX_SHARE_PARAM_CHARS:
        require([Problem("share_too_large", {"n": len(param), "max": MAX_SHARE_PARAM_CHARS})])
    state = from_query_params({SHARE_PARAM: param})
    return Found(state, param, _saved_at(entry.get("at")))


def _saved_at(at: object) -> int | None:
    """A plausible Unix time in ms, or None (the offer then names no time)."""
    if isinstance(at, bool) or not isinstance(at, (int, float)):
        return None
    if not math.isfinite(at) or not 0 <= at <= MAX_AT_MS:
        return None
    return int(at)


def restore_found(found: Found) -> Restored:
    """Replay a found state (the seeded steps and PAD edits); bitwise the weights it was saved with."""
    return restore(found.state)


def is_current(found: Found, current: dict | None) -> bool:
    """Is the found state the page's state now? (Then there is nothing to offer.)"""
    return current is not None and current.get(SHARE_PARAM) == found.param


def saved_at_text(ms: int | None, tz_offset_minutes: int | None) -> str:
    """HH:MM in the browser's time zone (``tz_offset_minutes`` as JavaScript's getTimezoneOffset:
    UTC minus local, -540 in Seoul); UTC when the offset is unknown; '' without a time.

    >>> saved_at_text(1764524400000, -540)
    '02:40'
    """
    if ms is None:
        return ""
    offset = tz_offset_minutes if isinstance(tz_offset_minutes, int) and abs(tz_offset_minutes) <= 24 * 60 else 0
    when = datetime.fromtimestamp(ms / 1000, timezone.utc) + timedelta(minutes=-offset)
    return when.strftime("%H:%M")
