"""The keeper: the learner's work kept in their own browser, offered back after a reload, a restart,
an expired session or a move to another server (README.md here says how).

The page mounts it twice at most: `watch` on every full run, outside every fragment (it reports what
the browser holds, and its report reruns the whole page, which draws the offer), and, on the training
view, `keep` at the end of every run of the stage's fragment (it only writes: a Step reruns that
fragment alone). Each page session writes its own entry ("slot", `session.keeper_token`); nothing
written by another session is ever overwritten. `offer` draws what the report found, and a page
whose session the server no longer has is told so (its report names the session it had).

It takes what it tells the browser as values (`Slot`) and what the learner's answers do as callbacks;
sections/keeper_section.py reads them from the session.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import streamlit as st

from components.i18n import problem_text, t
from components.memo import Memo, no_memo
from components.safe_text import md_escape
from core.problems import InputError
from core.saved import (MAX_ENTRIES, MAX_SAVED_CHARS, Found, Kept, Report, is_current, newest_first, read_found,
                        read_report, restore_found, saved_at_text, summary)
from core.state import AppState, Restored
from core.work import FREE, Work

_HERE = Path(__file__).resolve().parent
HTML = '<div class="keeper-host"></div>'
CSS = (_HERE / "keeper.css").read_text(encoding="utf-8")
JS = (_HERE / "keeper.js").read_text(encoding="utf-8")
STORAGE_PREFIX = "nn-embedding-explorer.work"  # localStorage is per origin: <prefix>.<slot>, one per page session

NAME = "work_keeper"
JS_FILE = "keeper.js"  # with a server, the page has it served from this folder instead of JS (as the stage's)
_mount = st.components.v2.component(NAME, html=HTML, css=CSS, js=JS)


def _report_changed() -> None:
    """Streamlit keeps a component state only for names with an on_<name>_change callback."""


@dataclass(frozen=True)
class Slot:
    """This page's session, as the keeper tells the browser."""

    token: str  # the session's random token: the browser keeps this page's work under it (its slot)
    saved: dict | None  # this page's work as the browser keeps it (core.saved.saved_entry); None: too large
    opened: str | None  # the share parameter of the state the session opened with (nothing new to keep)


@dataclass(frozen=True)
class OfferKeys:
    """The offer's keys: its box, the prefix of a kept work's restore button (+ its slot), and
    the button that answers without restoring."""

    box: str
    restore: str
    fresh: str


def _data(lang: str, slot: Slot, role: str) -> bytes:
    """What the browser is told, as JSON bytes written once (as the stage's data: a dict would be
    scanned for dataframes key by key and written twice)."""
    saved = slot.saved
    writes = "write" in role
    data = {"role": role, "session": slot.token, "saved": saved if writes else None,
            "keepable": saved is not None,
            "pristine": saved is not None and saved["s"] == slot.opened,  # what the page opened with: nothing to keep
            "prefix": STORAGE_PREFIX, "max_chars": MAX_SAVED_CHARS, "max_entries": MAX_ENTRIES,
            "text": {"kept": t(lang, "keeper.offline_kept", steps="{steps}"),  # the browser fills in its kept steps
                     "held": t(lang, "keeper.offline_held"),
                     "not_kept": t(lang, "keeper.offline_not_kept")}}
    return json.dumps(data, separators=(",", ":")).encode("utf-8")


def keep(lang: str, slot: Slot, key: str) -> None:
    """Hand the page's work (``slot.saved``) to the browser to keep, in its own slot. Mount it inside
    a fragment: it never reports back, so it never asks for a rerun of a fragment the server may not
    have any more."""
    _mount(key=key, data=_data(lang, slot, "write"), height="content")


def watch(lang: str, slot: Slot, key: str, write: bool = True) -> dict | None:
    """Mount the keeper outside every fragment (on every full run, after the run's work): it reports
    what the browser kept and when the page came back to a new session. ``write``: it keeps the
    page's work too (False where a `keep` inside a fragment does). Returns the report, untrusted."""
    result = _mount(key=key, data=_data(lang, slot, "watch+write" if write else "watch"), height="content",
                    on_report_change=_report_changed)
    report = result.get("report") if hasattr(result, "get") else None
    return report if isinstance(report, dict) else None


def offer(lang: str, slot: Slot, report: dict | None, keys: OfferKeys, answered: int,
          on_answer: Callable[[int], None], on_restore: Callable[[AppState, Restored], None],
          memo: Memo = no_memo, where: Any = None, work: Work = FREE) -> None:
    """Offer back what the browser kept (``report``, what `watch` returned), in ``where`` (a container
    made near the top of the page; else here): one button per kept work that differs from the page's,
    newest first, saying whose tab, how many steps, when and its first sentence; and a button to
    start fresh. A page reconnected to a new session is told so. Until the learner answers, the
    kept entries stay as they are (the browser writes this session's work in a slot of its own).

    ``answered``: the number of the last report the learner answered (-1: none); an answer calls
    ``on_answer(report's number)``, and a restore ``on_restore(state, restored)`` too (the state is
    applied on the next run), then the page reruns. ``memo`` keeps each report's reading; a restored
    lab is given ``work`` (core/work.py).
    """
    if report is None:
        return
    read = _read(report, memo)
    where = where if where is not None else st
    if isinstance(read, InputError):
        where.caption(t(lang, "keeper.unreadable", why=problem_text(lang, read.problems[0])))
        return
    rep, found, bad = read
    if rep.n <= answered or (rep.had == slot.token and answered >= 0):
        return  # answered; or a short loss of the connection to this same session, after an answer
    reconnected = rep.reconnected(slot.token)
    current = slot.saved
    offers = newest_first([(k, f) for k, f in found if not is_current(f, current)])
    if not (offers or reconnected or bad):
        return
    box = where.container(border=True, key=keys.box)
    if reconnected:
        box.warning(t(lang, "keeper.reconnected"), icon=":material/sync_problem:")
    if offers:
        box.markdown(f"**{t(lang, 'keeper.offer_title')}**")
        box.caption(t(lang, "keeper.offer_help"))
    for kept, f in offers:
        if box.button(_label(lang, kept, f), key=keys.restore + kept.slot, icon=":material/restore:",
                      type="primary"):
            _restore(lang, rep, f, box, on_answer, on_restore, work)
        first = summary(f)
        if first:
            box.caption(md_escape(first))
    if bad:
        box.caption(t(lang, "keeper.unreadable", why=problem_text(lang, bad[0].problems[0])))
    if box.button(t(lang, "keeper.fresh" if offers else "keeper.ok"), key=keys.fresh):
        on_answer(rep.n)
        st.rerun()


def _label(lang: str, kept: Kept, found: Found) -> str:
    whose = t(lang, "keeper.this_tab" if kept.mine else "keeper.other_tab")
    at = saved_at_text(found.saved_at_ms, st.context.timezone_offset)
    if at:
        return t(lang, "keeper.offer", whose=whose, steps=found.steps, at=at)
    return t(lang, "keeper.offer_no_time", whose=whose, steps=found.steps)


def _restore(lang: str, rep: Report, found: Found, box: Any, on_answer: Callable[[int], None],
             on_restore: Callable[[AppState, Restored], None], work: Work) -> None:
    try:
        restored = restore_found(found, work)
    except InputError as e:
        box.caption(t(lang, "keeper.unreadable", why=problem_text(lang, e.problems[0])))
        return
    on_answer(rep.n)
    on_restore(found.state, restored)
    st.rerun()


def _read(report: dict, memo: Memo) -> tuple[Report, list[tuple[Kept, Found]], list[InputError]] | InputError:
    """The report and each entry read (memoized per report: a page's runs do not parse it again)."""
    try:
        rep = read_report(report)
    except InputError as e:
        return e
    key = (rep.n, rep.had,
           tuple((k.slot, k.mine, _pin(k.entry.get("s")), _pin(k.entry.get("at"))) for k in rep.entries))
    return memo("keeper_report", key, lambda: _read_entries(rep))


def _pin(value: object) -> object:
    """What of an entry's field its reading depends on, as a small memo key (never a client's nested data)."""
    if isinstance(value, str):
        return value if len(value) <= MAX_SAVED_CHARS else ("long", len(value))
    return value if isinstance(value, (int, float)) else type(value).__name__


def _read_entries(rep: Report) -> tuple[Report, list[tuple[Kept, Found]], list[InputError]]:
    found, bad = [], []
    for kept in rep.entries:
        try:
            found.append((kept, read_found(kept.entry)))
        except InputError as e:
            bad.append(e)
    return rep, found, bad
