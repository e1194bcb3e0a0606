"""The keeper: the learner's work kept in their own browser, offered back after a reload, an outage or a restart.

The page calls ``keep(lang, ex, key)`` after each run's work and ``offer(lang, ex, found, restore_key)``
(README.md here says where). Each run `keep` hands the browser the current state as a share-link entry (core.saved); the browser writes it
to ``localStorage`` and, when the page opened with a different state than the one it holds,
reports that one back once (``{"found": entry}``). The page then offers a button "restore your
work (step N, saved at HH:MM)"; a click replays the entry (validated like a share link) and
installs it through ``session.queue_state``. While the server cannot be reached, the browser
shows a banner saying the work is kept there and will be offered back after reloading.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import streamlit as st

import session
from components.i18n import problem_text, t
from core.explorer import Explorer
from core.problems import InputError
from core.share_link import MAX_SHARE_PARAM_CHARS, SHARE_PARAM
from core.saved import MAX_SAVED_CHARS, Found, is_current, read_found, restore_found, saved_at_text, saved_entry

_HERE = Path(__file__).resolve().parent
HTML = '<div class="keeper-host"></div>'
CSS = (_HERE / "keeper.css").read_text(encoding="utf-8")
JS = (_HERE / "keeper.js").read_text(encoding="utf-8")
STORAGE_KEY = "nn-embedding-explorer.work"  # localStorage is per origin: one saved work per app address

_mount = st.components.v2.component("work_keeper", html=HTML, css=CSS, js=JS)


def _found_changed() -> None:
    """Streamlit keeps a component state only for names with an on_<name>_change callback."""


def keeper(saved: dict | None, lang: str, key: str) -> dict | None:
    """Mount the keeper with the current entry ``saved``; return the entry the browser found, or None.

    What is returned is untrusted (any client can send any component state): read it with
    `core.saved.read_found`.
    """
    steps = saved.get("steps") if isinstance(saved, dict) else None
    data = {"saved": saved, "storage_key": STORAGE_KEY, "max_chars": MAX_SAVED_CHARS,
            "text": {"kept": t(lang, "keeper.offline_kept", steps=steps if isinstance(steps, int) else 0),
                     "held": t(lang, "keeper.offline_held"),
                     "not_kept": t(lang, "keeper.offline_not_kept")}}
    result = _mount(key=key, data=data, height="content", on_found_change=_found_changed)
    found = result.get("found") if hasattr(result, "get") else None
    return found if isinstance(found, dict) else None


def _saved(lang: str, ex: Explorer) -> dict | None:
    lab = ex.lab
    return session.memo("keeper_entry", (lab.uid, lab.steps, tuple(lab.pad_edits), len(lab.events), ex.text, lang),
                        lambda: saved_entry(lab.recipe, ex.text, lang, lab, now_ms=int(time.time() * 1000)))


def keep(lang: str, ex: Explorer, key: str) -> dict | None:
    """Hand ``ex``'s state to the browser to keep; return the different state it kept, if any (untrusted).

    Call it after the run's work (training) is done, so the browser keeps the state the page shows.
    """
    return keeper(_saved(lang, ex), lang, key)


def found(key: str) -> dict | None:
    """The state the keeper mounted under ``key`` reported, as `keep` returned it (read where the
    keeper was mounted inside a fragment and the offer is drawn outside it)."""
    state = session.get(key)
    entry = state.get("found") if hasattr(state, "get") else None
    return entry if isinstance(entry, dict) else None


def offer(lang: str, ex: Explorer, entry: dict | None, restore_key: str, where: Any = None) -> None:
    """Offer back ``entry`` (what `keep` returned), when it differs from ``ex``'s state, as a button in
    ``where`` (a container made earlier, e.g. at the top of the page; else here). A click replays
    the kept state and installs it on the next run (``session.queue_state``).
    """
    if entry is None:
        return
    saved = _saved(lang, ex)
    param = entry.get(SHARE_PARAM)
    if isinstance(param, str) and len(param) <= MAX_SHARE_PARAM_CHARS:  # parsed once per entry, not per run
        found = session.memo("keeper_found", (param, entry.get("at")), lambda: _read(entry))
    else:
        found = _read(entry)  # refused at once, before anything is decoded
    where = where if where is not None else st
    if isinstance(found, InputError):
        where.caption(t(lang, "keeper.unreadable", why=problem_text(lang, found.problems[0])))
        return
    if is_current(found, saved):
        return
    at = saved_at_text(found.saved_at_ms, st.context.timezone_offset)
    label = t(lang, "keeper.offer", steps=found.steps, at=at) if at else t(lang, "keeper.offer_no_time", steps=found.steps)
    if where.button(label, key=restore_key, icon=":material/restore:", type="primary"):
        try:
            restored = restore_found(found)
        except InputError as e:
            where.caption(t(lang, "keeper.unreadable", why=problem_text(lang, e.problems[0])))
            return
        session.queue_state(found.state, restored, "keeper.restored")
        st.rerun()


def _read(entry: Any) -> Found | InputError:
    try:
        return read_found(entry)
    except InputError as e:
        return e
