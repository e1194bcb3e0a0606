"""The keeper: the learner's work kept in their own browser, offered back after a reload, a restart,
an expired session or a move to another server (README.md here says how).

The page mounts it twice at most: `watch` on every full run, outside every fragment (it reports what
the browser holds, and its report reruns the whole page, which draws the offer), and, on the training
view, `keep` at the end of every run of the stage's fragment (it only writes: a Step reruns that
fragment alone). Each page session writes its own entry ("slot", `session.keeper_token`); nothing
written by another session is ever overwritten. `offer` draws what the report found, and a page
whose session the server no longer has is told so (its report names the session it had).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import streamlit as st

import session
from components.i18n import problem_text, t
from components.safe_text import md_escape
from core.explorer import Explorer
from core.problems import InputError
from core.saved import (MAX_ENTRIES, MAX_SAVED_CHARS, Found, Kept, Report, is_current, newest_first, read_found,
                        read_report, restore_found, saved_at_text, saved_entry, summary)
from session import Keys

_HERE = Path(__file__).resolve().parent
HTML = '<div class="keeper-host"></div>'
CSS = (_HERE / "keeper.css").read_text(encoding="utf-8")
JS = (_HERE / "keeper.js").read_text(encoding="utf-8")
STORAGE_PREFIX = "nn-embedding-explorer.work"  # localStorage is per origin: <prefix>.<slot>, one per page session

_mount = st.components.v2.component("work_keeper", html=HTML, css=CSS, js=JS)


def _report_changed() -> None:
    """Streamlit keeps a component state only for names with an on_<name>_change callback."""


def _saved(lang: str, ex: Explorer) -> dict | None:
    lab = ex.lab
    return session.memo("keeper_entry", (lab.uid, lab.steps, tuple(lab.pad_edits), len(lab.events), ex.text, lang),
                        lambda: saved_entry(lab.recipe, ex.text, lang, lab, now_ms=int(time.time() * 1000)))


def _data(lang: str, ex: Explorer, role: str) -> dict:
    saved = _saved(lang, ex)
    opened = session.keeper_opened(saved["s"] if saved else None)
    writes = "write" in role
    return {"role": role, "session": session.keeper_token(), "saved": saved if writes else None,
            "keepable": saved is not None,
            "pristine": saved is not None and saved["s"] == opened,  # what the page opened with: nothing to keep
            "prefix": STORAGE_PREFIX, "max_chars": MAX_SAVED_CHARS, "max_entries": MAX_ENTRIES,
            "text": {"kept": t(lang, "keeper.offline_kept", steps="{steps}"),  # the browser fills in its kept steps
                     "held": t(lang, "keeper.offline_held"),
                     "not_kept": t(lang, "keeper.offline_not_kept")}}


def keep(lang: str, ex: Explorer, key: str) -> None:
    """Hand ``ex``'s state to the browser to keep (in its own slot). Mount it inside a fragment: it
    never reports back, so it never asks for a rerun of a fragment the server may not have any more."""
    _mount(key=key, data=_data(lang, ex, "write"), height="content")


def watch(lang: str, ex: Explorer, key: str, write: bool = True) -> dict | None:
    """Mount the keeper outside every fragment (on every full run, after the run's work): it reports
    what the browser kept and when the page came back to a new session. ``write``: it keeps ``ex``'s
    state too (False where a `keep` inside a fragment does). Returns the report, untrusted."""
    result = _mount(key=key, data=_data(lang, ex, "watch+write" if write else "watch"), height="content",
                    on_report_change=_report_changed)
    report = result.get("report") if hasattr(result, "get") else None
    return report if isinstance(report, dict) else None


def offer(lang: str, ex: Explorer, report: dict | None, where: Any = None) -> None:
    """Offer back what the browser kept (``report``, what `watch` returned), in ``where`` (a container
    made near the top of the page; else here): one button per kept work that differs from the page's,
    newest first, saying whose tab, how many steps, when and its first sentence; and a button to
    start fresh. A page reconnected to a new session is told so. Until the learner answers, the
    kept entries stay as they are (the browser writes this session's work in a slot of its own).
    """
    if report is None:
        return
    read = _read(report)
    where = where if where is not None else st
    if isinstance(read, InputError):
        where.caption(t(lang, "keeper.unreadable", why=problem_text(lang, read.problems[0])))
        return
    rep, found, bad = read
    answered = session.keeper_answered()
    if rep.n <= answered or (rep.had == session.keeper_token() and answered >= 0):
        return  # answered; or a short loss of the connection to this same session, after an answer
    reconnected = rep.reconnected(session.keeper_token())
    current = _saved(lang, ex)
    offers = newest_first([(k, f) for k, f in found if not is_current(f, current)])
    if not (offers or reconnected or bad):
        return
    box = where.container(border=True, key=Keys.KEEPER_OFFER)
    if reconnected:
        box.warning(t(lang, "keeper.reconnected"), icon=":material/sync_problem:")
    if offers:
        box.markdown(f"**{t(lang, 'keeper.offer_title')}**")
        box.caption(t(lang, "keeper.offer_help"))
    for kept, f in offers:
        if box.button(_label(lang, kept, f), key=Keys.KEEPER_RESTORE + kept.slot, icon=":material/restore:",
                      type="primary"):
            _restore(lang, rep, f, box)
        first = summary(f)
        if first:
            box.caption(md_escape(first))
    if bad:
        box.caption(t(lang, "keeper.unreadable", why=problem_text(lang, bad[0].problems[0])))
    if box.button(t(lang, "keeper.fresh" if offers else "keeper.ok"), key=Keys.KEEPER_FRESH):
        session.answer_keeper(rep.n)
        st.rerun()


def _label(lang: str, kept: Kept, found: Found) -> str:
    whose = t(lang, "keeper.this_tab" if kept.mine else "keeper.other_tab")
    at = saved_at_text(found.saved_at_ms, st.context.timezone_offset)
    if at:
        return t(lang, "keeper.offer", whose=whose, steps=found.steps, at=at)
    return t(lang, "keeper.offer_no_time", whose=whose, steps=found.steps)


def _restore(lang: str, rep: Report, found: Found, box: Any) -> None:
    try:
        restored = restore_found(found)
    except InputError as e:
        box.caption(t(lang, "keeper.unreadable", why=problem_text(lang, e.problems[0])))
        return
    session.answer_keeper(rep.n)
    session.queue_state(found.state, restored, "keeper.restored")
    st.rerun()


def _read(report: dict) -> tuple[Report, list[tuple[Kept, Found]], list[InputError]] | InputError:
    """The report and each entry read (memoized per report: a page's runs do not parse it again)."""
    try:
        rep = read_report(report)
    except InputError as e:
        return e
    key = (rep.n, rep.had,
           tuple((k.slot, k.mine, _pin(k.entry.get("s")), _pin(k.entry.get("at"))) for k in rep.entries))
    return session.memo("keeper_report", key, lambda: _read_entries(rep))


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
