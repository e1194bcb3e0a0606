"""The keeper (components/keeper) on this session: the work it hands the browser, this session's
token and first state, the learner's answers to its offer, and its keys."""

from __future__ import annotations

import time
from typing import Any

import session
from components import keeper
from core.explorer import Explorer
from core.saved import saved_entry
from server.budget import BUDGET
from session import Keys

OFFER_KEYS = keeper.OfferKeys(box=Keys.KEEPER_OFFER, restore=Keys.KEEPER_RESTORE, fresh=Keys.KEEPER_FRESH)


def slot(lang: str, ex: Explorer) -> keeper.Slot:
    """What the keeper tells the browser of this session: its token, ``ex``'s work as kept (memoized
    until the lab, its text or the language change) and the state it opened with."""
    lab = ex.lab
    saved = session.memo("keeper_entry", (lab.uid, lab.steps, tuple(lab.pad_edits), len(lab.events), ex.text, lang),
                         lambda: saved_entry(lab.recipe, ex.text, lang, lab, now_ms=int(time.time() * 1000)))
    return keeper.Slot(session.keeper_token(), saved, session.keeper_opened(saved["s"] if saved else None))


def keep(lang: str, ex: Explorer, key: str) -> None:
    """`keeper.keep` of ``ex``'s work (inside the training view's stage fragment)."""
    keeper.keep(lang, slot(lang, ex), key=key)


def watch(lang: str, ex: Explorer, key: str, write: bool = True) -> dict | None:
    """`keeper.watch`: the browser's report (untrusted), keeping ``ex``'s work too when ``write``."""
    return keeper.watch(lang, slot(lang, ex), key=key, write=write)


def _restore(state, restored) -> None:
    session.queue_state(state, restored, "keeper.restored")  # applied at the top of the next run


def offer(lang: str, ex: Explorer, report: dict | None, where: Any = None) -> None:
    """`keeper.offer` of what ``report`` found: an answer is remembered in the session, and a restored
    work is queued for the next run."""
    keeper.offer(lang, slot(lang, ex), report, OFFER_KEYS, answered=session.keeper_answered(),
                 on_answer=session.answer_keeper, on_restore=_restore, memo=session.memo, where=where,
                 work=BUDGET)
