"""Work kept in the learner's own browser: the compact state written there, and reading it back.

The browser (components/keeper) keeps the last few states of its pages in ``localStorage``, one
entry per page session (a "slot"), each the share link's parameter for that page's state (no
tensors: the seeded replay rebuilds them bitwise), its step count, when it was made and which tab
wrote it::

    {"s": "eNo9kE1Lw0AQ…", "steps": 7, "at": 1764524400000, "tab": "k3…"}     # at: Unix time in ms

When a page opens, or finds its server session gone, the browser reports what it holds (`Report`):
the entries of other slots, marked as this tab's or another's, and the session it had before::

    {"n": 2, "had": "Yk3…", "entries": [{"slot": "Yk3…", "mine": true, "s": "eNo9…", "steps": 7, "at": …}]}

Everything that comes back from the browser is untrusted (anyone can edit their localStorage, or
send any component state over the websocket): `read_report` and `read_found` check shape and size
before decoding, then read ``s`` exactly as a share link (`from_query_params`: bounded, validated,
replay budget). `restore_found` replays it. Nothing here imports streamlit.

    >>> entry = saved_entry(recipe, text, "ko", lab, now_ms=1764524400000)
    >>> found = read_found(entry)                     # an InputError for anything else
    >>> found.steps, saved_at_text(found.saved_at_ms, -540)
    (7, '02:40')
    >>> restore_found(found).lab.weight               # bitwise the W of `lab`
    >>> read_report({"n": 1, "had": None, "entries": [{"slot": "a1", "mine": True, **entry}]}).entries[0].mine
    True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from core.problems import InputError, Problem, require
from core.share_link import MAX_SHARE_JSON_BYTES, MAX_SHARE_PARAM_CHARS, SHARE_PARAM, from_query_params, to_query_params
from core.state import AppState, Restored, export_state, restore
from core.training import Lab, Recipe
from core.work import FREE, Work

MAX_SAVED_CHARS = 10_000  # the browser stores no entry longer than this (a share link's parameter and its fields)
MAX_ENTRIES = 8  # entries a browser keeps (the oldest go first); a report lists at most these
MAX_OFFERS = 4  # entries offered back at once, the newest first
ENTRY_KEYS = frozenset({SHARE_PARAM, "steps", "at"})
REPORT_KEYS = frozenset({"n", "had", "entries"})
KEPT_KEYS = ENTRY_KEYS | {"slot", "mine"}
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,40}")  # a slot, a session's token: what `new_token` makes, or a client's guess
MAX_REPORT_N = 2**31
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


def restore_found(found: Found, work: Work = FREE) -> Restored:
    """Replay a found state (the seeded steps and PAD edits), its lab given ``work``; bitwise the weights
    it was saved with."""
    return restore(found.state, work)


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


# ---- what the browser reports ------------------------------------------------------------------
@dataclass(frozen=True)
class Kept:
    """One entry a browser reported: its slot (the page session that wrote it), whether this tab
    wrote it, and the entry itself (still unread: `read_found`)."""

    slot: str
    mine: bool
    entry: dict


@dataclass(frozen=True)
class Report:
    """What the browser reported: ``n`` counts its reports (a newer one asks again), ``had`` the
    session token its page had before this one (None on a page's first report), and the entries."""

    n: int
    had: str | None
    entries: tuple[Kept, ...]

    def reconnected(self, token: str) -> bool:
        """Does this page come from another session than ``token`` (a restart, an expired session,
        another server)?"""
        return self.had is not None and self.had != token


def read_report(report: object) -> Report:
    """Check a report's shape and size (`InputError` ``saved_invalid`` otherwise); its entries' states
    are read one by one with `read_found`, so one bad entry leaves the others."""
    if not isinstance(report, dict) or not report.keys() <= REPORT_KEYS:
        require([Problem("saved_invalid")])
    n, had, entries = report.get("n"), report.get("had"), report.get("entries", [])
    if type(n) is not int or not 0 <= n < MAX_REPORT_N or not _token_or_none(had):
        require([Problem("saved_invalid")])
    if not isinstance(entries, list) or len(entries) > MAX_ENTRIES:
        require([Problem("saved_invalid")])
    kept = []
    for e in entries:
        if (not isinstance(e, dict) or not e.keys() <= KEPT_KEYS or not is_token(e.get("slot"))
                or type(e.get("mine")) is not bool):
            require([Problem("saved_invalid")])
        kept.append(Kept(e["slot"], e["mine"], {k: v for k, v in e.items() if k in ENTRY_KEYS}))
    return Report(n, had, tuple(kept))


def is_token(value: object) -> bool:
    return isinstance(value, str) and TOKEN.fullmatch(value) is not None


def _token_or_none(value: object) -> bool:
    return value is None or is_token(value)


def newest_first(kept: list[tuple[Kept, Found]]) -> list[tuple[Kept, Found]]:
    """The entries to offer: at most `MAX_OFFERS`, the newest first (an entry with no time last)."""
    return sorted(kept, key=lambda kf: -(kf[1].saved_at_ms or -1))[:MAX_OFFERS]


MAX_SUMMARY_CHARS = 48


def summary(found: Found) -> str:
    """The first sentence of a found state, as plain text cut to `MAX_SUMMARY_CHARS` (what tells two
    kept works apart besides their steps and time). Untrusted: escape it for any Markdown sink."""
    for line in found.state.sentences.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= MAX_SUMMARY_CHARS else line[:MAX_SUMMARY_CHARS - 1] + "…"
    return ""
