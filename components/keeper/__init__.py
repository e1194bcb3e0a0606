"""The keeper: the learner's work kept in their own browser, offered back after a reload, an outage or a restart.

``keep(lang, ex, key, restore_key)`` is all the page calls (README.md here says where). Each run
it hands the browser the current state as a share-link entry (core.saved); the browser writes it
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


def keep(lang: str, ex: Explorer, key: str, restore_key: str, offer_in: Any = None) -> None:
    """Keep ``ex``'s state in the browser; offer back a different state the browser kept, as a button.

    Call it after the run's work (training) is done, so the browser keeps the state the page shows;
    ``offer_in`` (a container made earlier, e.g. at the top of the page) is where the offer is drawn,
    else here. A click replays the kept state and installs it on the next run (``session.queue_state``).
    """
    lab = ex.lab
    saved = session.memo("keeper_entry", (lab.uid, lab.steps, tuple(lab.pad_edits), len(lab.events), ex.text, lang),
                         lambda: saved_entry(lab.recipe, ex.text, lang, lab, now_ms=int(time.time() * 1000)))
    entry = keeper(saved, lang, key)
    if entry is None:
        return
    param = entry.get(SHARE_PARAM)
    if isinstance(param, str) and len(param) <= MAX_SHARE_PARAM_CHARS:  # parsed once per entry, not per run
        found = session.memo("keeper_found", (param, entry.get("at")), lambda: _read(entry))
    else:
        found = _read(entry)  # refused at once, before anything is decoded
    where = offer_in if offer_in is not None else st
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
